/*
 * Looks through the captured logs of a run for what must never be logged
 * (docs/decisions/errors-and-logs.md): any password, application password, webhook secret or key the run made, an Authorization
 * value (`Basic …`, `Bearer …`), a header that carries a credential logged with its value, and any
 * webhook signature the run sent. A finding is reported by file, line and kind, never by the value.
 */
import fs from 'node:fs'
import { createInterface } from 'node:readline'

export interface SecretScan {
  files: number
  lines: number
  bytes: number
  /** Kind of finding → count, with the first place seen. */
  findings: Map<string, { count: number; first: string }>
}

const HEX64 = /\b[0-9a-f]{64}\b/g
/** A header or field that holds a credential, logged with anything but the redaction mark. */
const CREDENTIAL_FIELD =
  /"(authorization|x-dg-signature|x-dg-webhook-key|x-wp-nonce|cookie|set-cookie|password|secret|application_password)"\s*:\s*"(?!\*\*\*")[^"]+"/i
const AUTHORIZATION_VALUE = /\b(Basic|Bearer)\s+[A-Za-z0-9+/=._~-]{8,}/

export async function scanLogsForSecrets(
  files: readonly string[],
  credentials: readonly string[],
  signatures: ReadonlySet<string>,
): Promise<SecretScan> {
  const scan: SecretScan = { files: 0, lines: 0, bytes: 0, findings: new Map() }
  const secrets = [...new Set(credentials.filter((value) => value.length >= 8))]
  const note = (kind: string, where: string) => {
    const seen = scan.findings.get(kind)
    if (seen) seen.count++
    else scan.findings.set(kind, { count: 1, first: where })
  }
  for (const file of files) {
    if (!fs.existsSync(file)) continue
    scan.files++
    scan.bytes += fs.statSync(file).size
    let number = 0
    const lines = createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity })
    for await (const line of lines) {
      number++
      scan.lines++
      const where = `${file}:${number}`
      for (const secret of secrets) if (line.includes(secret)) note('a password, key or secret of the run', where)
      if (AUTHORIZATION_VALUE.test(line)) note('an Authorization value (Basic/Bearer)', where)
      if (CREDENTIAL_FIELD.test(line)) note('a credential header or field with its value', where)
      for (const hex of line.match(HEX64) ?? []) if (signatures.has(hex)) note('a webhook signature sent', where)
    }
  }
  return scan
}

export function describeScan(scan: SecretScan): string {
  const head = `Secrets in the logs: ${scan.files} log file(s), ${scan.lines} lines (${(scan.bytes / 1048576).toFixed(1)} MB) searched`
  if (scan.findings.size === 0) return `${head}; no password, key, secret, Authorization value or signature found: PASS`
  const lines = [...scan.findings].map(([kind, { count, first }]) => `  ${kind}: ${count} (first at ${first})`)
  return `${head}; FOUND:\n${lines.join('\n')}\nresult: MISS`
}
