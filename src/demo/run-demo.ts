/*
 * `npm run demo` (`dg demo`): prepare the demo, start the service, point the publication at the
 * service itself and publish today's file once, then tell the newcomer where everything is.
 * Outside production the public address is the demo's own http:// address (a local trial the
 * portal will never fetch; the preflight says so); with DG_ENV=production an address is never set
 * for the operator, who must give the real https one.
 */
import type { FastifyInstance } from 'fastify'

import { type AppConfig, baseUrl } from '../config.js'
import { formatAppPassword } from '../host/auth/app-passwords.js'
import type { HostContext } from '../host/context.js'
import { startServer } from '../main.js'
import {
  getLastPublication,
  getLastPublicationFailure,
  type LastPublication,
} from '../publication/daily-file/dataset.js'
import { getPublicationSettings, updatePublicationSettings } from '../publication/settings/publication-settings.js'
import { PUBLIC_PATH } from '../publication/publication-store.js'
import type { DemoCredentials } from './demo-setup.js'

/** A public address the demo set earlier (any port); an operator's own address is never replaced. */
const DEMO_ADDRESS = /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\/dane-gov\/?$/

/** The address a browser or curl on this machine uses for the listening socket. */
export function localAddress(listening: string): string {
  const url = new URL(listening)
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]' || url.hostname === '::') url.hostname = '127.0.0.1'
  return url.origin
}

export async function pointPublicationAtDemo(ctx: HostContext, origin: string): Promise<string | null> {
  const settings = await getPublicationSettings(ctx)
  if (ctx.config.env === 'production') return settings.public_base_url
  if (settings.public_base_url === null || DEMO_ADDRESS.test(settings.public_base_url)) {
    const wanted = `${origin}${PUBLIC_PATH}`
    if (settings.public_base_url !== wanted)
      await updatePublicationSettings(ctx, { public_base_url: wanted }, { type: 'cli' })
    return wanted
  }
  return settings.public_base_url
}

export interface DemoRun {
  app: FastifyInstance
  origin: string
  publication: LastPublication | null
  failure: { code: string; message: string }[]
}

export async function startDemoServer(config: AppConfig): Promise<DemoRun> {
  let origin = ''
  const running = await startServer(config, {
    publishAtStart: true,
    beforeSchedule: async (app, address) => {
      origin = localAddress(address)
      await pointPublicationAtDemo(app.ctx, origin)
    },
  })
  const outcome = await running.publicationAtStart
  const ctx = running.app.ctx
  const last = await getLastPublication(ctx)
  const failure = outcome === 'published' ? null : await getLastPublicationFailure(ctx)
  return {
    app: running.app,
    origin,
    publication: 'date' in last ? (last as LastPublication) : null,
    failure: (failure?.issues ?? []).map((i) => ({
      code: i.code,
      message: (i as { message_pl?: string }).message_pl ?? i.message_en ?? i.code,
    })),
  }
}

/** The credential lines: what this or an earlier run made and still works; an existing one is never shown nor replaced. */
export function describeDemoCredentials(demo: DemoCredentials): string[] {
  const shown = (state: DemoCredentials['admin']['state']) =>
    state === 'created' ? '(new)' : '(made by an earlier run, unchanged)'
  return [
    demo.admin.password !== null
      ? `Administrator login:       ${demo.admin.login} / ${demo.admin.password}   ${shown(demo.admin.state)}`
      : `Administrator login:       ${demo.admin.login} (exists; its password is not one this demo made, or was changed since: left as it is)`,
    demo.reader.application_password !== null
      ? `Catalog reader (API):      ${demo.reader.login} / ${formatAppPassword(demo.reader.application_password)}   ${shown(demo.reader.state)}`
      : `Catalog reader (API):      ${demo.reader.login} (its application password exists and is left as it is; \`dg app-password list --user ${demo.reader.login}\`)`,
  ]
}

/** The reader's password for the curl examples, or a placeholder when the demo does not know it. */
function readerPassword(demo: DemoCredentials): string {
  return demo.reader.application_password ?? '<application password>'
}

export function describeDemo(config: AppConfig, demo: DemoCredentials, run: DemoRun): string {
  const api = `${run.origin}${baseUrl(config)}`
  const [adminLine, readerLine] = describeDemoCredentials(demo)
  const lines = [
    '',
    `Demo catalog ${demo.catalog.created ? 'created' : 'already present'}: ${demo.catalog.investments} investments, ${demo.catalog.offers} offers.`,
    'Credentials: a re-run never replaces one that exists; the generated ones are kept in the data folder (demo-credentials.json).',
    '',
    `Admin panel:               ${run.origin}/dg-admin/`,
    adminLine ?? '',
    `API base URL:              ${api}`,
    readerLine ?? '',
    `Webhook secret:            ${demo.webhook_secret}`,
    `Licence:                   ${demo.license.status}${demo.license.valid_until ? ` until ${demo.license.valid_until}` : ''}`,
    '',
  ]
  if (run.publication?.files) {
    lines.push(
      `Published today's official file (${run.publication.date}, ${run.publication.record_count ?? 0} rows):`,
      `  dataset XML for dane.gov.pl:  ${run.publication.files.xml}`,
      `  its MD5:                      ${run.publication.files.md5}`,
      `  the day's CSV (58 columns):   ${run.publication.files.csv}`,
      '  This is a local trial at an http:// address: dane.gov.pl only fetches https:// on port 443',
      '  (see docs/operations/production-checklist.md).',
      '',
      'Try:',
      `  curl ${run.publication.files.xml}`,
      `  curl ${run.publication.files.csv}`,
      `  curl -u '${demo.reader.login}:${readerPassword(demo)}' '${api}/catalog/properties?per_page=3'`,
    )
  } else {
    lines.push(
      "Today's official file was NOT published:",
      ...run.failure.map((f) => `  ${f.code}: ${f.message}`),
      '',
      'Try:',
      `  curl -u '${demo.reader.login}:${readerPassword(demo)}' '${api}/catalog/properties?per_page=3'`,
    )
  }
  lines.push(
    '',
    'Another company on this same service, with its own API, panel and files under /t/<slug>/:',
    '  npm run dg -- tenant create --slug firma-b --name "Firma B Sp. z o.o." --json',
    '  (docs/operations/hosting-many-companies.md)',
  )
  lines.push('', 'Stop the service with Ctrl+C; `npm start` runs it again without touching the demo data.', '')
  return lines.join('\n')
}
