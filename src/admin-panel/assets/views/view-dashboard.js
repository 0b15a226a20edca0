// Pulpit (dashboard): GET {base}/dashboard — is today's legal duty done, when the schedule runs
// next, the last publications, what the catalog lacks for the official file, recent imports, the
// webhook's activity, the licence and the alerts — refreshed every 30 s while shown. Not licence-
// gated, so it also answers in continuity mode.
import {
  badge,
  externalLink,
  facts,
  formatDate,
  formatNumber,
  formatWhen,
  h,
  mono,
  replaceChildren,
  sleep,
} from '../dom.js'
import { offerStatusLabel } from '../editor/editor-labels.js'
import { tr } from '../i18n.js'
import { actorLabel, jobStatusLabel, licenseLabel, runByLabel, triggerLabel } from '../messages.js'
import { alertBox, card, errorBox, issuesList, technicalDetails } from '../ui.js'
import { scheduleInWords } from '../fields/schedule-field.js'
import { alertCauseLabel } from './audit-labels.js'
import { alertFixLinks, fixLinks, issueFixLinks } from '../operator/fix-links.js'
import { sourcesNotice } from './view-sources.js'

const REFRESH_MS = 30_000

const DAY_STATUS = {
  published: ['opublikowano', 'published', 'ok'],
  failed: ['publikacja nie powiodła się', 'the publication failed', 'error'],
  pending: ['czeka na publikację', 'waiting for the publication', 'warn'],
  not_configured: ['brak danych dewelopera', 'no developer data yet', 'warn'],
}

const dayBadge = (status) => {
  const [pl, en, tone] = DAY_STATUS[status] ?? [status, status, 'neutral']
  const element = badge(tr(pl, en), tone)
  element.dataset.status = status
  return element
}

/** Why the webhook refused deliveries, by code, in words. */
const WEBHOOK_REFUSALS = {
  invalid_auth: ['brak lub błąd nagłówków', 'headers missing or malformed'],
  expired_timestamp: ['czas nadawcy różni się o ponad 5 minut', 'sender’s clock off by more than 5 minutes'],
  invalid_signature: ['zły podpis (inny klucz lub zmieniona treść)', 'wrong signature (another key or altered body)'],
  replay: ['powtórzone wysłanie tej samej próby', 'the same attempt sent again'],
  pro_feature_required: ['brak licencji PRO', 'no PRO licence'],
  invalid_json: ['treść nie jest obiektem JSON', 'the body is not a JSON object'],
  invalid_payload: ['treść bez wymaganych pól', 'the body lacks required fields'],
  webhook_in_progress: ['poprzednia próba jeszcze trwa', 'the previous attempt is still running'],
  idempotency_body_conflict: ['ten sam klucz z inną treścią', 'the same key with another body'],
  unsupported_property_structure: ['zagnieżdżone dane', 'nested data'],
  validation_failed: ['błędne dane oferty', 'invalid offer data'],
  webhook_import_failed: ['zapis odrzucony', 'the write was refused'],
  recovery_required: ['wynik wymaga sprawdzenia', 'the outcome needs checking'],
  execution_storage_unavailable: ['baza chwilowo niedostępna', 'storage unavailable for a moment'],
}

const refusalLabel = (code) => {
  const pair = WEBHOOK_REFUSALS[code]
  return pair ? tr(pair[0], pair[1]) : code
}

function todayCard(today, publicBaseUrl) {
  const intro =
    today.status === 'published'
      ? tr('Dzisiejszy plik jest opublikowany.', 'Today’s file is published.')
      : today.status === 'failed'
        ? tr(
            'Dzisiejsza publikacja nie powiodła się. Portal nadal pobiera poprzednią poprawną wersję plików.',
            'Today’s publication failed. The portal still fetches the previous valid version of the files.',
          )
        : today.status === 'pending'
          ? tr(
              'Dzisiejszy plik nie został jeszcze opublikowany (zrobi to harmonogram albo przycisk w sekcji Publikacja).',
              'Today’s file is not published yet (the schedule will, or the button in Publication).',
            )
          : tr(
              'Najpierw wpisz dane dewelopera (kolumny 1–28) w Ustawieniach.',
              'First enter the developer’s data (columns 1–28) in Settings.',
            )
  return h(
    'section',
    {
      class: `card today today-${today.status}`,
      id: 'today',
      dataset: { status: today.status },
    },
    h(
      'div',
      { class: 'today-head' },
      h('h2', {}, tr(`Dzisiaj, ${formatDate(today.date)}`, `Today, ${formatDate(today.date)}`)),
      dayBadge(today.status),
    ),
    h(
      'p',
      { class: 'lead' },
      intro,
      today.status === 'not_configured'
        ? [' ', fixLinks([{ href: '#/ustawienia/deweloper', label: tr('Dane dewelopera', 'Developer data') }])]
        : null,
    ),
    today.datasets.map((dataset) =>
      h(
        'div',
        { class: 'today-dataset', dataset: { developer: String(dataset.developer_id), status: dataset.status } },
        today.datasets.length > 1 ? h('h3', {}, dataset.developer_name, ' ', dayBadge(dataset.status)) : null,
        dataset.published
          ? facts([
              [tr('Opublikowano', 'Published at'), formatWhen(dataset.published.finished_at)],
              [tr('Wiersze pliku', 'Rows of the file'), formatNumber(dataset.published.record_count)],
              [tr('Uruchomił', 'Run by'), runByLabel(dataset.published.actor, dataset.published.trigger)],
              [
                tr('Plik dnia', 'The day’s file'),
                dataset.published.csv
                  ? externalLink(dataset.published.csv.served_path, dataset.published.csv.file_name)
                  : '—',
              ],
            ])
          : null,
        dataset.failure
          ? h(
              'div',
              { class: 'stack', id: 'publication-failure' },
              facts([
                [tr('Próba', 'Attempt'), formatWhen(dataset.failure.finished_at)],
                [tr('Uruchomił', 'Run by'), runByLabel(dataset.failure.actor, dataset.failure.trigger)],
              ]),
              h('h3', {}, tr('Co poprawić', 'What to correct')),
              issuesList(dataset.failure.issues, 'issues', (issue) => fixLinks(issueFixLinks(issue))),
              h(
                'p',
                {},
                tr('Po poprawieniu opublikuj ponownie w sekcji ', 'Once corrected, publish again in '),
                h('a', { href: '#/publikacja' }, tr('Publikacja', 'Publication')),
                '.',
              ),
            )
          : null,
      ),
    ),
    publicBaseUrl
      ? null
      : h(
          'p',
          { class: 'field-error' },
          tr(
            'Nie ustawiono publicznego adresu plików: publikacja zostanie odrzucona. Ustaw go w ',
            'The public address of the files is not set: the publication will be refused. Set it in ',
          ),
          h('a', { href: '#/ustawienia/publikacja', class: 'fix-link' }, tr('Ustawieniach', 'Settings')),
          '.',
        ),
  )
}

function scheduleCard(dashboard) {
  const next = dashboard.schedule.next_run_at
  return card(
    tr('Harmonogram', 'Schedule'),
    facts([
      [
        tr('Publikacja', 'Publication'),
        h(
          'span',
          { id: 'schedule-words' },
          scheduleInWords(dashboard.schedule.pattern) ?? mono(dashboard.schedule.pattern),
          tr(' (czas polski)', ' (Polish time)'),
        ),
      ],
      [tr('Następne uruchomienie', 'Next run'), next ? h('strong', { id: 'next-run' }, formatWhen(next)) : '—'],
      [
        tr('Publiczny adres plików', 'Public address of the files'),
        dashboard.public_base_url
          ? externalLink(dashboard.public_base_url)
          : badge(tr('nie ustawiony', 'not set'), 'error'),
      ],
    ]),
    h(
      'p',
      { class: 'hint' },
      tr(
        'Harmonogram działa także bez licencji (tryb ciągłości): obowiązek publikacji nie znika.',
        'The schedule also runs without a licence (continuity mode): the duty to publish does not stop.',
      ),
    ),
    technicalDetails(
      facts([[tr('Wzorzec harmonogramu (cron)', 'Schedule pattern (cron)'), mono(dashboard.schedule.pattern)]]),
    ),
  )
}

function lastPublicationsCard(publications) {
  if (publications.length === 0)
    return card(
      tr('Ostatnie publikacje', 'Last publications'),
      h('p', { class: 'muted', id: 'no-publication' }, tr('Jeszcze nic nie opublikowano.', 'Nothing published yet.')),
    )
  return card(
    tr('Ostatnie publikacje', 'Last publications'),
    h(
      'div',
      { class: 'table-wrap', id: 'last-publication' },
      h(
        'table',
        { class: 'table compact' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', {}, tr('Dzień danych (kiedy)', 'Data day (when)')),
            h('th', {}, tr('Wynik', 'Outcome')),
            h('th', { class: 'number' }, tr('Wiersze', 'Rows')),
            h('th', {}, tr('Sposób', 'How')),
          ),
        ),
        h(
          'tbody',
          {},
          publications.map((p) =>
            h(
              'tr',
              { dataset: { status: p.status } },
              h(
                'td',
                {},
                formatDate(p.date),
                h('br'),
                h('small', { class: 'muted' }, formatWhen(p.finished_at ?? p.started_at)),
              ),
              h(
                'td',
                {},
                p.status === 'published'
                  ? badge(tr('opublikowano', 'published'), 'ok')
                  : badge(tr('błąd', 'failed'), 'error'),
              ),
              h('td', { class: 'number' }, p.record_count === null ? '—' : formatNumber(p.record_count)),
              h('td', {}, triggerLabel(p.trigger)),
            ),
          ),
        ),
      ),
    ),
    h('p', {}, h('a', { href: '#/historia' }, tr('Cała historia publikacji →', 'The whole publication history →'))),
  )
}

function catalogCard(catalog) {
  const statuses = Object.entries(catalog.offers_by_status)
  return card(
    tr('Katalog', 'Catalog'),
    facts([
      [tr('Oferty', 'Offers'), h('strong', {}, formatNumber(catalog.offers_total))],
      ...statuses.map(([code, count]) => [`— ${offerStatusLabel(code)}`, formatNumber(count)]),
      [
        tr('Inwestycje (opublikowane / wszystkie)', 'Investments (published / all)'),
        `${formatNumber(catalog.investments_published)} / ${formatNumber(catalog.investments_total)}`,
      ],
    ]),
    catalog.offers_without_type > 0
      ? alertBox(
          'warning',
          tr(
            `Oferty bez rodzaju: ${formatNumber(catalog.offers_without_type)} — nie trafiają do pliku urzędowego.`,
            `Offers without a type: ${formatNumber(catalog.offers_without_type)} — left out of the official file.`,
          ),
          h(
            'p',
            {},
            h(
              'a',
              { href: '#/oferty?without_type=true' },
              tr('Nadaj im rodzaj (mieszkanie lub dom) →', 'Give them a type (flat or house) →'),
            ),
          ),
        )
      : null,
    catalog.investments_without_location + catalog.investments_without_prospectus > 0
      ? alertBox(
          'warning',
          tr(
            `Inwestycje z niepełną lokalizacją: ${formatNumber(catalog.investments_without_location)}, bez prospektu: ${formatNumber(catalog.investments_without_prospectus)}.`,
            `Investments with an incomplete location: ${formatNumber(catalog.investments_without_location)}, without a prospectus: ${formatNumber(catalog.investments_without_prospectus)}.`,
          ),
          h(
            'ul',
            { id: 'incomplete-investments' },
            catalog.incomplete_investments.map((investment) =>
              h(
                'li',
                {},
                h('a', { href: `#/ustawienia/lokalizacje?inwestycja=${investment.id}` }, investment.title),
                ': ',
                [
                  investment.location_missing ? tr('lokalizacja', 'location') : null,
                  investment.prospectus_missing ? tr('prospekt', 'prospectus') : null,
                ]
                  .filter(Boolean)
                  .join(', '),
              ),
            ),
          ),
        )
      : null,
  )
}

function importsCard(imports) {
  return card(
    tr('Ostatnie importy', 'Recent imports'),
    imports.length === 0
      ? h(
          'p',
          { class: 'muted' },
          tr('Brak wykonanych importów z ostatnich 7 dni.', 'No imports executed in the last 7 days.'),
        )
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'table compact', id: 'recent-imports' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', {}, tr('Kiedy', 'When')),
                h('th', {}, tr('Plik', 'File')),
                h('th', {}, tr('Rodzaj', 'Kind')),
                h('th', {}, tr('Stan', 'State')),
                h('th', {}, tr('Kto', 'Who')),
              ),
            ),
            h(
              'tbody',
              {},
              imports.map((job) =>
                h(
                  'tr',
                  {},
                  h('td', {}, formatWhen(job.created_at)),
                  h('td', { class: 'wrap' }, job.file_name),
                  h(
                    'td',
                    {},
                    job.type === 'report' ? tr('raport urzędowy', 'official report') : tr('oferty', 'offers'),
                  ),
                  h('td', {}, jobStatusLabel(job.status)),
                  h('td', {}, actorLabel(job.operator)),
                ),
              ),
            ),
          ),
        ),
  )
}

function webhookCard(days) {
  const refusals = (day) => Object.entries(day.refused)
  const any = days.some((d) => d.accepted + d.replayed + refusals(d).length > 0)
  return card(
    tr('Zmiany ofert przysłane z CRM (7 dni)', 'Offer changes sent by the CRM (7 days)'),
    !any
      ? h('p', { class: 'muted' }, tr('Brak zdarzeń w ostatnich 7 dniach.', 'No events in the last 7 days.'))
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'table compact', id: 'webhook-activity' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', {}, tr('Dzień', 'Day')),
                h('th', { class: 'number' }, tr('Przyjęte', 'Accepted')),
                h(
                  'th',
                  { class: 'number', title: tr('ponowienia tego samego zdarzenia', 'repeats of the same event') },
                  tr('Powtórzone', 'Repeated'),
                ),
                h('th', {}, tr('Odrzucone (powód)', 'Refused (why)')),
              ),
            ),
            h(
              'tbody',
              {},
              days.map((day) =>
                h(
                  'tr',
                  { dataset: { day: day.day } },
                  h('td', {}, formatDate(day.day)),
                  h('td', { class: 'number' }, formatNumber(day.accepted)),
                  h('td', { class: 'number' }, formatNumber(day.replayed)),
                  h(
                    'td',
                    {},
                    refusals(day).length === 0
                      ? '—'
                      : h(
                          'ul',
                          { class: 'plain' },
                          refusals(day).map(([code, count]) =>
                            h('li', { dataset: { code } }, `${formatNumber(count)} × ${refusalLabel(code)}`),
                          ),
                        ),
                  ),
                ),
              ),
            ),
          ),
        ),
    any
      ? h(
          'p',
          { class: 'hint' },
          tr(
            '„Powtórzone” to ponowne wysłanie zdarzenia już zapisanego: nic nie zapisuje się drugi raz.',
            '“Repeated” is an event sent again after it was saved: nothing is written twice.',
          ),
        )
      : null,
  )
}

function licenceCard(license) {
  return card(
    tr('Licencja i tryb pracy', 'Licence and mode'),
    facts([
      [tr('Licencja', 'Licence'), badge(licenseLabel(license.status), license.status === 'active' ? 'ok' : 'warn')],
      [
        tr('Tryb', 'Mode'),
        license.continuity_mode
          ? badge(tr('tryb ciągłości', 'continuity mode'), 'warn')
          : badge(tr('pełny', 'full'), 'ok'),
      ],
      [
        tr('Ważna do', 'Valid until'),
        license.valid_until ? formatDate(license.valid_until) : tr('bezterminowo', 'no end date'),
      ],
    ]),
    technicalDetails(
      facts([
        [tr('Plan', 'Plan'), license.plan ?? '—'],
        [tr('Uprawnienia', 'Entitlements'), license.entitlements.join(', ') || '—'],
      ]),
    ),
  )
}

/** 2026-11-20 → 20.11.2026 in a message's text (not inside a file's name). */
const withPolishDates = (text) => String(text).replace(/(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?![\w-]|\.\w)/g, '$3.$2.$1')

function alertsCard(alerts) {
  if (!alerts || alerts.length === 0) return null
  return card(
    tr('Alerty (7 dni)', 'Alerts (7 days)'),
    h(
      'ul',
      { class: 'issues', id: 'alerts' },
      alerts.map((alert) =>
        h(
          'li',
          { dataset: { code: alert.cause } },
          h(
            'span',
            { class: 'issue-text' },
            h('strong', {}, alertCauseLabel(alert.cause)),
            ` — ${formatDate(alert.day)}: `,
            withPolishDates(tr(alert.message_pl, alert.message_en)),
            alertFixLinks(alert).length > 0 ? [' ', fixLinks(alertFixLinks(alert))] : null,
          ),
        ),
      ),
    ),
  )
}

export async function renderDashboard(root, { api, signal }) {
  const updated = h('span', { class: 'muted' })
  const refresh = h('button', { class: 'button button-quiet', type: 'button', id: 'refresh' }, tr('Odśwież', 'Refresh'))
  const body = h('div', { class: 'stack' })
  root.append(
    h(
      'div',
      { class: 'page-header' },
      h('h1', {}, tr('Pulpit', 'Dashboard')),
      h('div', { class: 'row' }, updated, refresh),
    ),
    body,
  )

  async function load() {
    const { body: dashboard } = await api.get('/dashboard', { signal })
    if (signal.aborted) return
    replaceChildren(
      body,
      dashboard.license.continuity_mode
        ? alertBox(
            'warning',
            tr('Tryb ciągłości: licencja nie jest aktywna.', 'Continuity mode: the licence is not active.'),
            h(
              'p',
              {},
              tr(
                'Dzienna publikacja działa dalej; funkcje PRO (import ofert, webhook, publikacja przyciskiem) są niedostępne.',
                'The daily publication goes on; PRO functions (offer import, webhook, publishing with the button) are unavailable.',
              ),
              ' ',
              fixLinks([{ href: '#/licencja', label: tr('Licencja', 'Licence') }]),
            ),
          )
        : null,
      todayCard(dashboard.today, dashboard.public_base_url),
      sourcesNotice(dashboard.sources),
      alertsCard(dashboard.alerts),
      h(
        'div',
        { class: 'grid' },
        scheduleCard(dashboard),
        lastPublicationsCard(dashboard.last_publications),
        catalogCard(dashboard.catalog),
        licenceCard(dashboard.license),
        importsCard(dashboard.recent_imports),
        webhookCard(dashboard.webhook.days),
      ),
    )
    updated.textContent = tr(
      `Stan z ${formatWhen(dashboard.generated_at, { seconds: true })}`,
      `As of ${formatWhen(dashboard.generated_at, { seconds: true })}`,
    )
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
