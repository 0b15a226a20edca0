// An address the panel does not know (#/something): said so, with the address and the way on,
// instead of silently showing the dashboard.
import { h } from '../dom.js'
import { tr } from '../i18n.js'
import { alertBox } from '../ui.js'

export function renderUnknownAddress(root) {
  const address = decodeURIComponent(location.hash.replace(/^#\/?/, '')) || '—'
  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, tr('Nieznany adres', 'Unknown address'))),
    alertBox(
      'warning',
      tr(`Panel nie ma strony „${address}”.`, `The panel has no page “${address}”.`),
      h(
        'p',
        {},
        tr(
          'Adres mógł zostać źle wpisany albo pochodzi ze starszej wersji panelu. Wybierz sekcję z menu albo ',
          'The address may be mistyped or come from an older version of the panel. Choose a section in the menu or ',
        ),
        h('a', { href: '#/status', id: 'unknown-to-dashboard' }, tr('przejdź na Pulpit', 'go to the Dashboard')),
        '.',
      ),
    ),
  )
}
