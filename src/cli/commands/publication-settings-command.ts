/*
 * `dg publication settings show|set`, `dg developer show|set`, `dg investment location` and
 * `dg publication preflight`: the same service functions as the API, so the same validation,
 * the same refusals (422 codes, shown with every issue) and the same audit entries.
 */
import fs from 'node:fs/promises'

import { HostError, PluginError } from '../../host/errors.js'
import { runPreflight } from '../../publication/preflight.js'
import type { PublicationSettings } from '../../publication/settings/publication-settings.js'
import {
  createDeveloper,
  type DeveloperInput,
  type DeveloperView,
  EDITABLE_DEVELOPER_FIELDS,
  getDeveloper,
  getInvestmentLocation,
  type InvestmentLocationView,
  LOCATION_FIELDS,
  type LocationInput,
  publicationSettingsView,
  type PublicationSettingsView,
  savePublicationSettings,
  type SettingsIssueView,
  updateDeveloper,
  updateInvestmentLocation,
} from '../../publication/settings/settings-service.js'
import { type CliEnvironment, withHostContext } from '../cli-context.js'
import type { CommandResult, OptionSpec } from '../command.js'

type Values = Record<string, string | boolean | undefined>

const actor = { type: 'cli' } as const

const kebab = (field: string): string => field.replace(/_/g, '-')

/** --nip, --seat-postal-code, … one option per official developer column and dataset field. */
export const DEVELOPER_OPTIONS: OptionSpec = Object.fromEntries(
  EDITABLE_DEVELOPER_FIELDS.map((field) => [
    kebab(field),
    { type: 'string', description: `${field} (an empty value clears it)` },
  ]),
)

export const LOCATION_OPTIONS: OptionSpec = Object.fromEntries(
  LOCATION_FIELDS.map((field) => [
    kebab(field),
    { type: 'string', description: `${field} (an empty value clears it)` },
  ]),
)

/** A refusal keeps its code; the message lists every issue, since the CLI shows only a message. */
async function showingIssues<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body()
  } catch (error) {
    if (error instanceof PluginError && Array.isArray(error.extra.issues)) {
      const issues = error.extra.issues as SettingsIssueView[]
      const lead = typeof error.extra.message === 'string' ? error.extra.message : error.error
      throw new PluginError(error.error, error.status, {
        ...error.extra,
        message: [lead, ...issues.map((i) => `  ${i.field}: ${i.code}: ${i.message_en} / ${i.message_pl}`)].join('\n'),
      })
    }
    throw error
  }
}

function parseId(raw: string | boolean | undefined, option: string): number {
  if (typeof raw !== 'string' || !/^[1-9]\d*$/.test(raw))
    throw new HostError('invalid_id', 400, `--${option} must be a positive whole number.`)
  return Number(raw)
}

function describeSettings(view: PublicationSettingsView): string {
  return [
    `public_base_url:    ${view.public_base_url ?? '(not set)'}`,
    `developer_id:       ${view.developer_id ?? '(the first developer)'}`,
    `published_statuses: ${view.published_statuses.join(', ')}`,
    `schedule:           ${view.schedule} (Europe/Warsaw; next run ${view.next_runs[0] ?? '-'}; running instances follow a change within seconds)`,
    `public_dataset_id:  ${view.public_dataset_id}`,
    `XML / MD5 URLs:     ${view.xml_url ?? '-'}  ${view.md5_url ?? '-'}`,
    ...view.warnings.map((w) => `Warning (${w.code}): ${w.message_en}\n  ${w.message_pl}`),
  ].join('\n')
}

export async function runPublicationSettingsCommand(
  values: Values,
  env: CliEnvironment,
  action: string,
): Promise<CommandResult> {
  if (action !== 'show' && action !== 'set')
    throw new HostError(
      'usage',
      400,
      `Use "dg publication settings show" or "dg publication settings set …", not "${action}".`,
    )
  return withHostContext(env, async (ctx) => {
    if (action === 'show') {
      const view = await publicationSettingsView(ctx)
      return { json: view, text: describeSettings(view) }
    }
    const patch: Partial<PublicationSettings> = {}
    const base = values['public-base-url']
    if (typeof base === 'string') patch.public_base_url = base === '' || base === 'none' ? null : base
    const developer = values['developer-id']
    if (typeof developer === 'string')
      patch.developer_id = developer === '' || developer === 'first' ? null : parseId(developer, 'developer-id')
    const statuses = values.statuses
    if (typeof statuses === 'string') patch.published_statuses = statuses.split(',')
    const schedule = values.schedule
    if (typeof schedule === 'string') patch.schedule = schedule
    if (Object.keys(patch).length === 0)
      throw new HostError(
        'nothing_to_set',
        400,
        'Give at least one of --public-base-url, --developer-id, --statuses, --schedule (the dataset URL and notes are set per developer: dg developer set --id N --dataset-url …).',
      )
    const confirmUrlChange = values['confirm-url-change'] === true
    const view = await showingIssues(() => savePublicationSettings(ctx, patch, actor, { confirmUrlChange }))
    return { json: view, text: `Publication settings saved.\n${describeSettings(view)}` }
  })
}

function describeDeveloper(developer: DeveloperView): string {
  return [
    `Developer ${developer.id}:`,
    ...EDITABLE_DEVELOPER_FIELDS.map((field) => `  ${field.padEnd(27)} ${developer[field] ?? '-'}`),
  ].join('\n')
}

async function readJsonObject(file: string): Promise<Record<string, unknown>> {
  let parsed: unknown
  try {
    parsed = JSON.parse(await fs.readFile(file, 'utf8'))
  } catch (error) {
    throw new HostError('invalid_file', 400, `${file}: ${(error as Error).message}`)
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new HostError('invalid_file', 400, `${file} must hold one JSON object of developer fields.`)
  return parsed as Record<string, unknown>
}

export async function runDeveloperSetCommand(values: Values, env: CliEnvironment): Promise<CommandResult> {
  const input: DeveloperInput = {}
  if (typeof values.file === 'string') {
    const fromFile = await readJsonObject(values.file)
    const unknown = Object.keys(fromFile).filter(
      (key) => !(EDITABLE_DEVELOPER_FIELDS as readonly string[]).includes(key) && key !== 'id',
    )
    if (unknown.length > 0)
      throw new HostError('invalid_file', 400, `Unknown developer field(s) in ${values.file}: ${unknown.join(', ')}`)
    for (const field of EDITABLE_DEVELOPER_FIELDS) {
      const value = fromFile[field]
      if (value === undefined) continue
      if (value !== null && typeof value !== 'string')
        throw new HostError('invalid_file', 400, `${field} must be a string or null in ${values.file}.`)
      input[field] = value
    }
  }
  for (const field of EDITABLE_DEVELOPER_FIELDS) {
    const value = values[kebab(field)]
    if (typeof value === 'string') input[field] = value === '' ? null : value
  }
  const id = values.id === undefined ? undefined : parseId(values.id, 'id')
  return withHostContext(env, async (ctx) => {
    const developer = await showingIssues(() =>
      id === undefined ? createDeveloper(ctx, input, actor) : updateDeveloper(ctx, id, input, actor),
    )
    return {
      json: developer,
      text: `${id === undefined ? 'Created' : 'Saved'} developer ${developer.id}.\n${describeDeveloper(developer)}`,
    }
  })
}

export async function runDeveloperShowCommand(values: Values, env: CliEnvironment): Promise<CommandResult> {
  const id = parseId(values.id, 'id')
  return withHostContext(env, async (ctx) => {
    const developer = await getDeveloper(ctx, id)
    return { json: developer, text: describeDeveloper(developer) }
  })
}

function describeLocation(view: InvestmentLocationView): string {
  const l = view.location
  return [
    `Investment ${view.id} (${view.title}):`,
    `  ${[l.street, l.building_no].filter(Boolean).join(' ') || '-'}, ${l.postal_code ?? '-'} ${l.city ?? '-'}`,
    `  gmina ${l.gmina ?? '-'}, powiat ${l.powiat ?? '-'}, województwo ${l.voivodeship ?? '-'}`,
    `  prospectus: ${view.prospectus_url ?? '-'}`,
  ].join('\n')
}

export async function runInvestmentLocationCommand(values: Values, env: CliEnvironment): Promise<CommandResult> {
  const id = parseId(values.id, 'id')
  const input: LocationInput = {}
  for (const field of LOCATION_FIELDS) {
    const value = values[kebab(field)]
    if (typeof value === 'string') input[field] = value === '' ? null : value
  }
  return withHostContext(env, async (ctx) => {
    const view =
      Object.keys(input).length === 0
        ? await getInvestmentLocation(ctx, id)
        : await showingIssues(() => updateInvestmentLocation(ctx, id, input, actor))
    return { json: view, text: describeLocation(view) }
  })
}

export async function runPreflightCommand(values: Values, env: CliEnvironment): Promise<CommandResult> {
  return withHostContext(env, async (ctx) => {
    const report = await runPreflight(ctx, {
      date: typeof values.date === 'string' ? values.date : undefined,
      verifyPortal: values['verify-portal'] === true,
    })
    const line = (i: { code: string; message_en: string }) => `  - ${i.code}: ${i.message_en}`
    const text = [
      `Preflight for ${report.date}: ${report.valid ? 'valid' : 'NOT valid'}; production allowed: ${report.production_allowed ? 'yes' : 'no'}; mode ${report.mode}`,
      `Records: ${report.record_count}; contract ${report.contract.id} (valid until ${report.contract.valid_until})`,
      `Delivery: ${report.delivery_status}${report.delivery_checked_at ? ` at ${report.delivery_checked_at}` : ''}`,
      ...report.delivery_issues.map(line),
      `Portal: ${report.portal_status}`,
      ...(report.issues.length ? ['Blocking issues:', ...report.issues.map(line)] : []),
      ...(report.warnings.length ? ['Warnings:', ...report.warnings.map(line)] : []),
    ].join('\n')
    if (!report.valid) {
      // the whole report still goes to stdout; the refusal (exit code 1) goes to stderr
      env.io.stdout(values.json === true ? `${JSON.stringify(report, null, 2)}\n` : `${text}\n`)
      throw new PluginError('preflight_failed', 422, {
        message: `Blocking issues: ${report.issues.map((i) => i.code).join(', ')}`,
      })
    }
    return { json: report, text }
  })
}
