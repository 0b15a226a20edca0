/*
 * The panel's word on a schedule ticked on some days only: the law asks for a file every day. The
 * panel says it while the days are unticked, before anything is saved, in the same words as the
 * settings API's warning schedule_skips_days (test/publication/settings.test.ts), in both languages.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest'

import { skippedDaysWarning } from '../../src/admin-panel/assets/fields/schedule-field.js'
import { setLanguage } from '../../src/admin-panel/assets/i18n.js'
import { scheduleSkipsDaysWarning } from '../../src/publication/settings/settings-service.js'

const ALL = [0, 1, 2, 3, 4, 5, 6]
const without = (...skipped: number[]) => ALL.filter((d) => !skipped.includes(d))

// the language switch also words the page's static texts: a page without any is enough here
beforeAll(() => vi.stubGlobal('document', { documentElement: {}, querySelectorAll: () => [] }))
afterAll(() => {
  setLanguage('pl')
  vi.unstubAllGlobals()
})

it('says nothing when every day is ticked, and names the skipped days with art. 19b otherwise', () => {
  expect(skippedDaysWarning(ALL)).toBeNull()
  const weekend = skippedDaysWarning(without(6, 0))
  expect(weekend).toContain('Harmonogram pomija dni tygodnia: sobota, niedziela.')
  expect(weekend).toContain('Ustawa (art. 19b ust. 1) wymaga publikacji danych w serwisie dane.gov.pl codziennie')
  expect(skippedDaysWarning(without(3))).toContain('pomija dni tygodnia: środa.')
})

it('uses the words of the API’s schedule_skips_days, in Polish and in English', () => {
  for (const skipped of [[6, 0], [3], [1, 2, 3, 4, 5, 6]]) {
    const api = scheduleSkipsDaysWarning({ weekdays: skipped, dates: [] })
    setLanguage('pl')
    expect(skippedDaysWarning(without(...skipped))).toBe(api.message_pl)
    setLanguage('en')
    expect(skippedDaysWarning(without(...skipped))).toBe(api.message_en)
  }
})
