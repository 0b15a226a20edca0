/*
 * `dg data export --out DIR` and `dg data import --from DIR` (src/backup/portable-export.ts): the
 * whole company in a folder that a deployment of either database kind imports. The summary names
 * counts only; the export's secrets (password hashes, the webhook secret, the key of application
 * passwords) are never printed.
 */
import { exportData, importData } from '../../backup/portable-export.js'
import { migrateToLatest } from '../../host/db/migrate.js'
import { databaseUnavailable, openCliDatabase } from '../cli-context.js'
import type { Command, CommandResult } from '../command.js'
import type { CliEnvironment } from '../cli-context.js'

/** Application passwords are keyed hashes: under DG_AUTH_KEY, when set, instead of the database's key. */
const EXPORT_AUTH_KEY_NOTE =
  'DG_AUTH_KEY is set: application passwords are keyed with it, and it is not in the export. ' +
  'Set the same DG_AUTH_KEY in the deployment that imports it, or the application passwords will not work there.'
const IMPORT_AUTH_KEY_NOTE =
  'DG_AUTH_KEY is set here: the imported application passwords work only if the exporting deployment used the same key.'

async function withDatabase(
  env: CliEnvironment,
  body: (store: Parameters<typeof exportData>[0]) => Promise<CommandResult>,
  options: { migrate: boolean },
): Promise<CommandResult> {
  const database = openCliDatabase(env)
  try {
    if (options.migrate) await migrateToLatest(database.db, database.caps.name)
    return await body({ db: database.db, caps: database.caps, dataDir: env.config.dataDir })
  } catch (error) {
    throw databaseUnavailable(env.config, error) ?? error
  } finally {
    await database.destroy()
  }
}

export const DATA_EXPORT_COMMANDS: Command[] = [
  {
    name: 'data export',
    summary:
      "Export the company's whole data (every table and file) into a folder that a deployment on SQLite or PostgreSQL imports",
    options: {
      out: { type: 'string', required: true, description: 'new folder for the export (must not exist or be empty)' },
    },
    help: 'The folder holds password hashes and secrets: keep it like a backup.',
    run: (values, env) =>
      withDatabase(
        env,
        async (store) => {
          const summary = await exportData(store, String(values.out))
          const note = env.config.authKey ? EXPORT_AUTH_KEY_NOTE : undefined
          return {
            json: { ...summary, ...(note ? { note } : {}) },
            text: [
              `Exported ${summary.tables} tables (${summary.rows} rows) and ${summary.files} file(s) to ${summary.to}; ` +
                `checksums in ${summary.manifest}.`,
              `Database ${summary.database}, latest migration ${summary.latest_migration}. ` +
                'The export holds password hashes and secrets: store it like a backup.',
              ...(note ? [note] : []),
            ].join('\n'),
          }
        },
        { migrate: false },
      ),
  },
  {
    name: 'data import',
    summary: "Import a company's export into this deployment's fresh database and empty data folder (migrated first)",
    options: {
      from: { type: 'string', required: true, description: 'folder written by dg data export' },
    },
    createsDatabase: true,
    run: (values, env) =>
      withDatabase(
        env,
        async (store) => {
          const summary = await importData(store, String(values.from))
          return {
            json: { ...summary, ...(env.config.authKey ? { note: IMPORT_AUTH_KEY_NOTE } : {}) },
            text: [
              `Imported ${summary.tables} tables (${summary.rows} rows) and ${summary.files} file(s) into ` +
                `the ${summary.database} database and ${summary.data_dir}.`,
              ...(env.config.authKey ? [IMPORT_AUTH_KEY_NOTE] : []),
            ].join('\n'),
          }
        },
        { migrate: true },
      ),
  },
]
