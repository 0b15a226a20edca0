import { describe, expect, it } from 'vitest'

import {
  ALERT_TITLES,
  type AlertCause,
  type AlertInput,
  deliveryFailedAlert,
  licenseContinuityAlert,
  missedDaysAlert,
  publicationAuditAlert,
  publicationFailedAlert,
  publicationGapsAlert,
  rowDropAlert,
  testAlert,
} from '../../src/alerts/alert-causes.js'
import { ALERT_GUIDES, alertLetter, headingAnchor } from '../../src/alerts/alert-letter.js'

const DATASET = { id: 3, name: 'Osiedle Zielone sp. z o.o.' }
const DAY = '2026-11-20'

/** An alert of every cause, as the service raises them (the sources' texts as source-alerts.ts writes them). */
const ALERTS: Record<AlertCause, AlertInput> = {
  publication_failed: publicationFailedAlert(
    DAY,
    DATASET,
    [{ code: 'public_base_url_missing', message_pl: 'Brak publicznego adresu plików w Ustawieniach.' }],
    true,
  ),
  missed_days: missedDaysAlert(DAY, DATASET, ['2026-11-18', '2026-11-19']),
  delivery_failed: deliveryFailedAlert(DAY, DATASET, [
    { code: 'delivery_http_status', message_pl: 'Serwer odpowiedział kodem 404.', message_en: 'The server said 404.' },
  ]),
  row_drop: rowDropAlert(DAY, DATASET, 40, { date: '2026-11-19', rows: 100 }, 0.3),
  license_continuity: licenseContinuityAlert(DAY, 'expired', '2026-11-01'),
  publication_gaps: publicationGapsAlert(DAY, DATASET, [
    { code: 'offer_price_missing', message_pl: 'Oferta A/1 nie ma ceny.', message_en: 'Offer A/1 has no price.' },
  ]),
  source_held: {
    ...testAlert(DAY),
    cause: 'source_held',
    severity: 'warning',
    message_pl:
      'Zmiany ze źródła „CRM” wstrzymano, nic nie zapisano: cena zmieniła się o ponad 20%. Otwórz w panelu „Źródła ofert” przebieg nr 7, sprawdź zmiany i wybierz „Zastosuj” albo „Odrzuć”.',
  },
  source_failed: {
    ...testAlert(DAY),
    cause: 'source_failed',
    severity: 'critical',
    message_pl:
      'Nie udało się wczytać źródła „CRM” (Serwer odrzucił połączenie). Nic nie zapisano; oferty zostają w dotychczasowym stanie. Przebieg nr 8 w panelu „Źródła ofert”.',
  },
  source_stale: {
    ...testAlert(DAY),
    cause: 'source_stale',
    severity: 'warning',
    message_pl: 'Plik źródła „CRM” nie zmienił się od 9 dni (próg: 7 dni).',
  },
  publication_audit: publicationAuditAlert(DAY, DATASET, [
    {
      code: 'audit_file_changed',
      message_pl: 'Plik zmienił się od publikacji.',
      message_en: 'The file changed since its publication.',
      day: '2026-11-19',
      file: 'ceny-2026-11-19.csv',
    },
  ]),
  test: testAlert(DAY, 'panel'),
}

const LINKS = { panelBase: 'https://panel.example.pl', handbookBase: 'https://panel.example.pl/dg-admin/podrecznik/' }
/** Words of the old English e-mail and of the API that a Polish letter must not show. */
const ENGLISH_WORDS = /\b(details|cause|day|failed|error|status|publication|alert test|GET|POST|JSON|null|undefined)\b/i

const letterOf = (cause: AlertCause) => {
  const input = ALERTS[cause]
  return alertLetter(
    {
      id: 42,
      cause,
      day: input.day,
      severity: input.severity,
      message_pl: input.message_pl,
      message_en: input.message_en,
      raised_at: '2026-11-20T09:15:00.000Z',
      developer_name: input.dataset?.name,
    },
    'pl',
    LINKS,
  )
}

describe('alert e-mails', () => {
  for (const cause of Object.keys(ALERT_TITLES) as AlertCause[]) {
    it(`read as a Polish letter with links to the panel and the handbook: ${cause}`, () => {
      const { subject, text } = letterOf(cause)
      expect(subject).toContain(ALERT_TITLES[cause].pl)
      expect(subject).toContain('20.11.2026')
      expect(text).toMatch(/^Dzień dobry,\n/)
      expect(text).toContain('Co się stało')
      expect(text).toContain('Co zrobić')
      expect(text).toContain(ALERT_GUIDES[cause].todo.pl)
      expect(text).toContain(`\nhttps://panel.example.pl/dg-admin/#/${ALERT_GUIDES[cause].route}\n`)
      expect(text).toContain(
        `\nhttps://panel.example.pl/dg-admin/podrecznik/alerty.md#${encodeURIComponent(headingAnchor(ALERT_TITLES[cause].pl))}\n`,
      )
      expect(text).not.toMatch(/[{}]/)
      expect(text).not.toContain('/wp-json')
      expect(text).not.toMatch(/\b(GET|POST|PATCH|PUT|DELETE) \//)
      expect(text).not.toMatch(ENGLISH_WORDS)
      // dates as Polish readers write them
      expect(text).not.toMatch(/(?<![\w-])\d{4}-\d{2}-\d{2}(?![\w-]|\.\w)/)
      expect(text).toContain('20.11.2026 10:15')
    })
  }

  it('anchor each cause to its section of the handbook', async () => {
    const { readFile } = await import('node:fs/promises')
    const handbook = await readFile(new URL('../../docs/operator/alerty.md', import.meta.url), 'utf8')
    const headings = [...handbook.matchAll(/^#{2,4} (.+)$/gm)].map((m) => headingAnchor(m[1] ?? ''))
    for (const cause of Object.keys(ALERT_TITLES) as AlertCause[])
      expect(headings, cause).toContain(headingAnchor(ALERT_TITLES[cause].pl))
  })

  it('keep the English letter for an English-speaking team, also without JSON', () => {
    const input = ALERTS.row_drop
    const { text } = alertLetter(
      {
        id: 1,
        cause: 'row_drop',
        day: input.day,
        severity: input.severity,
        message_pl: input.message_pl,
        message_en: input.message_en,
        raised_at: '2026-11-20T09:15:00.000Z',
        developer_name: undefined,
      },
      'en',
      LINKS,
    )
    expect(text).toMatch(/^Hello,/)
    expect(text).not.toMatch(/[{}]|\/wp-json/)
    expect(text).toContain('https://panel.example.pl/dg-admin/#/import')
  })
})
