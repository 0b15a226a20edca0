// Help from each view: a link to its page of the operator's handbook (docs/operator/), which the
// service serves beside the panel, or DG_HANDBOOK_URL when the company keeps its own copy.
import { h } from '../dom.js'
import { tr } from '../i18n.js'

/** The handbook page of each view (route → file). */
export const HELP_PAGES = {
  status: 'codzienna-praca.md',
  publikacja: 'publikacja.md',
  historia: 'publikacja.md',
  raport: 'import.md',
  'audyt-publikacji': 'kontrola.md',
  zrodla: 'zrodla.md',
  inwestycje: 'codzienna-praca.md',
  oferty: 'codzienna-praca.md',
  import: 'import.md',
  ustawienia: 'pierwszy-dzien.md',
  alerty: 'alerty.md',
  'skrzynka-nadawcza': 'konto.md',
  licencja: 'prawo.md',
  webhook: 'import.md',
  uzytkownicy: 'pierwszy-dzien.md',
  audyt: 'kontrola.md',
  'zmiana-cen': 'codzienna-praca.md',
  'ceny-na-stronie': 'strona-www.md',
  platforma: 'platforma.md',
}

export function handbookUrl(page = 'README.md') {
  const base = document.querySelector('meta[name="dg-handbook-base"]')?.getAttribute('content') || './podrecznik/'
  return `${base}${page}`
}

/** "Pomoc" linking to the view's handbook page, opened beside the panel. */
export function helpLink(route) {
  const page = HELP_PAGES[route] ?? 'README.md'
  return h(
    'a',
    {
      class: 'help-link',
      href: handbookUrl(page),
      target: '_blank',
      rel: 'noopener',
      dataset: { help: page },
      title: tr('Podręcznik operatora: ta część', 'Operator’s handbook: this part'),
    },
    tr('Pomoc', 'Help'),
  )
}
