/*
 * `dg webhook send --url U --secret-file F --key K payload.json`: the reference sender from the
 * command line. The payload file is sent byte for byte (serialized once, by whoever wrote it).
 */
import fs from 'node:fs/promises'

import { HostError } from '../../host/errors.js'
import { sendPropertyEvent, WebhookSendError } from '../../webhook/sender.js'
import type { CliEnvironment } from '../cli-context.js'
import type { CommandResult } from '../command.js'

async function readText(file: string, what: string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8')
  } catch {
    throw new HostError('file_not_found', 400, `Cannot read the ${what} file ${file}.`)
  }
}

export async function runWebhookSendCommand(
  values: Record<string, string | boolean | undefined>,
  env: CliEnvironment,
  payloadFile: string,
): Promise<CommandResult> {
  const secret = (await readText(String(values['secret-file']), 'secret')).trim()
  const payload = await readText(payloadFile, 'payload')
  try {
    JSON.parse(payload)
  } catch {
    throw new HostError('invalid_json', 400, `${payloadFile} is not valid JSON.`)
  }
  try {
    const sent = await sendPropertyEvent({
      url: String(values.url),
      secret,
      idempotencyKey: String(values.key),
      payload,
      onAttempt: (a) => {
        if (!values.json)
          env.io.stderr(
            `attempt ${a.number}: ${a.status}${a.error ? ` ${a.error}` : ''}${a.waitMs ? `, waiting ${a.waitMs} ms` : ''}\n`,
          )
      },
    })
    return {
      json: sent,
      text: `${sent.replayed ? 'Already applied earlier (replayed)' : 'Accepted'}: ${JSON.stringify(sent.result)} after ${sent.attempts} attempt(s).`,
    }
  } catch (error) {
    if (error instanceof WebhookSendError)
      throw new HostError(error.code, error.status ?? 502, `${error.message}: ${JSON.stringify(error.body)}`)
    throw error
  }
}
