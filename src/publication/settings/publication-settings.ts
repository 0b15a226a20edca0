/*
 * Settings of the official publication: where the files are served (https), which developer
 * entity publishes, which offer statuses are published, and when the daily job runs. The legal
 * entity data itself (columns 1–28) and each entity's dataset fields (its `<url>` and description
 * notes) live in `developers` and are validated by validateDeveloper.
 */
import { Cron } from 'croner'

import type { Actor } from '../../host/audit/audit.js'
import { recordAudit } from '../../host/audit/audit.js'
import type { HostContext } from '../../host/context.js'
import type { DeveloperRow } from '../../host/db/schema.js'
import { PluginError } from '../../host/errors.js'
import { getOption, setOption } from '../../host/options/options.js'
import { VOIVODESHIPS } from '../../offers/canonical-fields.js'
import { hasUnprintableCharacter, looksLikeFormula } from '../../offers/validation/parse-values.js'
import { DEVELOPER_NAME_MAX, descriptionNoteMax } from '../daily-file/harvester-xml.js'

export const PUBLICATION_SETTINGS_OPTION = 'dg_publication_settings'

export interface PublicationSettings {
  /** https address under which this service's /dane-gov files are reachable, e.g. https://ceny.example.pl/dane-gov */
  public_base_url: string | null
  /** The publishing developer entity; null = the first one. */
  developer_id: number | null
  /** Offer statuses that appear in the daily file. */
  published_statuses: string[]
  /** Daily job, cron pattern in Europe/Warsaw. */
  schedule: string
}

export const DEFAULT_PUBLICATION_SETTINGS: PublicationSettings = {
  public_base_url: null,
  developer_id: null,
  published_statuses: ['available', 'reserved'],
  schedule: '30 0 * * *',
}

export async function getPublicationSettings(ctx: Pick<HostContext, 'db'>): Promise<PublicationSettings> {
  const stored = (await getOption<Partial<PublicationSettings>>(ctx, PUBLICATION_SETTINGS_OPTION)) ?? {}
  return {
    public_base_url: stored.public_base_url ?? DEFAULT_PUBLICATION_SETTINGS.public_base_url,
    developer_id: stored.developer_id ?? DEFAULT_PUBLICATION_SETTINGS.developer_id,
    published_statuses: stored.published_statuses ?? DEFAULT_PUBLICATION_SETTINGS.published_statuses,
    schedule: stored.schedule ?? DEFAULT_PUBLICATION_SETTINGS.schedule,
  }
}

export interface SettingsIssue {
  field: string
  code: string
  message: string
  /** The largest length allowed, for a refusal of a too long text. */
  max?: number
}

/** Characters XML 1.0 cannot carry, and line breaks the one-paragraph description should not hold. */
function hasControlCharacter(text: string): boolean {
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0
    if (code < 0x20 || code === 0x7f || code === 0xfffe || code === 0xffff) return true
  }
  return false
}

/**
 * `production` (DG_ENV=production) accepts only https:// public addresses; elsewhere http:// is
 * accepted too, for local trials such as the demo (the preflight then says it is not for the portal).
 */
export function validatePublicationSettings(settings: PublicationSettings, production = true): SettingsIssue[] {
  const issues: SettingsIssue[] = []
  if (settings.public_base_url !== null) {
    let url: URL | undefined
    try {
      url = new URL(settings.public_base_url)
    } catch {
      url = undefined
    }
    const scheme = settings.public_base_url.slice(0, settings.public_base_url.indexOf(':') + 3)
    const allowed = production ? ['https://'] : ['https://', 'http://']
    if (!url || !allowed.includes(scheme) || /\s/.test(settings.public_base_url))
      issues.push({
        field: 'public_base_url',
        code: production ? 'https_required' : 'invalid_url',
        message: production
          ? 'public_base_url must be an https:// address (the portal refuses http).'
          : 'public_base_url must be an https:// address (or http:// for a local trial outside production).',
      })
  }
  const allowed = ['available', 'reserved', 'sold', 'unavailable']
  if (settings.published_statuses.length === 0 || settings.published_statuses.some((s) => !allowed.includes(s))) {
    issues.push({
      field: 'published_statuses',
      code: 'invalid_enum',
      message: `published_statuses must be a non-empty list of ${allowed.join(', ')}.`,
    })
  }
  try {
    new Cron(settings.schedule, { paused: true, timezone: 'Europe/Warsaw' }).stop()
  } catch {
    issues.push({
      field: 'schedule',
      code: 'invalid_cron',
      message: 'schedule must be a cron pattern such as "30 0 * * *".',
    })
  }
  return issues
}

export async function updatePublicationSettings(
  ctx: HostContext,
  patch: Partial<PublicationSettings>,
  actor: Actor,
): Promise<PublicationSettings> {
  const next = { ...(await getPublicationSettings(ctx)), ...patch }
  const issues = validatePublicationSettings(next, ctx.config.env === 'production')
  if (
    next.developer_id !== null &&
    !(await ctx.db.selectFrom('developers').select('id').where('id', '=', next.developer_id).executeTakeFirst())
  ) {
    issues.push({ field: 'developer_id', code: 'not_found', message: `There is no developer ${next.developer_id}.` })
  }
  if (issues.length > 0) throw new PluginError('invalid_settings', 422, { issues })
  await ctx.db.transaction().execute(async (trx) => {
    await setOption(ctx, PUBLICATION_SETTINGS_OPTION, next, { autoload: true, db: trx })
    await recordAudit(ctx, { actor, action: 'publication.settings', outcome: 'success', details: { ...next } }, trx)
  })
  return next
}

const NIP_WEIGHTS = [6, 5, 7, 2, 3, 4, 5, 6, 7]
const REGON9_WEIGHTS = [8, 9, 2, 3, 4, 5, 6, 7]
const REGON14_WEIGHTS = [2, 4, 8, 5, 0, 9, 7, 3, 6, 1, 2, 4, 8]

/** For NIP a remainder of 10 means the number is invalid; for REGON it stands for 0. */
function checksumOk(digits: string, weights: number[], tenMeansZero: boolean): boolean {
  const sum = weights.reduce((acc, w, i) => acc + w * Number(digits[i]), 0)
  const remainder = sum % 11
  if (remainder === 10 && !tenMeansZero) return false
  return (remainder === 10 ? 0 : remainder) === Number(digits[weights.length])
}

/*
 * Characters neither the official files (XML 1.0) nor PostgreSQL (U+0000, which made a PUT of a
 * developer or a location answer 500 there: found by the fuzz suite) can hold, and those the
 * offer's texts refuse (control and invisible ones, line breaks and tabs included).
 */
function hasUnstorableCharacter(text: string): boolean {
  return hasUnprintableCharacter(text) || /[\ufffe\uffff]/.test(text)
}

/**
 * An issue per text field holding a character no official file can carry, or starting like a
 * spreadsheet formula (the daily CSV is opened in spreadsheet programs; see `looksLikeFormula`).
 */
export function unstorableTextIssues(values: Readonly<Record<string, unknown>>): SettingsIssue[] {
  return Object.entries(values).flatMap(([field, value]): SettingsIssue[] => {
    if (typeof value !== 'string') return []
    // the rule of the offer's texts (prop_no, proj_*): a line break or tab in an address or a name
    // splits the official file's row or the export's cell
    if (hasUnstorableCharacter(value))
      return [
        {
          field,
          code: 'invalid_text',
          message: `${field} holds control or invisible characters (a line break, a tab…), which the official files cannot carry.`,
        },
      ]
    if (looksLikeFormula(value.trim()))
      return [
        {
          field,
          code: 'formula_text',
          message: `${field} starts like a spreadsheet formula (=, +, - or @), which a program opening the official file would run.`,
        },
      ]
    return []
  })
}

/** Rules of the official guidance ("Wskazówki…"): identifiers without spaces or dashes. */
export function validateDeveloper(developer: Partial<DeveloperRow>): SettingsIssue[] {
  const issues: SettingsIssue[] = unstorableTextIssues(developer)
  const add = (field: string, code: string, message: string) => issues.push({ field, code, message })
  if (!developer.name?.trim()) add('name', 'required', 'The developer name (column 1) is required.')
  if (developer.nip && !(/^\d{10}$/.test(developer.nip) && checksumOk(developer.nip, NIP_WEIGHTS, false)))
    add('nip', 'invalid_nip', 'NIP must be 10 digits with a valid check digit, without dashes.')
  if (
    developer.regon &&
    !(
      (/^\d{9}$/.test(developer.regon) && checksumOk(developer.regon, REGON9_WEIGHTS, true)) ||
      (/^\d{14}$/.test(developer.regon) && checksumOk(developer.regon, REGON14_WEIGHTS, true))
    )
  ) {
    add('regon', 'invalid_regon', 'REGON must be 9 or 14 digits with a valid check digit.')
  }
  if (developer.krs && !/^\d{10}$/.test(developer.krs))
    add('krs', 'invalid_krs', 'KRS must be 10 digits (keep the leading zeros).')
  if (developer.phone && !/^(\+\d{2})?\d{9}$/.test(developer.phone))
    add('phone', 'invalid_phone', 'The phone number must be 9 digits (optionally +48 first), without spaces or dashes.')
  for (const field of ['seat_postal_code', 'sales_postal_code'] as const) {
    const value = developer[field]
    if (value && !/^\d{2}-\d{3}$/.test(value)) add(field, 'invalid_postal_code', `${field} must look like 00-000.`)
  }
  for (const field of ['seat_voivodeship', 'sales_voivodeship'] as const) {
    const value = developer[field]
    if (value && !(VOIVODESHIPS as readonly string[]).includes(value.toLowerCase()))
      add(field, 'invalid_voivodeship', `${field} must be one of the 16 voivodeships (${VOIVODESHIPS.join(', ')}).`)
  }
  if (developer.email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(developer.email))
    add('email', 'invalid_email', 'The e-mail address is not valid.')
  if (developer.website && !/^https?:\/\/\S+$/.test(developer.website))
    add('website', 'invalid_url', 'The website must be an http(s) address.')
  if (developer.name && [...developer.name.trim()].length > DEVELOPER_NAME_MAX)
    issues.push({
      field: 'name',
      code: 'name_too_long',
      max: DEVELOPER_NAME_MAX,
      message: `The developer name may have at most ${DEVELOPER_NAME_MAX} characters: every title of the harvester XML holds it within the 300 characters the XSD allows.`,
    })
  issues.push(...datasetFieldIssues(developer))
  return issues
}

/**
 * The entity's dataset fields: its `<url>` (the https page of the company's website with the
 * prices, at most 1000 characters) and the notes ending the dataset descriptions (plain text
 * that fits the 1000 characters of a description together with the name; the English one only
 * in English: never the Polish note again).
 */
export function datasetFieldIssues(developer: Partial<DeveloperRow>): SettingsIssue[] {
  const issues: SettingsIssue[] = []
  const url = developer.dataset_url
  if (url) {
    let parsed: URL | undefined
    try {
      parsed = new URL(url)
    } catch {
      parsed = undefined
    }
    if (!parsed || !url.startsWith('https://') || /\s/.test(url) || url.length > 1000 || !parsed.hostname.includes('.'))
      issues.push({
        field: 'dataset_url',
        code: 'https_required',
        message:
          'dataset_url must be the https:// address of the page of your website with the prices (at most 1000 characters).',
      })
  }
  const max = descriptionNoteMax(developer.name?.trim() ?? '')
  for (const field of ['description_note_pl', 'description_note_en'] as const) {
    const note = developer[field]
    if (!note) continue
    if ([...note].length > max || hasControlCharacter(note) || /[<>]/.test(note))
      issues.push({
        field,
        code: 'invalid_text',
        max,
        message: `${field} must be plain text of at most ${max} characters (the dataset description holds at most 1000 with the developer name), without control characters or < >.`,
      })
  }
  if (
    developer.description_note_en &&
    developer.description_note_pl &&
    developer.description_note_en.trim() === developer.description_note_pl.trim()
  )
    issues.push({
      field: 'description_note_en',
      code: 'note_not_english',
      message: 'description_note_en repeats the Polish note: give it in English, or leave it empty.',
    })
  return issues
}

export async function resolvePublishingDeveloper(
  ctx: Pick<HostContext, 'db'>,
  settings: PublicationSettings,
): Promise<DeveloperRow | undefined> {
  let query = ctx.db.selectFrom('developers').selectAll()
  query = settings.developer_id !== null ? query.where('id', '=', settings.developer_id) : query.orderBy('id').limit(1)
  return query.executeTakeFirst()
}
