// Dziennik zdarzeń (audit log): GET {base}/audit, newest first, paged, filtered by who, action,
// object, channel, outcome and days (Warsaw), each entry's details folded beneath it. The API masks
// anything that looks like a secret; the panel shows only what it gets.
import { badge, formatWhen, h, mono } from '../dom.js'
import { tr } from '../i18n.js'
import { actorLabel, triggerLabel } from '../messages.js'
import { dateInput, isoDate } from '../fields/date-input.js'
import { card, formField, pagedTable } from '../ui.js'

/** action: [Polish, English] */
const ACTIONS = {
  'session.login': ['Logowanie do panelu', 'Panel sign-in'],
  'session.logout': ['Wylogowanie', 'Sign-out'],
  'user.create': ['Dodanie użytkownika', 'User added'],
  'user.role': ['Zmiana roli', 'Role changed'],
  'user.update': ['Zmiana danych użytkownika', 'User data changed'],
  'user.disable': ['Wyłączenie konta', 'Account disabled'],
  'user.enable': ['Włączenie konta', 'Account enabled'],
  'user.password_set': ['Nowe hasło logowania', 'New login password'],
  'app_password.create': ['Utworzenie hasła aplikacji', 'Application password created'],
  'app_password.revoke': ['Unieważnienie hasła aplikacji', 'Application password revoked'],
  'publication.publish': ['Publikacja pliku dnia', 'Day’s file publication'],
  'publication.settings': ['Zmiana ustawień publikacji', 'Publication settings changed'],
  'developer.create': ['Dodanie dewelopera', 'Developer added'],
  'developer.update': ['Zmiana danych dewelopera', 'Developer data changed'],
  'investment.location': ['Zmiana lokalizacji inwestycji', 'Investment location changed'],
  'import.preview': ['Podgląd importu ofert', 'Offer import preview'],
  'import.execute': ['Import ofert', 'Offer import'],
  'import.recovered': ['Przywrócenie przerwanego importu', 'Interrupted import recovered'],
  'report_import.preview': ['Sprawdzenie raportu', 'Report checked'],
  'report_import.confirm': ['Publikacja raportu', 'Report published'],
  'webhook.execute': ['Zdarzenie z CRM (webhook)', 'CRM event (webhook)'],
  'webhook_secret.view': ['Wyświetlenie klucza webhooka', 'Webhook key viewed'],
  'webhook_secret.rotate': ['Nowy klucz webhooka', 'New webhook key'],
  'legacy_generate.key_param': ['Użycie przestarzałego parametru key', 'Deprecated key parameter used'],
  'legacy_generate.key_param_setting': ['Przełączenie parametru key', 'Key parameter switched'],
  'site_option.set': ['Zmiana opcji strony', 'Site option changed'],
  'license.set': ['Instalacja licencji', 'Licence installed'],
  'alert.raise': ['Alert', 'Alert'],
  'alert.deliver': ['Wysłanie alertu', 'Alert sent'],
  'editor.investment.create': ['Dodanie inwestycji', 'Investment added'],
  'editor.investment.update': ['Zmiana inwestycji', 'Investment changed'],
  'editor.investment.delete': ['Usunięcie inwestycji', 'Investment deleted'],
  'editor.offer.create': ['Dodanie oferty', 'Offer added'],
  'editor.offer.update': ['Zmiana oferty', 'Offer changed'],
  'editor.offer.archive': ['Archiwizacja oferty', 'Offer archived'],
  'editor.offer.restore': ['Przywrócenie oferty', 'Offer restored'],
  'editor.offer.component.create': ['Dodanie elementu oferty', 'Offer component added'],
  'editor.offer.component.update': ['Zmiana elementu oferty', 'Offer component changed'],
  'editor.offer.component.delete': ['Usunięcie elementu oferty', 'Offer component deleted'],
  'editor.media.upload': ['Dodanie pliku multimedialnego', 'Media file added'],
  'editor.media.update': ['Zmiana pliku multimedialnego', 'Media file changed'],
  'editor.media.delete': ['Usunięcie pliku multimedialnego', 'Media file deleted'],
  'demo.seed': ['Dane demonstracyjne', 'Demo data'],
  'alerts.settings': ['Zmiana ustawień alertów', 'Alert settings changed'],
  'offers.price_change': ['Zmiana cen wielu ofert', 'Bulk price change'],
  'public_prices.update': ['Zmiana cen na stronie WWW', 'Website prices changed'],
  'session.password_reset_request': ['Prośba o reset hasła', 'Password reset requested'],
  'session.password_reset': ['Reset hasła', 'Password reset'],
  'source.create': ['Dodanie źródła ofert', 'Offer source added'],
  'source.update': ['Zmiana źródła ofert', 'Offer source changed'],
  'source.delete': ['Usunięcie źródła ofert', 'Offer source removed'],
  'source.run': ['Przebieg źródła ofert', 'Offer source run'],
  'source.run.apply': ['Zastosowanie wstrzymanego przebiegu', 'Held run applied'],
  'source.run.reject': ['Odrzucenie wstrzymanego przebiegu', 'Held run rejected'],
}

const actionLabel = (action) => (ACTIONS[action] ? tr(...ACTIONS[action]) : action)

const CHANNELS = {
  panel: ['panel (sesja)', 'panel (session)'],
  api: ['API (hasło aplikacji)', 'API (application password)'],
  webhook: ['webhook z CRM', 'webhook from the CRM'],
  scheduler: ['harmonogram', 'schedule'],
  cli: ['polecenie dg', 'dg command'],
  system: ['usługa', 'service'],
}
const channelLabel = (code) => (CHANNELS[code] ? tr(...CHANNELS[code]) : code)

const OBJECTS = {
  user: ['użytkownik', 'user'],
  publication: ['publikacja', 'publication'],
  developer: ['deweloper', 'developer'],
  investment: ['inwestycja', 'investment'],
  offer: ['oferta', 'offer'],
  import_job: ['zadanie importu', 'import job'],
  webhook_event: ['zdarzenie webhooka', 'webhook event'],
  site_option: ['opcja strony', 'site option'],
  setting: ['ustawienie', 'setting'],
  alert: ['alert', 'alert'],
  license: ['licencja', 'licence'],
  option: ['opcja usługi', 'service option'],
  attachment: ['plik multimedialny', 'media file'],
  alerts: ['ustawienia alertów', 'alert settings'],
  source: ['źródło ofert', 'offer source'],
  source_run: ['przebieg źródła', 'source run'],
}
const objectLabel = (code) => (OBJECTS[code] ? tr(...OBJECTS[code]) : code)

const OUTCOMES = {
  success: ['udane', 'success', 'ok'],
  failure: ['nieudane', 'failure', 'error'],
  refused: ['odmowa', 'refused', 'warn'],
}

function outcomeBadge(code) {
  const [pl, en, tone] = OUTCOMES[code] ?? [code, code, 'neutral']
  const element = badge(tr(pl, en), tone)
  element.dataset.outcome = code
  return element
}

/** A detail value as text: scalars as they are, lists and objects as compact JSON. */
function detailValue(key, value) {
  if (key === 'trigger' && typeof value === 'string') return triggerLabel(value)
  if (value === null || value === undefined) return '—'
  if (typeof value === 'object') return mono(JSON.stringify(value))
  return String(value)
}

function detailsCell(entry) {
  const pairs = Object.entries(entry.details ?? {})
  if (pairs.length === 0 && !entry.actor.credential) return h('span', { class: 'muted' }, '—')
  return h(
    'details',
    { class: 'row-details' },
    h('summary', {}, tr('Szczegóły', 'Details')),
    h(
      'dl',
      { class: 'facts facts-compact' },
      entry.actor.credential
        ? [h('dt', {}, tr('Hasło aplikacji', 'Application password')), h('dd', {}, entry.actor.credential)]
        : null,
      pairs.map(([key, value]) => [h('dt', {}, key), h('dd', {}, detailValue(key, value))]),
      h('dt', {}, tr('Numer wpisu', 'Entry number')),
      h('dd', {}, mono(String(entry.id))),
    ),
  )
}

/** The UTC instant of midnight of a Warsaw calendar day (the dates an operator picks are Polish days). */
function warsawMidnight(day) {
  const guess = Date.parse(`${day}T00:00:00Z`)
  const wall = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Europe/Warsaw',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  })
    .format(new Date(guess))
    .replace(', ', 'T')
  const offset = Date.parse(`${wall}:00Z`) - guess
  return new Date(guess - offset).toISOString()
}

function nextDay(day) {
  return new Date(Date.parse(`${day}T12:00:00Z`) + 24 * 3600 * 1000).toISOString().slice(0, 10)
}

export async function renderAudit(root, { api }) {
  const actor = h('input', { id: 'audit-actor', placeholder: tr('login', 'login'), maxlength: 254 })
  const action = h('select', { id: 'audit-action' }, h('option', { value: '' }, tr('wszystkie', 'all')))
  const objectType = h(
    'select',
    { id: 'audit-object-type' },
    h('option', { value: '' }, tr('każdy', 'any')),
    Object.keys(OBJECTS).map((code) => h('option', { value: code }, objectLabel(code))),
  )
  const objectId = h('input', { id: 'audit-object-id', maxlength: 200 })
  const channel = h(
    'select',
    { id: 'audit-channel' },
    h('option', { value: '' }, tr('każdy', 'any')),
    Object.keys(CHANNELS).map((code) => h('option', { value: code }, channelLabel(code))),
  )
  const outcome = h(
    'select',
    { id: 'audit-outcome' },
    h('option', { value: '' }, tr('każdy', 'any')),
    Object.entries(OUTCOMES).map(([code, [pl, en]]) => h('option', { value: code }, tr(pl, en))),
  )
  const from = dateInput({ id: 'audit-from' })
  const to = dateInput({ id: 'audit-to' })

  const filters = h(
    'form',
    { class: 'filters', id: 'audit-filters' },
    formField({ label: tr('Kto', 'Who'), input: actor, names: 'actor' }),
    formField({ label: tr('Zdarzenie', 'Event'), input: action, names: 'action' }),
    formField({ label: tr('Kanał', 'Channel'), input: channel, names: 'channel' }),
    formField({ label: tr('Wynik', 'Outcome'), input: outcome, names: 'outcome' }),
    formField({ label: tr('Rodzaj obiektu', 'Object type'), input: objectType, names: 'object_type' }),
    formField({ label: tr('Id obiektu', 'Object id'), input: objectId, names: 'object_id' }),
    formField({ label: tr('Od dnia', 'From day'), input: from, names: 'from' }),
    formField({ label: tr('Do dnia (włącznie)', 'To day (inclusive)'), input: to, names: 'until' }),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'button', id: 'audit-apply' }, tr('Pokaż', 'Show')),
    ),
  )

  const table = pagedTable({
    id: 'audit-table',
    state: { perPage: 50 },
    perPageOptions: [20, 50, 100],
    empty: tr('Brak wpisów dla tych warunków.', 'No entry matches.'),
    rowAttributes: (entry) => ({ dataset: { action: entry.action, outcome: entry.outcome, channel: entry.channel } }),
    columns: [
      { label: tr('Kiedy', 'When'), render: (e) => formatWhen(e.occurred_at, { seconds: true }) },
      {
        label: tr('Kto', 'Who'),
        render: (e) => [
          h('strong', {}, actorLabel(e.actor.name)),
          h('br'),
          h('span', { class: 'muted' }, channelLabel(e.channel)),
        ],
      },
      {
        label: tr('Zdarzenie', 'Event'),
        render: (e) => [actionLabel(e.action), h('br'), h('code', { class: 'issue-code' }, e.action)],
      },
      {
        label: tr('Obiekt', 'Object'),
        render: (e) =>
          e.object_type ? [objectLabel(e.object_type), e.object_id ? [' ', mono(e.object_id)] : null] : '—',
      },
      { label: tr('Wynik', 'Outcome'), render: (e) => outcomeBadge(e.outcome) },
      { label: '', className: 'details-cell', render: detailsCell },
    ],
    load: async (state) => {
      const params = new URLSearchParams({ page: String(state.page), per_page: String(state.perPage) })
      if (actor.value.trim()) params.set('actor', actor.value.trim())
      if (action.value) params.set('action', action.value)
      if (channel.value) params.set('channel', channel.value)
      if (outcome.value) params.set('outcome', outcome.value)
      if (objectType.value) params.set('object_type', objectType.value)
      if (objectId.value.trim()) params.set('object_id', objectId.value.trim())
      if (isoDate(from)) params.set('from', warsawMidnight(isoDate(from)))
      if (isoDate(to)) params.set('until', warsawMidnight(nextDay(isoDate(to))))
      const { body } = await api.get(`/audit?${params}`)
      return { items: body.items, total: body.total, totalPages: body.total_pages }
    },
  })
  filters.addEventListener('submit', (event) => {
    event.preventDefault()
    void table.reload({ page: 1 })
  })

  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, tr('Dziennik zdarzeń', 'Audit log'))),
    card(
      null,
      h(
        'p',
        { class: 'lead' },
        tr(
          'Kto, kiedy i czym zrobił co w usłudze — z panelu, przez API, z CRM (webhook), z harmonogramu lub poleceniem dg. Wpisów nie da się zmienić ani usunąć; hasła i klucze nigdy się w nich nie pojawiają.',
          'Who did what in the service, when and how — from the panel, over the API, from the CRM (webhook), by the schedule or a dg command. Entries can be neither changed nor deleted; passwords and keys never appear in them.',
        ),
      ),
      filters,
      table.element,
    ),
  )
  const { body } = await api.get('/audit/actions')
  action.append(
    ...body.actions
      .map((code) => ({ code, label: actionLabel(code) }))
      .sort((a, b) => a.label.localeCompare(b.label))
      .map(({ code, label }) => h('option', { value: code }, label)),
  )
  await table.reload()
}
