/*
 * An alert as an e-mail an operator reads: a letter (greeting, what happened, what to do, where to
 * look) with a link to the panel's page about it and to the handbook's section on the alert, never
 * the stored details as JSON or an API path. Machines get the webhook's JSON (webhookPayload).
 */
import { ALERT_TITLES, type AlertCause } from './alert-causes.js'

/** The handbook page that describes every alert, a section per alert titled as ALERT_TITLES. */
export const ALERT_HANDBOOK_PAGE = 'alerty.md'

interface CauseGuide {
  /** The panel's page (its route, #/route) where the operator sees and mends the problem. */
  route: string
  page: { pl: string; en: string }
  todo: { pl: string; en: string }
}

export const ALERT_GUIDES: Readonly<Record<AlertCause, CauseGuide>> = {
  publication_failed: {
    route: 'historia',
    page: { pl: 'Historia publikacji', en: 'Publication history' },
    todo: {
      pl: 'Przeczytaj przyczynę w „Historii publikacji”, popraw wskazane dane i opublikuj dzień ponownie na stronie „Publikacja”.',
      en: 'Read the cause in the publication history, correct the data it names and publish the day again on the “Publikacja” page.',
    },
  },
  missed_days: {
    route: 'historia',
    page: { pl: 'Historia publikacji', en: 'Publication history' },
    todo: {
      pl: 'Jeśli masz raport z tamtego dnia, opublikuj go na stronie „Import raportu” z datą tego dnia, a z administratorem ustal, dlaczego publikacja się nie odbyła.',
      en: 'If you have that day’s report, publish it on the “Import raportu” page with its date, and find out with the administrator why the publication did not happen.',
    },
  },
  delivery_failed: {
    route: 'ustawienia',
    page: { pl: 'Ustawienia', en: 'Settings' },
    todo: {
      pl: 'Przekaż tę wiadomość administratorowi: trzeba sprawdzić serwer, proxy i publiczny adres plików w Ustawieniach.',
      en: 'Forward this message to the administrator: the server, the proxy and the files’ public address in the settings need checking.',
    },
  },
  row_drop: {
    route: 'import',
    page: { pl: 'Import ofert', en: 'Offer import' },
    todo: {
      pl: 'Sprawdź ostatnie importy i dostawy z CRM; po poprawce opublikuj dzień ponownie.',
      en: 'Check the latest imports and the deliveries from the CRM; once corrected, publish the day again.',
    },
  },
  license_continuity: {
    route: 'licencja',
    page: { pl: 'Licencja', en: 'Licence' },
    todo: {
      pl: 'Poproś administratora o odnowienie licencji.',
      en: 'Ask the administrator to renew the licence.',
    },
  },
  publication_gaps: {
    route: 'oferty',
    page: { pl: 'Oferty', en: 'Offers' },
    todo: {
      pl: 'Uzupełnij wskazane dane (oferty, lokalizacje inwestycji) i opublikuj dzień ponownie.',
      en: 'Fill in the data named above (offers, investment locations) and publish the day again.',
    },
  },
  source_held: {
    route: 'zrodla',
    page: { pl: 'Źródła ofert', en: 'Offer sources' },
    todo: {
      pl: 'Otwórz wstrzymany przebieg, sprawdź zmiany i wybierz „Zastosuj” albo „Odrzuć”.',
      en: 'Open the held run, check the changes and choose “Zastosuj” (apply) or “Odrzuć” (reject).',
    },
  },
  source_failed: {
    route: 'zrodla',
    page: { pl: 'Źródła ofert', en: 'Offer sources' },
    todo: {
      pl: 'Sprawdź adres, dostęp i format pliku źródła; oferty zostają bez zmian do następnego udanego przebiegu.',
      en: 'Check the source’s address, access and file format; the offers stay as they are until a run succeeds.',
    },
  },
  source_stale: {
    route: 'zrodla',
    page: { pl: 'Źródła ofert', en: 'Offer sources' },
    todo: {
      pl: 'Sprawdź, czy eksport z arkusza lub CRM nadal działa.',
      en: 'Check that the export from the spreadsheet or the CRM still works.',
    },
  },
  publication_audit: {
    route: 'audyt-publikacji',
    page: { pl: 'Audyt publikacji', en: 'Publication audit' },
    todo: {
      pl: 'Otwórz „Audyt publikacji” i przekaż listę błędów administratorowi: opublikowanych plików nie zmienia się ręcznie, odtwarza się je z kopii zapasowej.',
      en: 'Open the publication audit and forward the list to the administrator: published files are never edited by hand, they are restored from a backup.',
    },
  },
  test: {
    route: 'alerty',
    page: { pl: 'Alerty', en: 'Alerts' },
    todo: { pl: 'Nic: powiadomienia e-mailem działają.', en: 'Nothing: e-mail notifications work.' },
  },
}

/** GitHub's anchor of a heading (what the served handbook gives its sections too). */
export function headingAnchor(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

const SEVERITY_WORDS = {
  critical: { pl: 'PILNE', en: 'CRITICAL', lead: { pl: 'Pilne: ', en: 'Urgent: ' } },
  warning: { pl: 'UWAGA', en: 'WARNING', lead: { pl: '', en: '' } },
  info: { pl: 'INFO', en: 'INFO', lead: { pl: '', en: '' } },
} as const

/** 2026-11-20 → 20.11.2026, in any text (the dates an alert's message names), but not inside a file's name. */
export function polishDates(text: string): string {
  return text.replace(/(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?![\w-]|\.\w)/g, '$3.$2.$1')
}

export interface AlertLetterInput {
  id: number
  cause: string
  day: string
  severity: string
  message_pl: string
  message_en: string
  raised_at: string
  developer_name: string | undefined
}

export interface AlertLetterLinks {
  /** The panel's public address without /dg-admin (DG_PANEL_URL, else the service's own address). */
  panelBase: string
  /** Where the handbook's pages are, ending in `/` (DG_HANDBOOK_URL, else the one the service serves). */
  handbookBase: string
}

function raisedAtText(iso: string): string {
  const at = new Date(iso)
  if (!Number.isFinite(at.getTime())) return ''
  const parts = new Intl.DateTimeFormat('pl-PL', {
    timeZone: 'Europe/Warsaw',
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at)
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? ''
  return `${part('day')}.${part('month')}.${part('year')} ${part('hour')}:${part('minute')}`
}

/** The e-mail's subject and text, in the alerts' language. */
export function alertLetter(
  alert: AlertLetterInput,
  language: 'pl' | 'en',
  links: AlertLetterLinks,
): { subject: string; text: string } {
  const cause = alert.cause as AlertCause
  const title = (ALERT_TITLES[cause] ?? { pl: alert.cause, en: alert.cause })[language]
  const guide = ALERT_GUIDES[cause] ?? ALERT_GUIDES.test
  const severity = SEVERITY_WORDS[alert.severity as keyof typeof SEVERITY_WORDS] ?? SEVERITY_WORDS.info
  const panelLink = `${links.panelBase}/dg-admin/#/${guide.route}`
  const anchor = ALERT_TITLES[cause] ? `#${encodeURIComponent(headingAnchor(ALERT_TITLES[cause].pl))}` : ''
  const handbookLink = `${links.handbookBase}${ALERT_HANDBOOK_PAGE}${anchor}`
  const day = polishDates(alert.day)
  const when = raisedAtText(alert.raised_at)
  if (language === 'en') {
    return {
      subject: `[dg-offers] ${severity.en}: ${title} (${day})`,
      text: [
        'Hello,',
        '',
        `${severity.lead.en}${title} — day ${day}${alert.developer_name ? `, dataset of ${alert.developer_name}` : ''}.`,
        '',
        'What happened',
        polishDates(alert.message_en),
        '',
        'What to do',
        guide.todo.en,
        '',
        `In the panel, page “${guide.page.pl}” (${guide.page.en}):`,
        panelLink,
        '',
        'This alert explained in the handbook:',
        handbookLink,
        '',
        'Regards,',
        `dg-offers — sent automatically${when ? ` on ${when}` : ''} (alert no. ${alert.id}); no need to reply.`,
      ].join('\n'),
    }
  }
  return {
    subject: `[dg-offers] ${severity.pl}: ${title} (${day})`,
    text: [
      'Dzień dobry,',
      '',
      `${severity.lead.pl}${title} — dzień ${day}${alert.developer_name ? `, zbiór dewelopera ${alert.developer_name}` : ''}.`,
      '',
      'Co się stało',
      polishDates(alert.message_pl),
      '',
      'Co zrobić',
      guide.todo.pl,
      '',
      `W panelu, na stronie „${guide.page.pl}”:`,
      panelLink,
      '',
      'Opis tego alertu w podręczniku:',
      handbookLink,
      '',
      'Pozdrawiamy,',
      `dg-offers — wiadomość wysłana automatycznie${when ? ` ${when}` : ''} (alert nr ${alert.id}); nie trzeba na nią odpowiadać.`,
    ].join('\n'),
  }
}
