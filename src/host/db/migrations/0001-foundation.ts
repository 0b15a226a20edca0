/*
 * Released migration: never edit it. Change the schema with a new numbered file.
 */
import type { Kysely } from 'kysely'

import { bigintType, type DialectName, makeAppendOnly, withIdColumn } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const big = bigintType(dialect)

  await withIdColumn(db.schema.createTable('users'), dialect)
    .addColumn('login', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()

  await withIdColumn(db.schema.createTable('app_passwords'), dialect)
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', big, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('last_ip', 'text')
    .execute()
  await db.schema.createIndex('app_passwords_user').on('app_passwords').column('user_id').execute()

  await withIdColumn(db.schema.createTable('sessions'), dialect)
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', big, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute()

  await db.schema
    .createTable('options')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('autoload', 'integer', (c) => c.notNull().defaultTo(1))
    .execute()

  await withIdColumn(db.schema.createTable('audit_log'), dialect)
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_user_id', big)
    .addColumn('actor_name', 'text', (c) => c.notNull())
    .addColumn('actor_credential', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text')
    .addColumn('object_id', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('details', 'text')
    .execute()
  await db.schema.createIndex('audit_log_occurred').on('audit_log').column('occurred_at').execute()
  await db.schema.createIndex('audit_log_object').on('audit_log').columns(['object_type', 'object_id']).execute()
  await makeAppendOnly(db, dialect, 'audit_log')

  let developers = withIdColumn(db.schema.createTable('developers'), dialect).addColumn('name', 'text', (c) =>
    c.notNull(),
  )
  for (const column of [
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
  ]) {
    developers = developers.addColumn(column, 'text')
  }
  await developers
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('modified_at', 'text', (c) => c.notNull())
    .execute()

  let investments = withIdColumn(db.schema.createTable('investments'), dialect)
    .addColumn('developer_id', big, (c) => c.references('developers.id'))
    .addColumn('source_id', 'text', (c) => c.unique())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('excerpt', 'text', (c) => c.notNull().defaultTo(''))
  for (const column of [
    'loc_voivodeship',
    'loc_powiat',
    'loc_gmina',
    'loc_city',
    'loc_street',
    'loc_building_no',
    'loc_postal_code',
    'prospectus_url',
  ]) {
    investments = investments.addColumn(column, 'text')
  }
  await investments
    .addColumn('host_status', 'text', (c) => c.notNull().defaultTo('publish'))
    .addColumn('visibility', 'text', (c) => c.notNull().defaultTo('public'))
    .addColumn('custom_meta', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('thumbnail_id', big)
    .addColumn('gallery', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('documents', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('modified_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('investments_status_title').on('investments').columns(['host_status', 'title']).execute()

  await withIdColumn(db.schema.createTable('offers'), dialect)
    .addColumn('investment_id', big, (c) => c.notNull().references('investments.id'))
    .addColumn('source_property_id', 'text')
    .addColumn('offer_kind', 'text', (c) => c.notNull())
    .addColumn('property_type', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('area', 'text')
    .addColumn('rooms', 'integer')
    .addColumn('floor', 'integer')
    .addColumn('building', 'text')
    .addColumn('price_total_cents', big)
    .addColumn('price_total_from', 'text')
    .addColumn('price_m2_cents', big)
    .addColumn('price_m2_from', 'text')
    .addColumn('price_combined_cents', big)
    .addColumn('price_combined_from', 'text')
    .addColumn('price_combined_variant', 'text')
    .addColumn('price_combined_status', 'text')
    .addColumn('variant', 'text')
    .addColumn('host_status', 'text', (c) => c.notNull().defaultTo('publish'))
    .addColumn('custom_meta', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('thumbnail_id', big)
    .addColumn('gallery', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('modified_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('offers_source_key', ['investment_id', 'source_property_id'])
    .execute()
  await db.schema.createIndex('offers_investment').on('offers').columns(['investment_id', 'host_status']).execute()
  await db.schema
    .createIndex('offers_status_modified')
    .on('offers')
    .columns(['host_status', 'modified_at', 'id'])
    .execute()

  await withIdColumn(db.schema.createTable('offer_components'), dialect)
    .addColumn('offer_id', big, (c) => c.notNull().references('offers.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('group_kind', 'text', (c) => c.notNull())
    .addColumn('kind_label', 'text', (c) => c.notNull())
    .addColumn('designation', 'text')
    .addColumn('description', 'text')
    .addColumn('price_cents', big)
    .addColumn('price_from', 'text')
    .addColumn('relation', 'text')
    .addColumn('requirement', 'text')
    .addColumn('variant', 'text')
    .addColumn('legal_title', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('modified_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('offer_components_offer')
    .on('offer_components')
    .columns(['offer_id', 'position'])
    .execute()

  await withIdColumn(db.schema.createTable('price_history'), dialect)
    .addColumn('offer_id', big, (c) => c.notNull().references('offers.id'))
    .addColumn('component_id', big)
    .addColumn('price_type', 'text', (c) => c.notNull())
    .addColumn('record_type', 'text', (c) => c.notNull())
    .addColumn('before_cents', big)
    .addColumn('after_cents', big)
    .addColumn('valid_from', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('correction', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_id', big)
    .execute()
  await db.schema.createIndex('price_history_offer').on('price_history').columns(['offer_id', 'id']).execute()
  await makeAppendOnly(db, dialect, 'price_history')

  await withIdColumn(db.schema.createTable('attachments'), dialect)
    .addColumn('investment_id', big, (c) => c.references('investments.id'))
    .addColumn('offer_id', big, (c) => c.references('offers.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text')
    .addColumn('alt', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('attachments_offer').on('attachments').column('offer_id').execute()
  await db.schema.createIndex('attachments_investment').on('attachments').column('investment_id').execute()

  await withIdColumn(db.schema.createTable('publications'), dialect)
    .addColumn('publication_date', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('actor_name', 'text', (c) => c.notNull())
    .addColumn('actor_credential', 'text')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('record_count', 'integer')
    .addColumn('version', 'text')
    .addColumn('csv_md5', 'text')
    .addColumn('xml_md5', 'text')
    .addColumn('issues', 'text')
    .execute()
  await db.schema
    .createIndex('publications_status_date')
    .on('publications')
    .columns(['status', 'publication_date'])
    .execute()
}
