// Dziennik zdarzeń (audit log): GET {base}/audit, newest first, paged, filtered by who, action,
// object, channel, outcome and days (Warsaw), each entry's details folded beneath it. The API masks
// anything that looks like a secret; the panel shows only what it gets.
import { badge, formatWhen, h, mono } from '../dom.js'
import { tr } from '../i18n.js'
import { actorLabel, triggerLabel } from '../messages.js'
import { dateInput, isoDate } from '../fields/date-input.js'
import { card, formField, pagedTable } from '../ui.js'
import {
  actionLabel,
  alertCauseLabel,
  detailKeyLabel,
  filesOfJobs,
  importModeLabel,
  OBJECTS,
  objectLabel,
  objectText,
  polishDate,
} from './audit-labels.js'

const CHANNELS = {
  panel: ['panel (sesja)', 'panel (session)'],
  api: ['API (hasło aplikacji)', 'API (application password)'],
  webhook: ['webhook z CRM', 'webhook from the CRM'],
  scheduler: ['harmonogram', 'schedule'],
  cli: ['polecenie dg', 'dg command'],
  system: ['usługa', 'service'],
}
const channelLabel = (code) => (CHANNELS[code] ? tr(...CHANNELS[code]) : code)

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

/** A detail value as text: days and instants as Polish dates, scalars as they are, lists and objects as compact JSON. */
function detailValue(key, value) {
  if (key === 'trigger' && typeof value === 'string') return triggerLabel(value)
  if (key === 'cause' && typeof value === 'string') return alertCauseLabel(value)
  if (key === 'mode' && typeof value === 'string') return importModeLabel(value)
  if (value === null || value === undefined) return '—'
  if (typeof value === 'boolean') return value ? tr('tak', 'yes') : tr('nie', 'no')
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value))
    return formatWhen(value, { seconds: true })
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return polishDate(value)
  if (typeof value === 'object') return mono(JSON.stringify(value))
  return String(value)
}

function detailsCell(entry) {
  const pairs = Object.entries(entry.details ?? {})
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
      pairs.map(([key, value]) => [h('dt', {}, detailKeyLabel(key)), h('dd', {}, detailValue(key, value))]),
      h('dt', {}, tr('Kod zdarzenia', 'Event code')),
      h('dd', {}, mono(entry.action)),
      entry.object_id ? [h('dt', {}, tr('Id obiektu', 'Object id')), h('dd', {}, mono(entry.object_id))] : null,
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

  /** The files of the import jobs on the page (an entry without one is named by its job's other entries). */
  let knownFiles = new Map()
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
        render: (e) => h('span', { class: 'audit-action' }, actionLabel(e.action)),
      },
      {
        label: tr('Czego dotyczy', 'Object'),
        render: (e) => objectText(e, knownFiles) ?? '—',
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
      knownFiles = filesOfJobs(body.items)
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
