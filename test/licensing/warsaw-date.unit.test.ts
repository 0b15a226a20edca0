import { expect, it } from 'vitest'

import { warsawDate } from '../../src/host/warsaw-day.js'

const formatter = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Europe/Warsaw',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
})

it('turns the legal day at Warsaw midnight, also when asked again within the same minute', () => {
  // asked in this order, each answer must be the day of its own instant, not a kept one
  expect(warsawDate(new Date('2026-12-31T22:59:30Z'))).toBe('2026-12-31')
  expect(warsawDate(new Date('2026-12-31T22:59:59.999Z'))).toBe('2026-12-31')
  expect(warsawDate(new Date('2026-12-31T23:00:00Z'))).toBe('2027-01-01')
  expect(warsawDate(new Date('2026-10-24T21:59:59Z'))).toBe('2026-10-24')
  expect(warsawDate(new Date('2026-10-24T22:00:00Z'))).toBe('2026-10-25')
  expect(warsawDate(new Date('2026-03-28T22:59:59Z'))).toBe('2026-03-28')
  expect(warsawDate(new Date('2026-03-28T23:00:00Z'))).toBe('2026-03-29')
})

it('agrees with the time-zone database over a year of instants, in and out of order', () => {
  let mismatches = 0
  for (let t = Date.parse('2026-01-01T00:00:00Z'); t < Date.parse('2027-01-01T00:00:00Z'); t += 3_599_000) {
    for (const at of [t, t + 59_000, t - 1]) {
      if (warsawDate(new Date(at)) !== formatter.format(new Date(at))) mismatches++
    }
  }
  expect(mismatches).toBe(0)
})
