// Dashboard: GET {base}/status (licence, mode, last publication, last failure) and
// GET {base}/publication/settings (schedule, public address), refreshed every 30 s while shown.
import {
  badge,
  externalLink,
  facts,
  formatDateTime,
  formatNumber,
  h,
  mono,
  nextDailyRun,
  replaceChildren,
  sleep,
} from './dom.js'
import { LICENSE_LABELS, TRIGGER_LABELS } from './messages.js'
import { alertBox, card, errorBox, issuesList } from './ui.js'

const REFRESH_MS = 30_000

function failureAlert(failure, publishedBefore) {
  return h(
    'section',
    { class: 'alert alert-error alert-large', id: 'publication-failure', role: 'alert' },
    h('h2', { class: 'alert-title' }, `Ostatnia publikacja nie powiodła się (${failure.date})`),
    facts([
      ['Dzień danych', failure.date],
      ['Czas próby', formatDateTime(failure.failed_at)],
      ['Wyzwalacz', TRIGGER_LABELS[failure.trigger] ?? failure.trigger],
    ]),
    issuesList(failure.issues),
    h(
      'p',
      {},
      publishedBefore
        ? 'Portal nadal pobiera poprzednią poprawną wersję plików. Usuń przyczynę i opublikuj ponownie w sekcji '
        : 'Nic jeszcze nie zostało opublikowane. Usuń przyczynę i opublikuj w sekcji ',
      h('a', { href: '#/publikacja' }, 'Publikacja'),
      '.',
    ),
  )
}

function licenceCard(status) {
  return card(
    'Licencja i tryb pracy',
    facts([
      [
        'Licencja',
        badge(
          LICENSE_LABELS[status.license_status] ?? status.license_status,
          status.license_status === 'active' ? 'ok' : 'warn',
        ),
      ],
      ['Tryb', status.continuity_mode ? badge('tryb ciągłości', 'warn') : badge('produkcyjny', 'ok')],
      ['Wersja usługi', status.version],
      ['Standard danych', status.contract_id],
      ['Identyfikator zbioru (extIdent)', mono(status.public_dataset_id)],
    ]),
  )
}

function lastPublicationCard(last) {
  if (!last || !last.date)
    return card(
      'Ostatnia publikacja',
      h('p', { class: 'muted', id: 'no-publication' }, 'Jeszcze nic nie opublikowano.'),
    )
  const files = last.files
  return card(
    'Ostatnia publikacja',
    h(
      'div',
      { id: 'last-publication' },
      facts([
        ['Dzień danych', h('strong', {}, last.date)],
        ['Opublikowano', formatDateTime(last.published_at)],
        ['Liczba wierszy', formatNumber(last.record_count)],
        ['Wyzwalacz', TRIGGER_LABELS[last.trigger] ?? last.trigger],
        ['Wersja', mono(last.version)],
        [
          'Pliki',
          files
            ? h(
                'span',
                { class: 'links' },
                externalLink(files.csv, 'CSV dnia'),
                externalLink(files.xml, 'XML (harvester)'),
                externalLink(files.md5, 'MD5'),
              )
            : '—',
        ],
        ['MD5 pliku XML', mono(last.xml_md5)],
        ['MD5 pliku CSV', mono(last.csv_md5)],
      ]),
    ),
  )
}

function scheduleCard(settings) {
  const next = nextDailyRun(settings.schedule)
  return card(
    'Harmonogram i adres publiczny',
    facts([
      ['Harmonogram', next ? `codziennie o ${next.time} (Europe/Warsaw)` : mono(settings.schedule)],
      [
        'Następne uruchomienie',
        next ? h('strong', { id: 'next-run' }, `${next.date} ${next.time}`) : 'zgodnie ze wzorcem cron',
      ],
      [
        'Adres publiczny plików',
        settings.public_base_url ? externalLink(settings.public_base_url) : badge('nie ustawiony', 'error'),
      ],
      ['URL XML dla portalu', settings.xml_url ? mono(settings.xml_url) : '—'],
      ['URL MD5 dla portalu', settings.md5_url ? mono(settings.md5_url) : '—'],
    ]),
    settings.public_base_url
      ? null
      : h(
          'p',
          { class: 'field-error' },
          'Bez adresu public_base_url (https) publikacja zostanie odrzucona. Ustaw go poleceniem dg publication settings set --public-base-url https://… albo przez PUT /publication/settings.',
        ),
    h(
      'p',
      { class: 'hint' },
      'Harmonogram działa także w trybie ciągłości: obowiązek publikacji nie znika z licencją.',
    ),
  )
}

export async function renderStatus(root, { api, signal }) {
  const updated = h('span', { class: 'muted' })
  const refresh = h('button', { class: 'button button-quiet', type: 'button' }, 'Odśwież')
  const body = h('div', { class: 'stack' })
  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, 'Status'), h('div', { class: 'row' }, updated, refresh)),
    body,
  )

  async function load() {
    const [status, settings] = await Promise.allSettled([
      api.get('/status', { signal }),
      api.get('/publication/settings', { signal }),
    ])
    if (signal.aborted) return
    const parts = []
    if (status.status === 'fulfilled') {
      const s = status.value.body
      if (s.last_publication_failure)
        parts.push(failureAlert(s.last_publication_failure, Boolean(s.last_publication?.date)))
      if (s.continuity_mode)
        parts.push(
          alertBox(
            'warning',
            'Tryb ciągłości: licencja nie jest aktywna.',
            h(
              'p',
              {},
              'Dzienna publikacja działa dalej; funkcje PRO (import, webhook, publikacja przez API) odpowiadają 403.',
            ),
          ),
        )
      parts.push(h('div', { class: 'grid' }, lastPublicationCard(s.last_publication), licenceCard(s)))
    } else if (status.reason?.code === 'pro_feature_required') {
      parts.push(
        alertBox(
          'warning',
          'Tryb ciągłości: status usługi wymaga licencji PRO (api_webhooks).',
          h(
            'p',
            {},
            'Dzienna publikacja z harmonogramu działa dalej; jej wyniki zapisuje log usługi, a pliki są pod /dane-gov/. Licencję instaluje dg license set.',
          ),
        ),
      )
    } else parts.push(errorBox(status.reason))
    parts.push(settings.status === 'fulfilled' ? scheduleCard(settings.value.body) : errorBox(settings.reason))
    replaceChildren(body, parts)
    updated.textContent = `Stan z ${formatDateTime(new Date().toISOString())}`
  }

  refresh.addEventListener('click', () => void load().catch((error) => replaceChildren(body, errorBox(error))))
  await load()
  void (async () => {
    while (!signal.aborted) {
      await sleep(REFRESH_MS, signal)
      if (!signal.aborted) await load().catch(() => undefined)
    }
  })()
}
