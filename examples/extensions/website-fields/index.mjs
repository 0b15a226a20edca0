// @ts-check
/*
 * Pola serwisu WWW — an example extension of dg-offers (docs/integration/extensions.md).
 *
 *   DG_EXTENSIONS=examples/extensions/website-fields/index.mjs npm start
 *
 * It registers the custom fields a developer's website shows (exposed in `custom_meta`), one
 * field the import may fill but the catalog never shows, three site options (two of them in
 * `extension_options` of GET /catalog), and a filter that adds a Polish label for the number of
 * rooms to every offer. It registers no action: an action turns the catalog's response cache off,
 * because its author expects it to run on every request.
 *
 * Plain JavaScript without a build step; the JSDoc types come from the service's own declarations.
 */

/** @typedef {import('dg-offers/extensions').ExtensionApi} ExtensionApi */
/** @typedef {import('dg-offers/extensions').ExtensionSettingField} ExtensionSettingField */

/**
 * `1 pokój`, `2 pokoje`, `5 pokoi`, `22 pokoje` (Polish plural forms); empty for an offer without rooms.
 * @param {unknown} rooms the offer's `rooms` (text, may be empty)
 * @returns {string}
 */
export function roomsLabel(rooms) {
  const n = Number(rooms)
  if (rooms === '' || rooms === null || rooms === undefined || !Number.isInteger(n) || n < 1) return ''
  if (n === 1) return '1 pokój'
  const units = n % 10
  const tens = n % 100
  return `${n} ${units >= 2 && units <= 4 && (tens < 12 || tens > 14) ? 'pokoje' : 'pokoi'}`
}

/**
 * Called once at start, before the service opens its database. Anything it throws stops the start
 * with a message naming this file.
 * @param {ExtensionApi} api
 */
export function register({ hooks, meta, log }) {
  // shown in custom_meta of GET /catalog/properties/{id} and /catalog/investments/{id}
  meta.register('dg_property', 'exposure', { type: 'string', showInRest: true, label: 'Ekspozycja okien' })
  meta.register('dg_property', 'plot_area', { type: 'number', showInRest: true, label: 'Powierzchnia działki (m²)' })
  meta.register('dg_investment', 'energy_class', { type: 'string', showInRest: true, label: 'Klasa energetyczna' })
  meta.register('dg_investment', 'completion_quarter', { type: 'string', showInRest: true, label: 'Termin oddania' })
  // written by the import (mapping "meta:crm_id"), never shown in the catalog
  meta.register('dg_property', 'crm_id', { type: 'string', showInRest: false, label: 'Identyfikator w CRM' })

  hooks.addFilter('dg_extension_settings_fields', (fields) => ({
    ...fields,
    promo_banner: {
      type: 'string',
      label: 'Baner promocji',
      description: 'Krótki tekst nad listą ofert (najwyżej 120 znaków).',
      default: '',
      sanitizer: (value) => (typeof value === 'string' ? value : '').replace(/\s+/g, ' ').trim().slice(0, 120),
      expose_in_catalog: true,
    },
    show_price_per_m2: {
      type: 'boolean',
      label: 'Pokazuj cenę za m²',
      default: true,
      expose_in_catalog: true,
    },
    crm_sync_hour: {
      type: 'integer',
      label: 'Godzina synchronizacji z CRM',
      description: 'Ustawienie wewnętrzne: nie trafia do katalogu.',
      default: 3,
      expose_in_catalog: false,
    },
  }))

  hooks.addFilter('dg_frontend_property_data', (data) => ({ ...data, rooms_label: roomsLabel(data.rooms) }))

  log.debug('website fields registered')
}
