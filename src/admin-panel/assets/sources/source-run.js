// A run's page (#/zrodla/przebieg/ID): what stopped it, its plan before → after per offer, how long
// the plan is kept, and "Zastosuj" / "Odrzuć" for a held run.
import { facts, formatBytes, formatDateTime, formatNumber, h, mono, replaceChildren } from '../dom.js'
import { plural } from '../operator/plural.js'
import { tr } from '../i18n.js'
import { alertBox, card, confirmDialog, errorBox, technicalDetails, toast } from '../ui.js'
import {
  ACTIONS,
  DECISION_GUARDS,
  FAILURES,
  fieldLabel,
  flaggedAction,
  flaggedValue,
  guardLine,
  outcomeBadge,
  valueText,
  planText,
} from './source-texts.js'

export async function renderRun(page, { api, signal, id }) {
  const { body } = await api.get(`/source-runs/${id}?per_page=200`, { signal })
  const { run, plan } = body
  page.append(
    h('p', {}, h('a', { href: '#/zrodla' }, tr('← Źródła ofert', '← Offer sources'))),
    h(
      'div',
      { class: 'page-header' },
      h('h1', {}, tr(`Przebieg ${run.id}`, `Run ${run.id}`), ' ', outcomeBadge(run.outcome)),
    ),
  )
  const summary = run.summary ?? {}
  page.append(
    card(
      null,
      facts([
        [tr('Początek', 'Started'), formatDateTime(run.started_at)],
        [tr('Koniec', 'Finished'), formatDateTime(run.finished_at)],
        [
          tr('Uruchomiony', 'Triggered'),
          run.trigger === 'schedule' ? tr('z harmonogramu', 'by the schedule') : tr('ręcznie', 'by hand'),
        ],
        [
          tr('Pobrany plik', 'Fetched file'),
          run.bytes === null ? '—' : `${formatBytes(run.bytes)}, HTTP ${run.http_status}`,
        ],
        [tr('Suma kontrolna (SHA-256)', 'Checksum (SHA-256)'), mono(run.content_sha256)],
        [
          tr('Wiersze', 'Rows'),
          summary.rows === undefined
            ? '—'
            : `${formatNumber(summary.rows)}${summary.errors_total ? tr(`, błędnych ${summary.errors_total}`, `, ${summary.errors_total} invalid`) : ''}`,
        ],
        [tr('Plan', 'Plan'), planText(summary)],
        run.decided_by
          ? [tr('Decyzja', 'Decision'), `${run.decided_by.name}, ${formatDateTime(run.decided_at)}`]
          : null,
      ]),
    ),
  )
  if (run.failure) {
    const [pl, en] = FAILURES[run.failure.code] ?? [run.failure.code, run.failure.code]
    page.append(
      alertBox(
        'error',
        tr(pl, en),
        run.failure.message_pl
          ? h('p', { class: 'network-error' }, tr(run.failure.message_pl, run.failure.message_en))
          : '',
        technicalDetails(h('p', {}, `${run.failure.code}: ${run.failure.message}`)),
      ),
    )
  }
  if (run.guards.length > 0) {
    page.append(
      alertBox(
        run.outcome === 'held' ? 'warning' : 'info',
        run.outcome === 'held'
          ? tr('Przebieg wstrzymano: nic nie zapisano. Powody:', 'The run was held: nothing was written. Why:')
          : tr('Powody, dla których przebieg czekał na decyzję:', 'Why this run waited for a decision:'),
        h('ul', { id: 'run-guards' }, run.guards.map(guardLine)),
      ),
    )
    const flagged = run.guards.flatMap((g) => g.offers.map((offer) => ({ ...offer, guard: g.guard })))
    if (flagged.length > 0)
      page.append(
        card(
          run.guards.some((g) => DECISION_GUARDS.has(g.guard))
            ? tr('Lokale, przy których przebieg wstrzymano', 'Units the run was held at')
            : tr('Oferty, przy których zadziałały limity', 'Offers the limits stopped at'),
          changesTable(
            'flagged-offers',
            flagged.map((o) => ({
              key: o.key,
              unit: o.unit,
              offerId: o.offer_id,
              action: flaggedAction(o),
              field: fieldLabel(o.field),
              before: flaggedValue(o.field, o.before, o.before_from),
              after:
                flaggedValue(o.field, o.after, o.after_from) +
                (o.change_pct === undefined
                  ? ''
                  : tr(` (zmiana o ${o.change_pct}%)`, ` (a change of ${o.change_pct}%)`)),
            })),
          ),
        ),
      )
  }
  if (summary.errors?.length > 0)
    page.append(
      card(
        tr('Błędy w pliku', 'Errors in the file'),
        h(
          'ul',
          {},
          summary.errors.map((e) =>
            h('li', {}, tr(`wiersz ${e.row}: ${e.message_pl ?? e.code}`, `row ${e.row}: ${e.message ?? e.code}`)),
          ),
        ),
      ),
    )
  if (run.outcome === 'held') page.append(decisionCard(api, run, () => rerenderRun(page, { api, signal, id })))
  const rows = []
  for (const item of plan.items)
    if (item.action === 'update')
      for (const field of item.changes)
        rows.push({
          key: item.key,
          action: tr(...ACTIONS.update),
          field: fieldLabel(field),
          before: valueText(field, item.before[field]),
          after: valueText(field, item.values[field]),
        })
    else
      rows.push({
        key: item.key,
        action: tr(...(ACTIONS[item.action] ?? [item.action, item.action])),
        field: item.action === 'archive' ? fieldLabel('property_status') : '',
        before: '',
        after: '',
      })
  page.append(
    card(
      tr('Plan: przed → po', 'Plan: before → after'),
      planKept(plan),
      plan.available
        ? rows.length > 0
          ? [
              changesTable('plan-changes', rows),
              plan.total_items > plan.per_page
                ? h(
                    'p',
                    { class: 'muted' },
                    tr(
                      `Pokazano pierwsze ${plan.per_page} pozycji planu z ${plan.total_items}.`,
                      `The first ${plan.per_page} of ${plan.total_items} plan items are shown.`,
                    ),
                  )
                : null,
            ]
          : h('p', { class: 'muted' }, tr('Plan nie zmienia żadnej oferty.', 'The plan changes no offer.'))
        : null,
    ),
  )
}

/**
 * How long the run's plan is kept, from the plan's own expiry: the run made none, it is kept
 * until a time, or it expired (only once that time has passed).
 */
function planKept(plan) {
  const hours = plan.retention_hours ?? 24
  const kept = tr(
    `Plan, którego nikt nie zastosował, jest przechowywany ${plural(hours, ['godzinę', 'godziny', 'godzin'], 'pl')} od przebiegu.`,
    `A plan nobody applied is kept ${plural(hours, ['hour', 'hours'], 'en')} after the run.`,
  )
  if (plan.state === 'none')
    return h(
      'p',
      { class: 'muted', id: 'plan-kept', dataset: { state: 'none' } },
      tr(
        'Ten przebieg nie przygotował planu zmian: plik nie został pobrany, nie zmienił się od poprzedniego przebiegu albo nie dał się wczytać.',
        'This run made no plan: the file was not fetched, had not changed since the previous run, or could not be read.',
      ),
    )
  if (plan.state === 'expired')
    return h(
      'p',
      { class: 'muted', id: 'plan-kept', dataset: { state: 'expired' } },
      plan.expires_at
        ? tr(
            `Plan tego przebiegu wygasł ${formatDateTime(plan.expires_at)}. `,
            `This run's plan expired on ${formatDateTime(plan.expires_at)}. `,
          )
        : tr('Plan tego przebiegu już usunięto. ', "This run's plan has been removed. "),
      kept,
    )
  return h(
    'p',
    { class: 'muted', id: 'plan-kept', dataset: { state: 'available' } },
    plan.expires_at
      ? tr(
          `Plan jest dostępny do ${formatDateTime(plan.expires_at)}.`,
          `The plan is available until ${formatDateTime(plan.expires_at)}.`,
        )
      : '',
  )
}

function rerenderRun(page, context) {
  replaceChildren(page)
  return renderRun(page, context).catch((error) => page.append(errorBox(error)))
}

function changesTable(id, rows) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table', id },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          [
            tr('Oferta', 'Offer'),
            tr('Zmiana', 'Change'),
            tr('Pole', 'Field'),
            tr('Przed', 'Before'),
            tr('Po', 'After'),
          ].map((t) => h('th', {}, t)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((row) =>
          h(
            'tr',
            {},
            h('td', {}, row.unit ? unitCell(row) : mono(row.key.replaceAll('/', ' / '))),
            h('td', {}, row.action),
            h('td', {}, row.field),
            h('td', {}, row.before),
            h('td', {}, h('strong', {}, row.after)),
          ),
        ),
      ),
    ),
  )
}

/** A unit by its designation, linked to its page in the editor, with the source's key beneath. */
function unitCell(row) {
  const name = row.offerId ? h('a', { href: `#/oferty/${row.offerId}` }, row.unit) : row.unit
  return [h('strong', {}, name), h('br'), mono(row.key.replaceAll('/', ' / '))]
}

function decisionCard(api, run, reload) {
  const apply = h(
    'button',
    { class: 'button button-primary', type: 'button', id: 'apply-run' },
    tr('Zastosuj', 'Apply'),
  )
  const reject = h(
    'button',
    { class: 'button button-danger', type: 'button', id: 'reject-run' },
    tr('Odrzuć', 'Reject'),
  )
  const decide = async (verb) => {
    const ok = await confirmDialog({
      title:
        verb === 'apply'
          ? tr('Zastosować zmiany z pliku?', 'Apply the changes from the file?')
          : tr('Odrzucić zmiany z pliku?', 'Reject the changes from the file?'),
      body: [
        verb === 'apply'
          ? tr(
              'Plan zostanie zapisany w katalogu z historią cen, tak jak import ofert. Jutrzejsza publikacja pokaże nowe ceny.',
              'The plan is written to the catalog with price history, as an offer import. The next publication shows the new prices.',
            )
          : tr(
              'Nic nie zostanie zapisane. Popraw plik u źródła; kolejny przebieg pobierze go ponownie po zmianie.',
              'Nothing is written. Fix the file at its source; the next run fetches it again once it changes.',
            ),
      ],
      okLabel: verb === 'apply' ? tr('Zastosuj', 'Apply') : tr('Odrzuć', 'Reject'),
      danger: verb === 'reject',
    })
    if (!ok) return
    apply.disabled = true
    reject.disabled = true
    try {
      await api.post(`/source-runs/${run.id}/${verb}`)
      toast(
        verb === 'apply'
          ? tr('Zmiany zapisano.', 'The changes were written.')
          : tr('Zmiany odrzucono.', 'The changes were rejected.'),
      )
      await reload()
    } catch (error) {
      toast(error.message || String(error), 'error')
      apply.disabled = false
      reject.disabled = false
    }
  }
  apply.addEventListener('click', () => void decide('apply'))
  reject.addEventListener('click', () => void decide('reject'))
  return card(
    tr('Decyzja', 'Decision'),
    h(
      'p',
      {},
      tr(
        'Sprawdź zmiany poniżej. Dopóki nie zdecydujesz, katalog i publikacja pozostają bez tych zmian.',
        'Check the changes below. Until you decide, the catalog and the publication stay without them.',
      ),
    ),
    h('div', { class: 'actions' }, apply, reject),
  )
}
