/*
 * The certificate an administrator trusts for one source's server: a self-signed certificate, or
 * a company's own authority, pasted as PEM in the panel. It is used for that source's requests
 * only (with the usual authorities beside it), so nothing has to be added to the whole service.
 * A paste that does not read as certificates is refused at once rather than at the first run.
 */
import { X509Certificate } from 'node:crypto'

import { PluginError } from '../host/errors.js'

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+?-----END CERTIFICATE-----/g
const MAX_PEM_CHARS = 20_000
const MAX_CERTIFICATES = 5

export interface TrustedCertificateView {
  subject: string
  issuer: string
  valid_to: string
  fingerprint_sha256: string
}

function refuseCertificate(pl: string, en: string): never {
  throw new PluginError('source_certificate_invalid', 422, {
    message: pl,
    message_pl: pl,
    message_en: en,
    issues: [
      { field: 'ca_certificate', code: 'source_certificate_invalid', message: pl, message_pl: pl, message_en: en },
    ],
  })
}

/**
 * The pasted PEM as stored (its certificate blocks only, in order), or null to trust nothing
 * extra; refuses with 422 source_certificate_invalid anything else.
 */
export function normalizeCertificate(input: unknown): string | null {
  if (input === null || input === undefined || (typeof input === 'string' && input.trim() === '')) return null
  if (typeof input !== 'string' || input.length > MAX_PEM_CHARS)
    refuseCertificate(
      `Certyfikat musi być tekstem PEM o długości do ${MAX_PEM_CHARS} znaków.`,
      `The certificate must be PEM text of at most ${MAX_PEM_CHARS} characters.`,
    )
  const blocks = input.replace(/\r\n?/g, '\n').match(PEM_BLOCK) ?? []
  if (blocks.length === 0)
    refuseCertificate(
      'Wklejony tekst nie zawiera certyfikatu. Wklej certyfikat w formacie PEM, od wiersza „-----BEGIN CERTIFICATE-----” do „-----END CERTIFICATE-----”.',
      'The pasted text holds no certificate. Paste a PEM certificate, from "-----BEGIN CERTIFICATE-----" to "-----END CERTIFICATE-----".',
    )
  if (blocks.length > MAX_CERTIFICATES)
    refuseCertificate(
      `Wklej najwyżej ${MAX_CERTIFICATES} certyfikatów.`,
      `Paste at most ${MAX_CERTIFICATES} certificates.`,
    )
  blocks.forEach((block, index) => {
    try {
      new X509Certificate(block)
    } catch {
      refuseCertificate(
        `Certyfikat nr ${index + 1} nie daje się odczytać (uszkodzony lub niepełny tekst PEM). Skopiuj go ponownie w całości.`,
        `Certificate ${index + 1} cannot be read (damaged or incomplete PEM). Copy it again in full.`,
      )
    }
  })
  return `${blocks.join('\n')}\n`
}

/** What the panel shows of a stored certificate: whose it is, who issued it, until when. */
export function certificateView(pem: string | null): TrustedCertificateView[] {
  if (!pem) return []
  return (pem.match(PEM_BLOCK) ?? []).flatMap((block) => {
    try {
      const cert = new X509Certificate(block)
      return [
        {
          subject: cert.subject.replaceAll('\n', ', '),
          issuer: cert.issuer.replaceAll('\n', ', '),
          valid_to: new Date(cert.validTo).toISOString(),
          fingerprint_sha256: cert.fingerprint256,
        },
      ]
    } catch {
      return []
    }
  })
}
