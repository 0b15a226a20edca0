import { type Kysely, type Migration, type MigrationResultSet, Migrator, sql } from 'kysely'

import { type DialectName, migrationSchema, migratorDatabase } from './dialect.js'
import type { Database } from './schema.js'
import * as foundation from './migrations/0001-foundation.js'
import * as catalogRead from './migrations/0002-catalog-read.js'
import * as catalogListIndexes from './migrations/0003-catalog-list-indexes.js'
import * as imports from './migrations/0004-imports.js'
import * as webhook from './migrations/0005-webhook.js'
import * as importPlanFormat from './migrations/0006-import-plan-format.js'
import * as dropRedundantOfferIndexes from './migrations/0007-drop-redundant-offer-indexes.js'
import * as publicationDeveloper from './migrations/0008-publication-developer.js'
import * as alerts from './migrations/0009-alerts.js'
import * as operatorAdministration from './migrations/0011-operator-administration.js'
import * as credentialsRevision from './migrations/0012-credentials-revision.js'
import * as editorListIndexes from './migrations/0013-editor-list-indexes.js'
import * as listingRevision from './migrations/0014-listing-revision.js'
import * as priceListFiltersIndex from './migrations/0015-price-list-filters-index.js'
import * as listingValues from './migrations/0016-listing-values.js'
import * as priceIndexIncludesArea from './migrations/0017-price-index-includes-area.js'
import * as developerDataset from './migrations/0018-developer-dataset.js'
import * as scheduledSources from './migrations/0019-scheduled-sources.js'
import * as publicPrices from './migrations/0020-public-prices.js'
import * as passwordResets from './migrations/0021-password-resets.js'
import * as statusHistory from './migrations/0022-status-history.js'
import * as appendOnlyRefusesTruncate from './migrations/0023-append-only-refuses-truncate.js'
import * as auditRefusalWindows from './migrations/0024-audit-refusal-windows.js'
import * as announcedTotalIndex from './migrations/0025-announced-total-index.js'
import * as sourceCertificate from './migrations/0026-source-certificate.js'
import * as mailOutbox from './migrations/0027-mail-outbox.js'
import * as tenants from './migrations/0028-tenants.js'
import * as userScopes from './migrations/0029-user-scopes.js'

interface MigrationModule {
  up(db: Kysely<unknown>, dialect: DialectName): Promise<void>
}

/*
 * The ordered list of released migrations. Each is recorded in `dg_migration` when applied and
 * is never edited afterwards; a schema change is a new entry. Listed here rather than read from
 * disk so that the same list runs from the TypeScript sources (tests) and the build.
 */
const MIGRATIONS: ReadonlyArray<readonly [string, MigrationModule]> = [
  ['0001-foundation', foundation],
  ['0002-catalog-read', catalogRead],
  ['0003-catalog-list-indexes', catalogListIndexes],
  ['0004-imports', imports],
  ['0005-webhook', webhook],
  ['0006-import-plan-format', importPlanFormat],
  ['0007-drop-redundant-offer-indexes', dropRedundantOfferIndexes],
  ['0008-publication-developer', publicationDeveloper],
  ['0009-alerts', alerts],
  ['0011-operator-administration', operatorAdministration],
  ['0012-credentials-revision', credentialsRevision],
  ['0013-editor-list-indexes', editorListIndexes],
  ['0014-listing-revision', listingRevision],
  ['0015-price-list-filters-index', priceListFiltersIndex],
  ['0016-listing-values', listingValues],
  ['0017-price-index-includes-area', priceIndexIncludesArea],
  ['0018-developer-dataset', developerDataset],
  ['0019-scheduled-sources', scheduledSources],
  ['0020-public-prices', publicPrices],
  ['0021-password-resets', passwordResets],
  ['0022-status-history', statusHistory],
  ['0023-append-only-refuses-truncate', appendOnlyRefusesTruncate],
  ['0024-audit-refusal-windows', auditRefusalWindows],
  ['0025-announced-total-index', announcedTotalIndex],
  ['0026-source-certificate', sourceCertificate],
  ['0027-mail-outbox', mailOutbox],
  ['0028-tenants', tenants],
  ['0029-user-scopes', userScopes],
]

export class MigrationError extends Error {}

export async function migrateToLatest(db: Kysely<Database>, dialect: DialectName): Promise<string[]> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one: with several
  // schemas in one database (tests, or tenants) another schema's table would be mistaken for ours
  const schema = await migrationSchema(db, dialect)
  const migrator = new Migrator({
    ...(schema ? { migrationTableSchema: schema } : {}),
    // migrations see the schema as it was when they were written, not today's Database type
    db: migratorDatabase(db, schema) as unknown as Kysely<unknown>,
    migrationTableName: 'dg_migration',
    migrationLockTableName: 'dg_migration_lock',
    provider: {
      getMigrations: async () =>
        Object.fromEntries(
          MIGRATIONS.map(([name, module]): [string, Migration] => [
            name,
            { up: (database) => module.up(database, dialect) },
          ]),
        ),
    },
  })
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName
    throw new MigrationError(
      `migration ${failed ?? '(unknown)'} failed: ${error instanceof Error ? error.message : JSON.stringify(error)}`,
    )
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName)
}

/**
 * How the database's migrations differ from this release's: `pending` ones it has not applied
 * (the start applies them), `unknown` ones a newer release applied. Both empty when current.
 */
export async function migrationState(db: Kysely<Database>): Promise<{ pending: string[]; unknown: string[] }> {
  const { rows } = await sql<{ name: string }>`select name from dg_migration`.execute(db)
  const applied = new Set(rows.map((row) => row.name))
  const known = new Set(MIGRATIONS.map(([name]) => name))
  return {
    pending: [...known].filter((name) => !applied.has(name)),
    unknown: [...applied].filter((name) => !known.has(name)),
  }
}
