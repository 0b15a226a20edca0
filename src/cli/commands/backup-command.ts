/*
 * `dg backup --to DIR` and `dg restore --from DIR [--replace]` (src/backup/backup.ts). With
 * DATABASE_URL both handle the data folder's files only and print the PostgreSQL practice.
 */
import { backupDataDir, postgresPractice, restoreDataDir } from '../../backup/backup.js'
import type { Command } from '../command.js'

export const BACKUP_COMMANDS: Command[] = [
  {
    name: 'backup',
    summary: 'Back up the data folder while the service runs: the SQLite database and every file, with checksums',
    options: {
      to: { type: 'string', required: true, description: 'new folder for the backup (must not exist or be empty)' },
    },
    run: async (values, env) => {
      const summary = await backupDataDir(env.config, String(values.to))
      const lines = [
        `Backup written to ${summary.to}: ${summary.database === 'sqlite' ? 'the SQLite database and ' : ''}${summary.files} file(s), ${summary.bytes} bytes; checksums in ${summary.manifest}.`,
      ]
      if (summary.database === 'postgresql') lines.push(postgresPractice(env.config))
      return {
        json: {
          ...summary,
          ...(summary.database === 'postgresql' ? { database_note: postgresPractice(env.config) } : {}),
        },
        text: lines.join('\n'),
      }
    },
  },
  {
    name: 'restore',
    summary: 'Restore the data folder from a backup, after verifying its checksums and the database (service stopped)',
    options: {
      from: { type: 'string', required: true, description: 'folder written by dg backup' },
      replace: {
        type: 'boolean',
        description: 'restore over a data folder that is not empty (the old one is kept beside)',
      },
    },
    run: async (values, env) => {
      const summary = await restoreDataDir(env.config, String(values.from), { replace: values.replace === true })
      const lines = [
        `Restored ${summary.database === 'sqlite' ? 'the SQLite database and ' : ''}${summary.files} file(s) into ${summary.data_dir}.`,
        ...(summary.previous ? [`The replaced data folder is kept at ${summary.previous}.`] : []),
      ]
      if (summary.database === 'postgresql') lines.push(postgresPractice(env.config))
      return { json: summary, text: lines.join('\n') }
    },
  },
]
