/*
 * Each company's PostgreSQL connections open in its own schema, even when DATABASE_URL carries
 * server options of its own: node-postgres lets the URL's `options` win over the pool's, which
 * would have put every company into the first company's schema.
 */
import { expect, it } from 'vitest'

import { withSchemaOption } from '../../src/host/db/dialect.js'

it('puts the schema last among the URL’s own server options, and takes them out of the URL', () => {
  const { connectionString, options } = withSchemaOption(
    'postgres://dg:secret@db.example:5432/ceny?sslmode=require&options=-c%20search_path%3Dpublic%20-c%20statement_timeout%3D5000',
    'dg__alfa',
  )
  expect(new URL(connectionString).searchParams.get('options')).toBeNull()
  expect(new URL(connectionString).searchParams.get('sslmode')).toBe('require')
  expect(options).toBe('-c search_path=public -c statement_timeout=5000 -c search_path=dg__alfa')
})

it('leaves a URL alone when no schema is asked for', () => {
  const url = 'postgres://dg@db.example/ceny?options=-c%20statement_timeout%3D5000'
  expect(withSchemaOption(url, undefined)).toEqual({ connectionString: url, options: undefined })
})
