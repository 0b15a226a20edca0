/*
 * Identifiers as Polish people type them, stored as the official files want them: NIP
 * "525-123-45-60" or "PL 525 123 45 60" → "5251234560", REGON and KRS without spaces or dashes,
 * a phone "+48 601 887 712" or "601-887-712" → "+48601887712" / "601887712", a postal code
 * "00950" or "00 950" → "00-950". Only separators are removed: a value that is still not one of
 * those is left as typed, for the validator to refuse at its field.
 */

const DIGITS_AND_SEPARATORS = /^[\d\s.\-/]+$/

export function normalizeNip(value: string): string {
  const stripped = value.replace(/^PL\s*/i, '')
  return DIGITS_AND_SEPARATORS.test(stripped) ? stripped.replace(/\D/g, '') : value
}

export function normalizeDigits(value: string): string {
  return DIGITS_AND_SEPARATORS.test(value) ? value.replace(/\D/g, '') : value
}

export function normalizePhone(value: string): string {
  const match = /^(\+\s*\d{2})?([\d\s\-/().]+)$/.exec(value.trim())
  if (!match) return value
  const prefix = match[1] ? match[1].replace(/\s/g, '') : ''
  const digits = match[2]!.replace(/\D/g, '')
  return `${prefix}${digits}`
}

export function normalizePostalCode(value: string): string {
  const match = /^(\d{2})\s*[-–]?\s*(\d{3})$/.exec(value.trim())
  return match ? `${match[1]}-${match[2]}` : value
}

const NORMALIZERS: Readonly<Record<string, (value: string) => string>> = {
  nip: normalizeNip,
  regon: normalizeDigits,
  krs: normalizeDigits,
  phone: normalizePhone,
  fax: normalizePhone,
  seat_postal_code: normalizePostalCode,
  sales_postal_code: normalizePostalCode,
  postal_code: normalizePostalCode,
}

/** The value of `field` with its separators removed as the official files want it. */
export function normalizeTyped(field: string, value: string): string {
  const normalize = NORMALIZERS[field]
  return normalize ? normalize(value) : value
}
