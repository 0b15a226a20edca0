/*
 * The `dg` commands. Each returns a plain object: printed as JSON with --json, or as readable
 * text otherwise. Errors are HostError/PluginError with a stable code, shown by main.ts.
 */
import {
  createAppPassword,
  formatAppPassword,
  listAppPasswords,
  revokeAppPassword,
} from '../host/auth/app-passwords.js'
import { migrateToLatest } from '../host/db/migrate.js'
import { HostError } from '../host/errors.js'
import { createUser, listUsers, setLoginPassword } from '../host/users/users.js'
import { getLicenseState, setLicense } from '../licensing/license.js'
import { getWebhookSecret, rotateWebhookSecret } from '../webhook/webhook-secret.js'
import { ALERTS_COMMANDS } from './commands/alerts-command.js'
import { AUDIT_COMMANDS } from './commands/audit-command.js'
import { BACKUP_COMMANDS } from './commands/backup-command.js'
import { DATA_EXPORT_COMMANDS } from './commands/data-export-command.js'
import { TENANT_COMMANDS } from './commands/tenant-command.js'
import { CATALOG_LIST_COMMANDS } from './commands/catalog-list-command.js'
import { SOURCE_COMMANDS } from './commands/source-command.js'
import { USER_SCOPE_COMMANDS } from './commands/user-scope-command.js'
import { runImportCommand } from './commands/import-command.js'
import { SITE_OPTION_COMMANDS } from './commands/site-options-command.js'
import { PUBLICATION_PUBLISH_COMMANDS } from './commands/publication-publish-command.js'
import { IMPORT_HELP } from './import-help.js'
import { runWebhookSendCommand } from './commands/webhook-send-command.js'
import {
  DEVELOPER_OPTIONS,
  LOCATION_OPTIONS,
  runDeveloperSetCommand,
  runDeveloperShowCommand,
  runInvestmentLocationCommand,
  runPreflightCommand,
  runPublicationSettingsCommand,
} from './commands/publication-settings-command.js'
import { prepareDemo } from '../demo/demo-setup.js'
import { describeDemo, describeDemoCredentials, startDemoServer } from '../demo/run-demo.js'
import { databaseUnavailable, openCliDatabase, withHostContext } from './cli-context.js'
import { baseUrl } from '../config.js'
import type { Command } from './command.js'

const actor = { type: 'cli' } as const

function str(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name]
  return typeof value === 'string' ? value : ''
}

function optionalStr(values: Record<string, string | boolean | undefined>, name: string): string | undefined {
  const value = values[name]
  return typeof value === 'string' ? value : undefined
}

export const COMMANDS: Command[] = [
  {
    name: 'serve',
    summary: 'Run the HTTP service (the same as npm start)',
    options: {},
    createsDatabase: true,
    run: async () => 'serve',
  },
  {
    name: 'migrate',
    summary: 'Apply pending database migrations',
    options: {},
    createsDatabase: true,
    run: async (_values, env) => {
      const database = openCliDatabase(env)
      try {
        const applied = await migrateToLatest(database.db, database.caps.name).catch((error: unknown) => {
          throw databaseUnavailable(env.config, error) ?? error
        })
        return {
          json: { applied, database: database.caps.name },
          text: applied.length ? `Applied: ${applied.join(', ')}` : 'The database is up to date.',
        }
      } finally {
        await database.destroy()
      }
    },
  },
  {
    name: 'user create',
    summary: 'Create a user (roles: administrator, dg_operator, dg_auditor, dg_catalog_reader)',
    options: {
      login: { type: 'string', required: true, description: 'login name' },
      email: { type: 'string', required: true, description: 'e-mail address' },
      role: {
        type: 'string',
        required: true,
        description: 'administrator, dg_operator, dg_auditor or dg_catalog_reader',
      },
      password: { type: 'string', description: 'login password (generated when omitted)' },
      'display-name': { type: 'string', description: 'name shown in the admin panel' },
    },
    run: (values, env) =>
      withHostContext(env, async (ctx) => {
        const { user, password } = await createUser(ctx, {
          login: str(values, 'login'),
          email: str(values, 'email'),
          role: str(values, 'role'),
          password: optionalStr(values, 'password'),
          displayName: optionalStr(values, 'display-name'),
          actor,
        })
        return {
          json: {
            id: user.id,
            user: user.login,
            email: user.email,
            role: user.role,
            ...(password ? { password } : {}),
          },
          text: `Created user ${user.login} (id ${user.id}, ${user.role_label}).${password ? `\nGenerated login password (shown once): ${password}` : ''}`,
        }
      }),
  },
  {
    name: 'user list',
    summary: 'List users',
    options: {},
    run: (_values, env) =>
      withHostContext(env, async (ctx) => {
        const users = await listUsers(ctx)
        return {
          json: { items: users.map((u) => ({ id: u.id, user: u.login, email: u.email, role: u.role })) },
          text: users.map((u) => `${u.id}\t${u.login}\t${u.email}\t${u.role}`).join('\n') || 'No users.',
        }
      }),
  },
  {
    name: 'user set-password',
    summary: 'Set or regenerate the login password of a user; ends the account’s panel sessions',
    options: {
      login: { type: 'string', required: true, description: 'login or e-mail' },
      password: { type: 'string', description: 'new password (generated when omitted)' },
    },
    run: (values, env) =>
      withHostContext(env, async (ctx) => {
        const { user, password, sessionsEnded } = await setLoginPassword(ctx, {
          login: str(values, 'login'),
          password: optionalStr(values, 'password'),
          actor,
        })
        return {
          json: { id: user.id, user: user.login, sessions_ended: sessionsEnded, ...(password ? { password } : {}) },
          text: [
            `Password of ${user.login} changed.`,
            `Panel sessions ended: ${sessionsEnded} (every browser signed in as ${user.login} must log in again).`,
            'Application passwords are kept; revoke one with `dg app-password revoke`.',
            ...(password ? [`Generated login password (shown once): ${password}`] : []),
          ].join('\n'),
        }
      }),
  },
  {
    name: 'app-password create',
    summary: 'Create an application password for HTTP Basic API access',
    options: {
      user: { type: 'string', required: true, description: 'login or e-mail' },
      name: { type: 'string', required: true, description: 'what the password is for, e.g. "website"' },
    },
    run: (values, env) =>
      withHostContext(env, async (ctx) => {
        const created = await createAppPassword(ctx, { login: str(values, 'user'), name: str(values, 'name'), actor })
        return {
          json: {
            user: created.user,
            name: created.name,
            uuid: created.uuid,
            password: created.password,
            created_at: created.created_at,
          },
          text: [
            `Application password "${created.name}" for ${created.user} (uuid ${created.uuid}).`,
            `Password (shown once, spaces optional): ${formatAppPassword(created.password)}`,
          ].join('\n'),
        }
      }),
  },
  {
    name: 'app-password list',
    summary: 'List the application passwords of a user (never the passwords themselves)',
    options: { user: { type: 'string', required: true, description: 'login or e-mail' } },
    run: (values, env) =>
      withHostContext(env, async (ctx) => {
        const list = await listAppPasswords(ctx, str(values, 'user'))
        return {
          json: list,
          text:
            list.items
              .map((i) => `${i.uuid}\t${i.name}\tcreated ${i.created_at}\tlast used ${i.last_used_at ?? 'never'}`)
              .join('\n') || `${list.user} has no application passwords.`,
        }
      }),
  },
  {
    name: 'app-password revoke',
    summary: 'Revoke one application password',
    options: {
      user: { type: 'string', required: true, description: 'login or e-mail' },
      uuid: { type: 'string', required: true, description: 'uuid from app-password list' },
    },
    run: (values, env) =>
      withHostContext(env, async (ctx) => {
        const result = await revokeAppPassword(ctx, { login: str(values, 'user'), uuid: str(values, 'uuid'), actor })
        return { json: result, text: `Revoked application password ${result.uuid} of ${result.user}.` }
      }),
  },
  {
    name: 'webhook-secret rotate',
    summary: 'Generate a new webhook secret; the old one stops working at once',
    options: {},
    run: (_values, env) =>
      withHostContext(env, async (ctx) => {
        const stored = await rotateWebhookSecret(ctx, actor)
        return {
          json: stored,
          text: `New webhook secret (the previous one no longer verifies):\n${stored.secret}`,
        }
      }),
  },
  {
    name: 'webhook-secret show',
    summary: 'Show the current webhook secret',
    options: {},
    run: (_values, env) =>
      withHostContext(env, async (ctx) => {
        const stored = await getWebhookSecret(ctx)
        if (!stored)
          throw new HostError(
            'webhook_secret_missing',
            404,
            'No webhook secret yet; create one with: dg webhook-secret rotate',
          )
        return { json: stored, text: stored.secret }
      }),
  },
  {
    name: 'license set',
    summary: 'Install the licence (plan and entitlements)',
    options: {
      plan: { type: 'string', required: true, description: 'pro or free' },
      entitlements: { type: 'string', description: 'comma-separated: api_webhooks,bulk_import,publishing_gov' },
      'valid-until': { type: 'string', description: 'last valid day YYYY-MM-DD (none = no end)' },
    },
    run: (values, env) =>
      withHostContext(env, async (ctx) => {
        const entitlements = str(values, 'entitlements')
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean)
        const state = await setLicense(ctx, {
          plan: str(values, 'plan'),
          entitlements,
          validUntil: optionalStr(values, 'valid-until') ?? null,
          actor,
        })
        return { json: state, text: describeLicense(state) }
      }),
  },
  {
    name: 'license show',
    summary: 'Show the licence and whether the service runs in continuity mode',
    options: {},
    run: (_values, env) =>
      withHostContext(env, async (ctx) => {
        const state = await getLicenseState(ctx)
        return { json: state, text: describeLicense(state) }
      }),
  },
  {
    name: 'import',
    summary: 'Import offers from a CSV or XLSX file: preview, confirm, execute',
    positionals: ['FILE'],
    options: {
      mapping: { type: 'string', required: true, description: 'JSON file: canonical field name → column header' },
      mode: { type: 'string', description: 'patch (default) or snapshot (archives offers missing from the file)' },
      sheet: { type: 'string', description: 'XLSX sheet name (default: the first sheet)' },
      yes: { type: 'boolean', description: 'execute without asking (also confirms archiving)' },
    },
    help: IMPORT_HELP,
    run: (values, env, positionals) => runImportCommand(values, env, positionals[0] ?? ''),
  },
  {
    name: 'webhook send',
    summary: 'Send a signed property event (reference sender: retries, Retry-After, stops on conflicts)',
    positionals: ['PAYLOAD_JSON_FILE'],
    options: {
      url: { type: 'string', required: true, description: 'full URL of POST /webhooks/properties' },
      'secret-file': { type: 'string', required: true, description: 'file holding the webhook secret' },
      key: { type: 'string', required: true, description: 'Idempotency-Key: stable id of this event' },
    },
    run: (values, env, positionals) => runWebhookSendCommand(values, env, positionals[0] ?? ''),
  },
  {
    name: 'publication settings',
    summary: 'Show or change the publication settings: dg publication settings show | set --public-base-url URL …',
    positionals: ['show|set'],
    options: {
      'public-base-url': { type: 'string', description: 'https address of the /dane-gov files ("none" clears it)' },
      'developer-id': { type: 'string', description: 'the publishing developer ("first" = the first one)' },
      statuses: { type: 'string', description: 'published offer statuses, e.g. available,reserved' },
      schedule: { type: 'string', description: 'cron pattern in Europe/Warsaw, e.g. "30 0 * * *"' },
      'confirm-url-change': {
        type: 'boolean',
        description: 'confirm a new --public-base-url after files were published (past files keep their URLs)',
      },
    },
    run: (values, env, positionals) => runPublicationSettingsCommand(values, env, positionals[0] ?? ''),
  },
  {
    name: 'publication preflight',
    summary: 'Check the publication of a day without publishing (exit code 1 on blocking issues)',
    options: {
      date: { type: 'string', description: 'YYYY-MM-DD (default today in Europe/Warsaw)' },
      'verify-portal': { type: 'boolean', description: 'also ask the dane.gov.pl API for the day’s resource' },
    },
    run: (values, env) => runPreflightCommand(values, env),
  },
  {
    name: 'developer set',
    summary: 'Create (without --id) or change a developer entity, official columns 1–28',
    options: {
      id: { type: 'string', description: 'developer to change (omit to create one)' },
      file: { type: 'string', description: 'JSON file with developer fields (snake_case, as in the API)' },
      ...DEVELOPER_OPTIONS,
    },
    run: (values, env) => runDeveloperSetCommand(values, env),
  },
  {
    name: 'developer show',
    summary: 'Show a developer entity',
    options: { id: { type: 'string', required: true, description: 'developer id' } },
    run: (values, env) => runDeveloperShowCommand(values, env),
  },
  ...CATALOG_LIST_COMMANDS,
  {
    name: 'investment location',
    summary: 'Show or change an investment’s location (columns 29–35) and prospectus URL (58)',
    options: { id: { type: 'string', required: true, description: 'investment id' }, ...LOCATION_OPTIONS },
    run: (values, env) => runInvestmentLocationCommand(values, env),
  },
  {
    name: 'demo',
    summary: 'Run the demo: prepare it, serve, publish today once and print where everything is (npm run demo)',
    options: {},
    createsDatabase: true,
    run: async (_values, env) => {
      const demo = await withHostContext(env, (ctx) => prepareDemo(ctx))
      const run = await startDemoServer(env.config)
      return {
        json: {
          url: `${run.origin}${baseUrl(env.config)}`,
          ...demo,
          publication: run.publication,
          failure: run.failure,
        },
        text: describeDemo(env.config, demo, run),
      }
    },
  },
  {
    name: 'demo seed',
    summary: 'Prepare the demo: users, credentials, licence and a demo catalog',
    options: {},
    createsDatabase: true,
    run: (_values, env) =>
      withHostContext(env, async (ctx) => {
        const demo = await prepareDemo(ctx)
        const url = `http://${env.config.host === '0.0.0.0' ? '127.0.0.1' : env.config.host}:${env.config.port}${baseUrl(env.config)}`
        return {
          json: { url, ...demo },
          text: [
            '',
            `Demo catalog ${demo.catalog.created ? 'created' : 'already present'}: ${demo.catalog.investments} investments, ${demo.catalog.offers} offers.`,
            `API base URL:              ${url}`,
            ...describeDemoCredentials(demo),
            `Webhook secret:            ${demo.webhook_secret}`,
            `Licence:                   ${demo.license.status}${demo.license.valid_until ? ` until ${demo.license.valid_until}` : ''}`,
            '',
            'Try:',
            `  curl -u '${demo.admin.login}:<application password>' ${url}/status   (create one: npm run dg -- app-password create --user admin --name cli)`,
            `  curl -u '${demo.reader.login}:${demo.reader.application_password ?? '<application password>'}' ${url}/status   (403: a reader may not)`,
            '',
          ].join('\n'),
        }
      }),
  },
  ...BACKUP_COMMANDS,
  ...DATA_EXPORT_COMMANDS,
  ...TENANT_COMMANDS,
  ...ALERTS_COMMANDS,
  ...AUDIT_COMMANDS,
  ...SOURCE_COMMANDS,
  ...USER_SCOPE_COMMANDS,
  ...SITE_OPTION_COMMANDS,
  ...PUBLICATION_PUBLISH_COMMANDS,
]

function describeLicense(state: {
  plan: string | null
  status: string
  entitlements: string[]
  valid_until: string | null
  continuity_mode: boolean
}): string {
  return [
    `Plan: ${state.plan ?? 'none'}; status: ${state.status}${state.valid_until ? `; valid until ${state.valid_until}` : ''}`,
    `Entitlements: ${state.entitlements.join(', ') || 'none'}`,
    state.continuity_mode
      ? 'Continuity mode: the daily publication keeps running; PRO features answer 403.'
      : 'PRO features are available.',
  ].join('\n')
}
