/*
 * The event log names every event in words: each action the code records (read from the source,
 * so a new one without a label fails here) has a Polish and an English label, and an entry's object
 * is named by what the operator knows (the file, the day) rather than by a stored id.
 */
import fs from 'node:fs'
import path from 'node:path'

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

import { ACTIONS, actionLabel, filesOfJobs, objectText } from '../../src/admin-panel/assets/views/audit-labels.js'
import { setLanguage } from '../../src/admin-panel/assets/i18n.js'
import { OFFER_EDITOR_ACTIONS } from '../../src/editor/offer-editor-service.js'
import { MAINTENANCE_JOBS } from '../../src/maintenance-jobs.js'

const SRC = path.resolve(import.meta.dirname, '../../src')

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('-examples.ts') ? [full] : []
  })
}

/** The actions the code records: the literals of `action:` in the files that write audit entries. */
function recordedActions(): Set<string> {
  const actions = new Set<string>()
  for (const file of sourceFiles(SRC)) {
    const text = fs.readFileSync(file, 'utf8')
    if (!/recordAudit\(|recordAnonymousRefusal\(/.test(text)) continue
    for (const line of text.split('\n')) {
      const at = line.indexOf('action:')
      if (at === -1) continue
      const value = line.slice(at)
      if (/action: '[^']+'( \| '[^']+')+/.test(value)) continue // a type, not a recorded value
      for (const [, action] of value.matchAll(/'([a-z_]+(?:\.[a-z_]+)+)'/g)) actions.add(action as string)
    }
  }
  // the editor's writes are recorded as editor.offer.<what>
  for (const what of OFFER_EDITOR_ACTIONS) actions.add(`editor.offer.${what}`)
  // a scheduled job that fails is recorded as schedule.<its name>
  for (const job of MAINTENANCE_JOBS) actions.add(`schedule.${job.name}`)
  return actions
}

beforeAll(() => vi.stubGlobal('document', { documentElement: {}, querySelectorAll: () => [] }))
afterAll(() => {
  setLanguage('pl')
  vi.unstubAllGlobals()
})

describe('the event log’s words', () => {
  it('label every action the code records, in Polish and English', () => {
    const recorded = recordedActions()
    expect(recorded.size).toBeGreaterThan(40)
    for (const action of ['public_prices.update', 'import.execute', 'editor.offer.archive', 'session.login'])
      expect(recorded, action).toContain(action)
    const labels = ACTIONS as Record<string, string[]>
    const missing = [...recorded].filter((action) => !labels[action])
    expect(missing).toEqual([])
    for (const [pl, en] of Object.values(labels)) {
      expect(pl).toMatch(/^[A-ZĄĆĘŁŃÓŚŹŻ]/)
      expect(en).toBeTruthy()
    }
    expect(actionLabel('public_prices.update')).toBe('Zmiana cen na stronie WWW')
  })

  it('name an import by its file, a publication by its day, and a job without a file by a short number', () => {
    const job = 'a3f9c2e18b7d4f60a1b2c3d4e5f60718'
    expect(
      objectText({
        action: 'import.execute',
        object_type: 'import_job',
        object_id: job,
        details: { file: 'ceny.csv' },
      }),
    ).toBe('Import pliku ceny.csv')
    expect(
      objectText({
        action: 'report_import.confirm',
        object_type: 'import_job',
        object_id: job,
        details: { file: 'r.xlsx' },
      }),
    ).toBe('Raport z pliku r.xlsx')
    expect(objectText({ action: 'import.recovered', object_type: 'import_job', object_id: job, details: {} })).toBe(
      'Zadanie importu nr a3f9c2e1…',
    )
    expect(
      objectText({ action: 'publication.publish', object_type: 'publication', object_id: '2026-11-20', details: {} }),
    ).toBe('Plik z dnia 20.11.2026')
    expect(
      objectText({ action: 'alert.raise', object_type: 'alert', object_id: '7', details: { cause: 'row_drop' } }),
    ).toBe('Alert nr 7: Dzisiejszy plik ma znacznie mniej wierszy')
    expect(objectText({ action: 'session.login', object_type: null, object_id: null })).toBeNull()
    // a job's entry without its file is named by another entry of the same job
    const preview = {
      action: 'import.preview',
      object_type: 'import_job',
      object_id: job,
      details: { file: 'ceny.csv' },
    }
    const failed = { action: 'import.execute', object_type: 'import_job', object_id: job, details: {} }
    expect(objectText(failed, filesOfJobs([preview, failed]))).toBe('Import pliku ceny.csv')
    expect(objectText({ action: 'site_option.set', object_type: 'site_option', object_id: 'promo_banner' })).toBe(
      'opcja strony promo_banner',
    )
    expect(objectText({ action: 'user.role', object_type: 'user', object_id: '2' })).toBe('użytkownik nr 2')
  })
})
