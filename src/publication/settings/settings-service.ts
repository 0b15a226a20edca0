/*
 * Editing the data the official file is made of, shared by the API and the CLI: the publication
 * settings (stored as an option), the developer entities (columns 1–28) and each investment's
 * location (29–35) with its prospectus URL (58). Everything is validated before anything is
 * written; a refusal is a 422 whose `issues` carry a stable code, the field and a corrective
 * message in Polish and English. Every successful change is audited.
 */
import type { Actor } from '../../host/audit/audit.js'
import { recordAudit } from '../../host/audit/audit.js'
import type { HostContext } from '../../host/context.js'
import type { DeveloperRow } from '../../host/db/schema.js'
import { notFound, PluginError } from '../../host/errors.js'
import { VOIVODESHIPS } from '../../offers/canonical-fields.js'
import { getPublicDatasetId } from '../daily-file/dataset.js'
import { datasetKey, datasetStore, primaryDataset } from '../daily-file/datasets.js'
import { MD5_NAME, publicationStore, XML_NAME } from '../publication-store.js'
import { normalizeTyped } from './typed-identifiers.js'
import {
  daysWithoutRun,
  nextScheduledRuns,
  type SkippedDays,
  type TimeOfDaySchedule,
  timeOfDayOf,
} from '../schedule-pattern.js'
import {
  getPublicationSettings,
  type PublicationSettings,
  type SettingsIssue,
  updatePublicationSettings,
  unstorableTextIssues,
  validateDeveloper,
} from './publication-settings.js'
import {
  type DeveloperUpdate,
  findDeveloper,
  findInvestmentLocation,
  insertDeveloper,
  type InvestmentLocationRow,
  type InvestmentLocationUpdate,
  selectDevelopers,
  updateDeveloperRow,
  updateInvestmentLocationRow,
} from './settings-repository.js'

/** The developer columns 1–28 of the official file, in order. */
export const DEVELOPER_FIELDS = [
  'name',
  'legal_form',
  'krs',
  'ceidg',
  'nip',
  'regon',
  'phone',
  'email',
  'fax',
  'website',
  'seat_voivodeship',
  'seat_powiat',
  'seat_gmina',
  'seat_city',
  'seat_street',
  'seat_building_no',
  'seat_local_no',
  'seat_postal_code',
  'sales_voivodeship',
  'sales_powiat',
  'sales_gmina',
  'sales_city',
  'sales_street',
  'sales_building_no',
  'sales_local_no',
  'sales_postal_code',
  'sales_additional_locations',
  'contact_method',
] as const

/**
 * The entity's own dataset on dane.gov.pl: its `<url>` (the https page of that company's website
 * with the prices) and the notes ending its descriptions (Polish; English only when given in English).
 */
export const DATASET_FIELDS = ['dataset_url', 'description_note_pl', 'description_note_en'] as const

/** Everything an operator edits on a developer entity. */
export const EDITABLE_DEVELOPER_FIELDS = [...DEVELOPER_FIELDS, ...DATASET_FIELDS] as const
export type DeveloperField = (typeof EDITABLE_DEVELOPER_FIELDS)[number]
export type DeveloperInput = Partial<Record<DeveloperField, string | null>>

/** The investment location columns 29–35 and the prospectus URL (58). */
export const LOCATION_FIELDS = [
  'voivodeship',
  'powiat',
  'gmina',
  'city',
  'street',
  'building_no',
  'postal_code',
  'prospectus_url',
] as const
export type LocationField = (typeof LOCATION_FIELDS)[number]
export type LocationInput = Partial<Record<LocationField, string | null>>

/** A refusal reason as the API and the CLI show it. */
export interface SettingsIssueView {
  field: string
  code: string
  /** Polish, or English when the request prefers it (Accept-Language: en). */
  message: string
  message_pl: string
  message_en: string
}

const FIELD_LABELS_PL: Record<string, string> = {
  name: 'nazwa dewelopera (kolumna 1)',
  krs: 'numer KRS (kolumna 3)',
  nip: 'NIP (kolumna 5)',
  regon: 'REGON (kolumna 6)',
  phone: 'numer telefonu (kolumna 7)',
  email: 'adres e-mail (kolumna 8)',
  fax: 'numer faksu (kolumna 9)',
  website: 'strona internetowa (kolumna 10)',
  seat_voivodeship: 'województwo siedziby (kolumna 11)',
  seat_postal_code: 'kod pocztowy siedziby (kolumna 18)',
  sales_voivodeship: 'województwo biura sprzedaży (kolumna 19)',
  sales_postal_code: 'kod pocztowy biura sprzedaży (kolumna 26)',
  voivodeship: 'województwo inwestycji (kolumna 29)',
  postal_code: 'kod pocztowy inwestycji (kolumna 35)',
  prospectus_url: 'adres prospektu informacyjnego (kolumna 58)',
  public_base_url: 'publiczny adres plików',
  developer_id: 'deweloper publikujący',
  published_statuses: 'publikowane statusy ofert',
  schedule: 'harmonogram publikacji',
  dataset_url: 'adres strony z cenami (<url> zbioru)',
  description_note_pl: 'uwaga na końcu polskiego opisu zbioru',
  description_note_en: 'uwaga na końcu angielskiego opisu zbioru',
}

function polishMessage(issue: SettingsIssue): string {
  const label = FIELD_LABELS_PL[issue.field] ?? issue.field
  switch (issue.code) {
    case 'required':
      return `Uzupełnij pole: ${label}.`
    case 'invalid_nip':
      return 'NIP musi mieć 10 cyfr z poprawną cyfrą kontrolną (kreski i spacje można wpisać, są pomijane).'
    case 'invalid_regon':
      return 'REGON musi mieć 9 lub 14 cyfr z poprawną cyfrą kontrolną.'
    case 'invalid_krs':
      return 'Numer KRS musi mieć 10 cyfr (z zerami na początku).'
    case 'invalid_phone':
    case 'invalid_fax':
      return `Popraw ${label}: 9 cyfr, opcjonalnie poprzedzonych +48 (spacje i kreski są pomijane).`
    case 'invalid_postal_code':
      return `Popraw ${label}: kod pocztowy w formacie 00-000.`
    case 'invalid_voivodeship':
      return `Popraw ${label}: podaj jedno z 16 województw, np. mazowieckie.`
    case 'invalid_email':
      return 'Adres e-mail jest niepoprawny.'
    case 'invalid_url':
      return issue.field === 'public_base_url'
        ? 'Publiczny adres plików musi zaczynać się od https:// (albo http:// do próby lokalnej poza produkcją).'
        : `Popraw ${label}: adres musi zaczynać się od http:// lub https://.`
    case 'https_required':
      return issue.field === 'dataset_url'
        ? 'Adres strony z cenami musi zaczynać się od https:// i mieć najwyżej 1000 znaków.'
        : 'Publiczny adres plików musi zaczynać się od https:// (portal dane.gov.pl odrzuca http).'
    case 'invalid_text':
      return issue.field.startsWith('description_note')
        ? `Popraw ${label}: zwykły tekst bez znaków sterujących i bez < >, najwyżej ${String(issue.max ?? 500)} znaków (opis zbioru mieści 1000 znaków razem z nazwą dewelopera).`
        : `Popraw ${label}: usuń znaki sterujące (nowe wiersze, tabulatory i inne niewidoczne znaki, których pliki urzędowe nie mogą zawierać).`
    case 'name_too_long':
      return `Skróć nazwę dewelopera do najwyżej ${String(issue.max ?? '')} znaków: nazwa trafia do tytułu każdego zasobu w pliku XML, a schemat portalu dopuszcza tytuł do 300 znaków (dłuższa nazwa zatrzymałaby każdą publikację).`
    case 'note_not_english':
      return 'Uwaga angielska powtarza polską: wpisz ją po angielsku albo zostaw pole puste (wtedy angielski opis zbioru nie ma uwagi).'
    case 'dataset_url_in_use':
      return 'Zbiór tego dewelopera został już opublikowany z adresem strony z cenami (<url>); portal nie dopuszcza jego usunięcia. Możesz podać inny adres https://, ale nie usunąć go.'
    case 'formula_text':
      return `Popraw ${label}: tekst zaczyna się jak formuła arkusza (=, +, - lub @), którą program otwierający plik urzędowy by wykonał; usuń ten znak z początku.`
    case 'invalid_enum':
      return 'Zaznacz co najmniej jeden status ofert publikowanych w pliku (wolne, zarezerwowane, sprzedane, niedostępne).'
    case 'invalid_cron':
      return 'Podaj godzinę publikacji (np. 00:30) albo poprawny wzorzec cron, np. "30 0 * * *".'
    case 'not_found':
      return `Nie znaleziono: ${label}.`
    default:
      return `Popraw pole: ${label}.`
  }
}

export function bilingualIssue(issue: SettingsIssue): SettingsIssueView {
  return {
    field: issue.field,
    code: issue.code,
    message: polishMessage(issue),
    message_pl: polishMessage(issue),
    message_en: issue.message,
  }
}

function clean(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value
  const trimmed = value.trim()
  return trimmed === '' ? null : trimmed
}

const isVoivodeship = (value: string): boolean => (VOIVODESHIPS as readonly string[]).includes(value.toLowerCase())

// ---------------------------------------------------------------------------------------------
// publication settings

export interface PublicationSettingsView extends PublicationSettings {
  /** The dataset's extIdent on dane.gov.pl (read-only: never changes). */
  public_dataset_id: string
  /** Where the harvester finds the XML and its .md5; null until public_base_url is set. */
  xml_url: string | null
  md5_url: string | null
  /** The schedule's next three runs (ISO), from the stored pattern: every instance follows it within seconds. */
  next_runs: string[]
  /** The schedule as a time of day and days of the week, or null for a pattern only cron can say. */
  schedule_time: TimeOfDaySchedule | null
  /** What the settings allow but the law or the portal may not: saved all the same. */
  warnings: SettingsWarningView[]
}

/** A setting kept as given, with a word on it (`schedule_skips_days`: a schedule with days off). */
export interface SettingsWarningView extends SettingsIssueView {
  details?: Record<string, unknown>
}

const WEEKDAYS_PL = ['niedziela', 'poniedziałek', 'wtorek', 'środa', 'czwartek', 'piątek', 'sobota']
const WEEKDAYS_EN = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
/** Monday first, as a Polish calendar. */
const WEEK_ORDER = [1, 2, 3, 4, 5, 6, 0]

/**
 * Art. 19b(1) has the data updated on dane.gov.pl every day; a schedule may still skip days (a
 * lawyer's call, or a day the operator publishes by hand), so it is said, not refused.
 */
export function scheduleSkipsDaysWarning(skipped: SkippedDays): SettingsWarningView {
  const weekdays = WEEK_ORDER.filter((d) => skipped.weekdays.includes(d))
  const others = skipped.dates.filter((date) => !skipped.weekdays.includes(new Date(`${date}T12:00:00Z`).getUTCDay()))
  const examples = others.slice(0, 3)
  const pl = [
    weekdays.length > 0 ? `dni tygodnia: ${weekdays.map((d) => WEEKDAYS_PL[d]).join(', ')}` : '',
    examples.length > 0 ? `${weekdays.length > 0 ? 'oraz ' : ''}niektóre dni miesiąca, np. ${examples.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ')
  const en = [
    weekdays.length > 0 ? `the days of the week ${weekdays.map((d) => WEEKDAYS_EN[d]).join(', ')}` : '',
    examples.length > 0
      ? `${weekdays.length > 0 ? 'and ' : ''}some days of the month, e.g. ${examples.join(', ')}`
      : '',
  ]
    .filter(Boolean)
    .join(' ')
  const messagePl = `Harmonogram pomija ${pl}. Ustawa (art. 19b ust. 1) wymaga publikacji danych w serwisie dane.gov.pl codziennie: w pominięty dzień plik nie powstanie, a pulpit i alert zgłoszą brakujący dzień. Zaznacz wszystkie dni tygodnia, chyba że prawnik zdecydował inaczej.`
  return {
    field: 'schedule',
    code: 'schedule_skips_days',
    message: messagePl,
    message_pl: messagePl,
    message_en: `The schedule skips ${en}. The act (art. 19b(1)) asks for the data to be published on dane.gov.pl every day: no file is made on a skipped day, and the dashboard and an alert report the missed day. Tick every day of the week unless a lawyer decided otherwise.`,
    details: { weekdays, dates: skipped.dates.slice(0, 10) },
  }
}

export async function publicationSettingsView(ctx: HostContext): Promise<PublicationSettingsView> {
  const settings = await getPublicationSettings(ctx)
  const base = settings.public_base_url?.replace(/\/+$/, '') ?? null
  const skipped = daysWithoutRun(settings.schedule, ctx.now())
  return {
    ...settings,
    public_dataset_id: await getPublicDatasetId(ctx),
    xml_url: base === null ? null : `${base}/${XML_NAME}`,
    md5_url: base === null ? null : `${base}/${MD5_NAME}`,
    next_runs: nextScheduledRuns(settings.schedule, ctx.now(), 3),
    schedule_time: timeOfDayOf(settings.schedule),
    warnings: skipped ? [scheduleSkipsDaysWarning(skipped)] : [],
  }
}

export async function savePublicationSettings(
  ctx: HostContext,
  patch: Partial<PublicationSettings>,
  actor: Actor,
  options: { confirmUrlChange?: boolean } = {},
): Promise<PublicationSettingsView> {
  const cleaned: Partial<PublicationSettings> = { ...patch }
  if (patch.public_base_url !== undefined) cleaned.public_base_url = clean(patch.public_base_url) ?? null
  await requireUrlChangeConfirmation(ctx, cleaned.public_base_url, options.confirmUrlChange === true)
  if (patch.published_statuses !== undefined)
    cleaned.published_statuses = [...new Set(patch.published_statuses.map((s) => s.trim()).filter(Boolean))]
  if (patch.schedule !== undefined) cleaned.schedule = patch.schedule.trim()
  try {
    await updatePublicationSettings(ctx, cleaned, actor)
  } catch (error) {
    if (error instanceof PluginError && error.error === 'invalid_settings') {
      const issues = (error.extra.issues as SettingsIssue[] | undefined) ?? []
      throw new PluginError('invalid_settings', 422, {
        message: 'The publication settings were not saved.',
        issues: issues.map(bilingualIssue),
      })
    }
    throw error
  }
  return publicationSettingsView(ctx)
}

/**
 * A published resource keeps the URL it was published with (instruction 1.0.6), so a new public
 * address applies to new files only; the operator confirms knowing that the old address must keep
 * serving the past files.
 */
async function requireUrlChangeConfirmation(
  ctx: HostContext,
  next: string | null | undefined,
  confirmed: boolean,
): Promise<void> {
  if (next === undefined || confirmed) return
  const current = (await getPublicationSettings(ctx)).public_base_url
  const normalize = (url: string | null) => url?.replace(/\/+$/, '') ?? null
  if (normalize(current) === normalize(next) || current === null) return
  const published = (await publicationStore(ctx).currentManifest())?.days.length ?? 0
  if (published === 0) return
  const pl = `Zmiana publicznego adresu dotyczy tylko nowych plików: ${published} już opublikowanych zasobów zachowuje swoje adresy pod ${current}, który musi dalej je udostępniać (portal usuwa zasoby, których nie może pobrać). Potwierdź zmianę (confirm_url_change: true).`
  const en = `A new public address applies to new files only: the ${published} resources already published keep their URLs under ${current}, which must keep serving them (the portal deletes resources it cannot fetch). Confirm the change (confirm_url_change: true).`
  throw new PluginError('confirmation_required', 409, {
    message: en,
    issues: [{ field: 'public_base_url', code: 'confirmation_required', message: pl, message_pl: pl, message_en: en }],
    published_resources: published,
    current_public_base_url: current,
  })
}

// ---------------------------------------------------------------------------------------------
// developers (columns 1–28)

export type DeveloperView = DeveloperRow

function developerIssues(candidate: Partial<DeveloperRow>): SettingsIssue[] {
  const issues = validateDeveloper(candidate)
  if (candidate.fax && !/^(\+\d{2})?\d{9}$/.test(candidate.fax))
    issues.push({
      field: 'fax',
      code: 'invalid_fax',
      message: 'The fax number must be 9 digits (optionally +48 first), without spaces or dashes.',
    })
  return issues
}

function cleanDeveloperInput(input: DeveloperInput): DeveloperUpdate {
  const out: DeveloperUpdate = {}
  for (const field of EDITABLE_DEVELOPER_FIELDS) {
    if (!(field in input)) continue
    let value = clean(input[field])
    if (value === undefined) continue
    if (value !== null) value = normalizeTyped(field, value)
    if (value !== null && (field === 'seat_voivodeship' || field === 'sales_voivodeship') && isVoivodeship(value))
      value = value.toLowerCase()
    if (field === 'name') {
      if (value !== null) out.name = value
      else out.name = ''
    } else out[field] = value
  }
  return out
}

function refuseDeveloper(issues: SettingsIssue[]): never {
  throw new PluginError('invalid_developer', 422, {
    message: 'The developer data was not saved.',
    issues: issues.map(bilingualIssue),
  })
}

export async function getDeveloper(ctx: HostContext, id: number): Promise<DeveloperView> {
  const row = await findDeveloper(ctx.db, id)
  if (!row) throw notFound('developer_not_found', `There is no developer ${id}.`)
  return row
}

export async function listDevelopers(ctx: HostContext, ids?: readonly number[]): Promise<DeveloperView[]> {
  return selectDevelopers(ctx.db, ids)
}

export async function createDeveloper(ctx: HostContext, input: DeveloperInput, actor: Actor): Promise<DeveloperView> {
  const values = cleanDeveloperInput(input)
  const issues = developerIssues(values)
  if (issues.length > 0) refuseDeveloper(issues)
  const now = ctx.now().toISOString()
  const id = await ctx.db.transaction().execute(async (trx) => {
    const created = await insertDeveloper(trx, {
      ...values,
      name: values.name ?? '',
      created_at: now,
      modified_at: now,
    })
    await recordAudit(
      ctx,
      {
        actor,
        action: 'developer.create',
        objectType: 'developer',
        objectId: created,
        outcome: 'success',
        details: { fields: Object.keys(values) },
      },
      trx,
    )
    return created
  })
  return getDeveloper(ctx, id)
}

/** Changes the given fields only (null clears one); the result as a whole must be valid. */
export async function updateDeveloper(
  ctx: HostContext,
  id: number,
  input: DeveloperInput,
  actor: Actor,
): Promise<DeveloperView> {
  const existing = await getDeveloper(ctx, id)
  const values = cleanDeveloperInput(input)
  const issues = developerIssues({ ...existing, ...values })
  if (values.dataset_url === null && existing.dataset_url !== null && (await publishedForThePortal(ctx, id)))
    issues.push({
      field: 'dataset_url',
      code: 'dataset_url_in_use',
      message:
        'This entity’s dataset was published with its <url>; it cannot be removed from a published dataset. Give another https:// address instead.',
    })
  if (issues.length > 0) refuseDeveloper(issues)
  const changed = Object.keys(values).filter(
    (field) => existing[field as DeveloperField] !== values[field as DeveloperField],
  )
  await ctx.db.transaction().execute(async (trx) => {
    if (changed.length > 0) await updateDeveloperRow(trx, id, { ...values, modified_at: ctx.now().toISOString() })
    await recordAudit(
      ctx,
      {
        actor,
        action: 'developer.update',
        objectType: 'developer',
        objectId: id,
        outcome: 'success',
        details: { fields: changed },
      },
      trx,
    )
  })
  return getDeveloper(ctx, id)
}

/** Whether the entity's dataset lists a resource meant for the portal (not a local http trial). */
async function publishedForThePortal(ctx: HostContext, developerId: number): Promise<boolean> {
  // read only: asking must not make the extIdent of a dataset never listed
  const primary = await primaryDataset(ctx)
  const dataset = primary?.developer.id === developerId ? primary : { primary: false, key: datasetKey(developerId) }
  const manifest = await datasetStore(ctx, dataset).currentManifest()
  return (manifest?.days ?? []).some((day) => !day.url?.startsWith('http://'))
}

// ---------------------------------------------------------------------------------------------
// investment location (columns 29–35) and prospectus URL (58)

export interface InvestmentLocationView {
  id: number
  title: string
  developer_id: number | null
  location: {
    voivodeship: string | null
    powiat: string | null
    gmina: string | null
    city: string | null
    street: string | null
    building_no: string | null
    postal_code: string | null
  }
  prospectus_url: string | null
  modified_at: string
}

function locationView(row: InvestmentLocationRow): InvestmentLocationView {
  return {
    id: row.id,
    title: row.title,
    developer_id: row.developer_id,
    location: {
      voivodeship: row.loc_voivodeship,
      powiat: row.loc_powiat,
      gmina: row.loc_gmina,
      city: row.loc_city,
      street: row.loc_street,
      building_no: row.loc_building_no,
      postal_code: row.loc_postal_code,
    },
    prospectus_url: row.prospectus_url,
    modified_at: row.modified_at,
  }
}

const LOCATION_COLUMNS: Record<LocationField, keyof InvestmentLocationUpdate> = {
  voivodeship: 'loc_voivodeship',
  powiat: 'loc_powiat',
  gmina: 'loc_gmina',
  city: 'loc_city',
  street: 'loc_street',
  building_no: 'loc_building_no',
  postal_code: 'loc_postal_code',
  prospectus_url: 'prospectus_url',
}

export function validateLocation(input: LocationInput): SettingsIssue[] {
  const issues: SettingsIssue[] = unstorableTextIssues(input)
  if (input.postal_code && !/^\d{2}-\d{3}$/.test(input.postal_code))
    issues.push({ field: 'postal_code', code: 'invalid_postal_code', message: 'postal_code must look like 00-000.' })
  if (input.voivodeship && !isVoivodeship(input.voivodeship))
    issues.push({
      field: 'voivodeship',
      code: 'invalid_voivodeship',
      message: `voivodeship must be one of the 16 voivodeships (${VOIVODESHIPS.join(', ')}).`,
    })
  if (input.prospectus_url && !/^https?:\/\/[^\s/]+\S*$/.test(input.prospectus_url))
    issues.push({ field: 'prospectus_url', code: 'invalid_url', message: 'prospectus_url must be an http(s) address.' })
  return issues
}

export async function getInvestmentLocation(ctx: HostContext, id: number): Promise<InvestmentLocationView> {
  const row = await findInvestmentLocation(ctx.db, id)
  if (!row) throw notFound('investment_not_found', `There is no investment ${id}.`)
  return locationView(row)
}

/** Changes the given fields only (null clears one). */
export async function updateInvestmentLocation(
  ctx: HostContext,
  id: number,
  input: LocationInput,
  actor: Actor,
): Promise<InvestmentLocationView> {
  const existing = await findInvestmentLocation(ctx.db, id)
  if (!existing) throw notFound('investment_not_found', `There is no investment ${id}.`)
  const cleaned: LocationInput = {}
  for (const field of LOCATION_FIELDS) {
    const value = clean(input[field])
    if (value !== undefined) cleaned[field] = value === null ? null : normalizeTyped(field, value)
  }
  if (cleaned.voivodeship && isVoivodeship(cleaned.voivodeship)) cleaned.voivodeship = cleaned.voivodeship.toLowerCase()
  const issues = validateLocation(cleaned)
  if (issues.length > 0)
    throw new PluginError('invalid_location', 422, {
      message: 'The investment location was not saved.',
      issues: issues.map(bilingualIssue),
    })
  const update: InvestmentLocationUpdate = { modified_at: ctx.now().toISOString() }
  const changed: string[] = []
  for (const field of LOCATION_FIELDS) {
    const value = cleaned[field]
    if (value === undefined) continue
    const column = LOCATION_COLUMNS[field]
    if (existing[column] !== value) changed.push(field)
    ;(update as Record<string, string | null>)[column] = value
  }
  await ctx.db.transaction().execute(async (trx) => {
    if (changed.length > 0) await updateInvestmentLocationRow(trx, id, update)
    await recordAudit(
      ctx,
      {
        actor,
        action: 'investment.location',
        objectType: 'investment',
        objectId: id,
        outcome: 'success',
        details: { fields: changed },
      },
      trx,
    )
  })
  return getInvestmentLocation(ctx, id)
}
