/*
 * Publication preflight (docs/decisions/preflight.md): everything a publication for `date` would check, without
 * publishing — the day's file and XML are built and validated by the same `preparePublication` the
 * pipeline uses — plus two outside views: whether the public URLs serve what was last published
 * (delivery) and, on request, whether dane.gov.pl lists a resource for the date (portal).
 * Only the artifact decides `valid`; delivery and portal findings are reported, never a refusal,
 * and network failures become statuses and issues, never errors.
 */
import type { HostContext } from '../host/context.js'
import { PluginError } from '../host/errors.js'
import { getLicenseState } from '../licensing/license.js'
import { isCalendarDate, todayInWarsaw } from '../host/warsaw-day.js'
import { checkDelivery, type DeliveryStatus } from './delivery/delivery-check.js'
import { CURRENT_LEGAL_CONTRACT } from '../offers/legal-contract.js'
import { type PortalStatus, type PortalSummary, verifyPortal } from './delivery/portal-check.js'
import { issue, type PublicationIssue } from './publication-issue.js'
import { isTrialAddress } from './publishing/public-address.js'
import { preparePublication } from './publishing/prepare-publication.js'
import { datasetBase, datasetOf, datasetStore, primaryDataset } from './daily-file/datasets.js'
import { getPublicationSettings } from './settings/publication-settings.js'
import { publicationStore, XML_NAME } from './publication-store.js'

export interface PreflightArgs {
  date?: string | undefined
  verifyPortal?: boolean | undefined
  /** The developer entity whose dataset is checked; the publishing developer's by default. */
  developerId?: number | null | undefined
}

export interface PreflightReport {
  date: string
  /** No blocking issue: a publication for `date` would pass validation now. */
  valid: boolean
  /** valid, an active licence with `api_webhooks`, an https public_base_url and the dataset's <url>. */
  production_allowed: boolean
  contract: { id: string; valid_until: string }
  record_count: number
  /** `continuity` when the licence is not active (the daily schedule still publishes). */
  mode: 'production' | 'continuity'
  artifact_status: 'ready' | 'invalid'
  delivery_status: DeliveryStatus
  delivery_checked_at: string | null
  delivery_issues: PublicationIssue[]
  portal_status: PortalStatus
  /** Blocking: each a stable code with a corrective message in Polish and English. */
  issues: PublicationIssue[]
  /** Not blocking (licence, portal, port, resource count). */
  warnings: PublicationIssue[]
  portal?: PortalSummary
}

function portalWarning(status: PortalStatus, date: string, summary: PortalSummary | undefined): PublicationIssue[] {
  switch (status) {
    case 'dataset_not_found':
      return [
        issue(
          'portal_dataset_not_found',
          'Portal dane.gov.pl nie pokazuje zbioru z adresem źródła XML ani z tytułem tego dewelopera. Zgłoś źródło danych na kontakt@dane.gov.pl albo poczekaj na pierwszy import.',
          'dane.gov.pl shows no dataset with this XML source URL or this developer title. Register the data source with kontakt@dane.gov.pl or wait for the first import.',
          { query: summary?.query },
        ),
      ]
    case 'missing_resource':
      return [
        issue(
          'portal_missing_resource',
          `Zbiór na portalu nie ma (jeszcze) zasobu z dnia ${date}. Portal importuje raz dziennie, a publiczne API bywa opóźnione o kilka godzin; sprawdź ponownie później.`,
          `The portal dataset has no resource for ${date} (yet). The portal imports once a day and its public API can lag by hours; check again later.`,
          { dataset_id: summary?.dataset?.id, latest_data_date: summary?.latest_data_date },
        ),
      ]
    case 'unreachable':
      return [
        issue(
          'portal_unreachable',
          `API dane.gov.pl nie odpowiada${summary?.error_pl ? `: ${summary.error_pl}` : '.'} Spróbuj ponownie później.`,
          `The dane.gov.pl API does not answer${summary?.error_en ? `: ${summary.error_en}` : '.'} Try again later.`,
          { error: summary?.error, ...(summary?.error_code ? { error_code: summary.error_code } : {}) },
        ),
      ]
    default:
      return []
  }
}

export async function runPreflight(ctx: HostContext, args: PreflightArgs = {}): Promise<PreflightReport> {
  const date = args.date ?? todayInWarsaw(ctx)
  if (!isCalendarDate(date))
    throw new PluginError('invalid_date', 400, { message: 'date must be a real calendar date YYYY-MM-DD' })

  const dataset = args.developerId ? await datasetOf(ctx, args.developerId) : await primaryDataset(ctx)
  const prepared = await preparePublication(ctx, date, undefined, args.developerId ?? null)
  const settings = await getPublicationSettings(ctx)
  const license = await getLicenseState(ctx)
  const developer = dataset?.developer
  const base = settings.public_base_url && dataset ? datasetBase(settings.public_base_url, dataset) : null
  const manifest = await (dataset ? datasetStore(ctx, dataset) : publicationStore(ctx)).currentManifest()

  const [delivery, portal] = await Promise.all([
    checkDelivery({
      baseUrl: base,
      manifest,
      now: () => ctx.now(),
      trial: base !== null && isTrialAddress(base) && ctx.config.env !== 'production',
    }),
    args.verifyPortal
      ? verifyPortal({
          apiUrl: ctx.config.portalApiUrl,
          date,
          developerName: developer?.name ?? null,
          xmlUrl: base === null ? null : `${base}/${XML_NAME}`,
          now: () => ctx.now(),
        })
      : Promise.resolve(undefined),
  ])

  const warnings: PublicationIssue[] = [...prepared.warnings]
  const active = license.status === 'active'
  const apiWebhooks = active && license.entitlements.includes('api_webhooks')
  if (!active)
    warnings.push(
      issue(
        'license_not_active',
        'Licencja nie jest aktywna (tryb ciągłości): codzienna publikacja z harmonogramu działa, ale publikacja z panelu i przez API wymaga aktywnej licencji PRO z uprawnieniem „publikacja z panelu, status, katalog dla strony WWW i webhook CRM”.',
        'The licence is not active (continuity mode): the scheduled daily publication runs, but publishing through the API needs an active PRO plan with api_webhooks.',
        { license_status: license.status },
      ),
    )
  else if (!apiWebhooks)
    warnings.push(
      issue(
        'api_webhooks_missing',
        'Licencja nie obejmuje uprawnienia „publikacja z panelu, status, katalog dla strony WWW i webhook CRM”: publikacja z panelu i przez API nie będzie możliwa.',
        'The licence does not include api_webhooks: publishing through the API is not possible.',
      ),
    )
  if (base) {
    const url = new URL(base)
    if (url.port !== '' && url.port !== '443' && url.port !== '80')
      warnings.push(
        issue(
          'public_url_nonstandard_port',
          `Harvester dane.gov.pl (mechanizm pobierania danych portalu) pobiera pliki tylko z portów 80/443, a publiczny adres plików (Ustawienia, zakładka „Publikacja”) używa portu ${url.port}.`,
          `The dane.gov.pl harvester only fetches from ports 80/443, but public_base_url uses port ${url.port}.`,
          { port: Number(url.port) },
        ),
      )
  }
  const portalStatus: PortalStatus = portal?.status ?? 'not_checked'
  warnings.push(...portalWarning(portalStatus, date, portal?.summary))

  const valid = prepared.issues.length === 0
  return {
    date,
    valid,
    // the dataset <url> is required before production: in a trial its absence is only a warning
    production_allowed:
      valid &&
      apiWebhooks &&
      base !== null &&
      base.startsWith('https://') &&
      !prepared.warnings.some((w) => w.code === 'dataset_url_missing'),
    contract: { id: CURRENT_LEGAL_CONTRACT.id, valid_until: CURRENT_LEGAL_CONTRACT.validUntil },
    record_count: prepared.csv.rows,
    mode: active ? 'production' : 'continuity',
    artifact_status: valid ? 'ready' : 'invalid',
    delivery_status: delivery.status,
    delivery_checked_at: delivery.checked_at,
    delivery_issues: delivery.issues,
    portal_status: portalStatus,
    issues: prepared.issues,
    warnings,
    ...(portal ? { portal: portal.summary } : {}),
  }
}

/** The API's answer: 422 `preflight_failed` with the whole report when there are blocking issues. */
export async function preflightOrRefuse(ctx: HostContext, args: PreflightArgs): Promise<PreflightReport> {
  const report = await runPreflight(ctx, args)
  if (!report.valid) throw new PluginError('preflight_failed', 422, { ...report })
  return report
}
