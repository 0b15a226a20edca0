// Offer sources pulled on a schedule (REST /sources, /source-runs). The list of sources with their
// latest run, the runs waiting for a decision, the form adding a source (its columns assigned with
// the offer import's fields from the header row of its file, fetched once by the server, the
// import's last assignment offered; its schedule with the publication's day and time picker; a
// self-signed server's certificate pasted for it alone), a source's page to change or delete it
// (#/zrodla/zrodlo/ID), and a run's page (#/zrodla/przebieg/ID): what stopped it (a limit, or an
// operator's decision the file would undo, with the units and their values before → after), its
// plan before → after per offer, and "Zastosuj" / "Odrzuć" for a held run. The form, the run's page
// and the pages' words are in ../sources/.
import { badge, formatDateTime, h, mono, replaceChildren } from '../dom.js'
import { tr } from '../i18n.js'
import { alertBox, card, confirmDialog, errorBox, toast } from '../ui.js'
import { GUARDS, OUTCOMES, outcomeBadge, scheduleText, planText } from '../sources/source-texts.js'
import { sourceForm } from '../sources/source-form.js'
import { renderRun } from '../sources/source-run.js'

export async function renderSources(page, { api, signal }) {
  const parts = location.hash.replace(/^#\/?/, '').split('/')
  if (parts[1] === 'przebieg' && /^\d+$/.test(parts[2] ?? '')) return renderRun(page, { api, signal, id: parts[2] })
  if (parts[1] === 'zrodlo' && /^\d+$/.test(parts[2] ?? '')) return renderSource(page, { api, signal, id: parts[2] })
  page.append(h('div', { class: 'page-header' }, h('h1', {}, tr('Źródła ofert', 'Offer sources'))))
  page.append(
    h(
      'p',
      { class: 'lead' },
      tr(
        'Plik CSV lub XLSX pobierany z adresu (arkusz Google, OneDrive, eksport z CRM) i wczytywany jak import ofert. Zmiany w granicach limitów są zapisywane same; większe, a także te, które cofnęłyby Twoje decyzje z panelu, czekają tu na Twoją decyzję, a publikacja odbywa się z katalogiem w obecnym stanie.',
        'A CSV or XLSX file fetched from an address (Google Sheets, OneDrive, a CRM export) and read like an offer import. Changes within the limits are written by themselves; larger ones, and those that would undo your decisions made in the panel, wait here for your decision, and the publication goes ahead with the catalog as it stands.',
      ),
    ),
  )
  const [{ body: sourcesBody }, { body: heldBody }, { body: runsBody }] = await Promise.all([
    api.get('/sources', { signal }),
    api.get('/source-runs?outcome=held&limit=50', { signal }),
    api.get('/source-runs?limit=30', { signal }),
  ])
  if (heldBody.runs.length > 0)
    page.append(
      alertBox(
        'warning',
        tr(`Czeka na decyzję: ${heldBody.runs.length}`, `Awaiting a decision: ${heldBody.runs.length}`),
        h(
          'ul',
          { id: 'held-runs' },
          heldBody.runs.map((run) =>
            h(
              'li',
              {},
              h(
                'a',
                { href: `#/zrodla/przebieg/${run.id}` },
                `${run.source_name} — ${tr('przebieg', 'run')} ${run.id}`,
              ),
              ` (${formatDateTime(run.started_at)}): `,
              run.guards.map((g) => tr(...(GUARDS[g.guard] ?? [g.guard, g.guard]))).join(', '),
            ),
          ),
        ),
      ),
    )
  page.append(sourcesCard(sourcesBody.sources, { api, reload: () => rerender(page, { api, signal }) }))
  page.append(runsCard(runsBody.runs))
  page.append(addSourceCard({ api, reload: () => rerender(page, { api, signal }) }))
}

function rerender(page, context) {
  replaceChildren(page)
  return renderSources(page, context).catch((error) => page.append(errorBox(error)))
}

function sourcesCard(sources, { api, reload }) {
  if (sources.length === 0)
    return card(
      tr('Źródła', 'Sources'),
      h('p', { class: 'muted' }, tr('Nie dodano jeszcze żadnego źródła.', 'No source has been added yet.')),
    )
  return card(
    tr('Źródła', 'Sources'),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'table', id: 'sources-table' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            [
              tr('Nazwa', 'Name'),
              tr('Adres', 'Address'),
              tr('Harmonogram', 'Schedule'),
              tr('Ostatni przebieg', 'Latest run'),
              tr('Plik zmieniony', 'File changed'),
              '',
            ].map((t) => h('th', {}, t)),
          ),
        ),
        h(
          'tbody',
          {},
          sources.map((source) => {
            const runButton = h(
              'button',
              { class: 'button', type: 'button', dataset: { source: source.id } },
              tr('Uruchom teraz', 'Run now'),
            )
            runButton.addEventListener('click', async () => {
              runButton.disabled = true
              try {
                const { body } = await api.post(`/sources/${source.id}/run`)
                toast(
                  tr(
                    `Przebieg ${body.id}: ${OUTCOMES[body.outcome]?.[0] ?? body.outcome}`,
                    `Run ${body.id}: ${body.outcome}`,
                  ),
                )
                if (body.outcome === 'held') location.hash = `#/zrodla/przebieg/${body.id}`
                else await reload()
              } catch (error) {
                toast(error.message || String(error), 'error')
                runButton.disabled = false
              }
            })
            return h(
              'tr',
              { dataset: { sourceId: source.id } },
              h(
                'td',
                {},
                h('strong', {}, source.name),
                source.enabled ? null : [' ', badge(tr('wyłączone', 'disabled'))],
              ),
              h(
                'td',
                {},
                mono(source.url.replace(/^https:\/\/([^/?#]+).*$/, '$1')),
                h(
                  'div',
                  { class: 'muted' },
                  source.header_names.length > 0
                    ? tr(`nagłówki: ${source.header_names.join(', ')}`, `headers: ${source.header_names.join(', ')}`)
                    : null,
                ),
              ),
              h('td', {}, scheduleText(source.schedule)),
              h(
                'td',
                {},
                source.last_run
                  ? [
                      h(
                        'a',
                        { href: `#/zrodla/przebieg/${source.last_run.id}` },
                        outcomeBadge(source.last_run.outcome),
                      ),
                      h('div', { class: 'muted' }, formatDateTime(source.last_run.started_at)),
                    ]
                  : tr('jeszcze nie uruchomiono', 'not run yet'),
              ),
              h('td', {}, formatDateTime(source.changed_at)),
              h(
                'td',
                {},
                runButton,
                ' ',
                h(
                  'a',
                  { class: 'button', href: `#/zrodla/zrodlo/${source.id}`, dataset: { editSource: source.id } },
                  tr('Zmień lub usuń', 'Edit or delete'),
                ),
              ),
            )
          }),
        ),
      ),
    ),
  )
}

function runsCard(runs) {
  return card(
    tr('Ostatnie przebiegi', 'Latest runs'),
    runs.length === 0
      ? h('p', { class: 'muted' }, tr('Brak przebiegów.', 'No runs yet.'))
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'table', id: 'runs-table' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                [
                  tr('Nr', 'No.'),
                  tr('Źródło', 'Source'),
                  tr('Początek', 'Started'),
                  tr('Wynik', 'Outcome'),
                  tr('Plan', 'Plan'),
                  tr('Decyzja', 'Decision'),
                ].map((t) => h('th', {}, t)),
              ),
            ),
            h(
              'tbody',
              {},
              runs.map((run) =>
                h(
                  'tr',
                  { dataset: { runId: run.id } },
                  h('td', {}, h('a', { href: `#/zrodla/przebieg/${run.id}` }, String(run.id))),
                  h(
                    'td',
                    {},
                    run.source_name || h('span', { class: 'muted' }, tr('(usunięte źródło)', '(deleted source)')),
                  ),
                  h('td', {}, formatDateTime(run.started_at)),
                  h('td', {}, outcomeBadge(run.outcome)),
                  h('td', {}, planText(run.summary)),
                  h('td', {}, run.decided_by ? `${run.decided_by.name}, ${formatDateTime(run.decided_at)}` : '—'),
                ),
              ),
            ),
          ),
        ),
  )
}

function addSourceCard({ api, reload }) {
  return card(tr('Dodaj źródło', 'Add a source'), sourceForm({ api, reload }))
}

/**
 * A source's own page (#/zrodla/zrodlo/ID): its settings to change, and its removal. `warnings`:
 * what the last change did besides what was asked (headers removed with a move to another server),
 * shown until the operator leaves the page rather than in a toast that fades.
 * @param {HTMLElement} page
 * @param {{ api: import('../api.js').Api, signal: AbortSignal, id: string, warnings?: any[] }} context
 */
async function renderSource(page, { api, signal, id, warnings = [] }) {
  const { body: source } = await api.get(`/sources/${id}`, { signal })
  page.append(
    h('p', {}, h('a', { href: '#/zrodla' }, tr('← Źródła ofert', '← Offer sources'))),
    h('div', { class: 'page-header' }, h('h1', {}, tr(`Źródło: ${source.name}`, `Source: ${source.name}`))),
    ...(warnings.length > 0
      ? [
          h(
            'div',
            { id: 'source-warnings' },
            alertBox(
              'warning',
              tr('Zapisano, ale zwróć uwagę:', 'Saved, but note:'),
              h(
                'ul',
                {},
                warnings.map((w) => h('li', {}, tr(w.message_pl, w.message_en))),
              ),
            ),
          ),
        ]
      : []),
    card(
      tr('Ustawienia źródła', 'Source settings'),
      sourceForm({
        api,
        source,
        reload: async (warnings) => {
          replaceChildren(page)
          await renderSource(page, { api, signal, id, warnings }).catch((error) => page.append(errorBox(error)))
        },
      }),
    ),
  )
  const remove = h(
    'button',
    { class: 'button button-danger', type: 'button', id: 'delete-source' },
    tr('Usuń źródło', 'Delete the source'),
  )
  remove.addEventListener('click', async () => {
    const ok = await confirmDialog({
      title: tr(`Usunąć źródło „${source.name}”?`, `Delete the source “${source.name}”?`),
      body: [
        tr(
          'Serwis przestanie pobierać ten plik. Oferty już zapisane w katalogu zostają bez zmian.',
          'The service stops fetching this file. The offers already in the catalog stay as they are.',
        ),
        tr(
          'Dotychczasowe przebiegi zostają w historii (z wynikiem i decyzjami), a przebiegi czekające na decyzję nie będą już mogły zostać zastosowane.',
          'Its runs stay in the history (with outcomes and decisions); runs awaiting a decision can no longer be applied.',
        ),
      ],
      okLabel: tr('Usuń źródło', 'Delete the source'),
      danger: true,
    })
    if (!ok) return
    try {
      await api.request('DELETE', `/sources/${source.id}`)
      toast(tr(`Usunięto źródło „${source.name}”.`, `The source “${source.name}” was deleted.`))
      location.hash = '#/zrodla'
    } catch (error) {
      toast(error.message || String(error), 'error')
    }
  })
  page.append(
    card(
      tr('Usunięcie źródła', 'Deleting the source'),
      h(
        'p',
        { class: 'muted' },
        tr(
          'Oferty w katalogu zostają; przebiegi tego źródła pozostają w historii.',
          'The offers stay in the catalog; the runs of this source stay in the history.',
        ),
      ),
      h('div', { class: 'actions' }, remove),
    ),
  )
}

/** The dashboard's line about the sources: runs waiting for a decision and failing sources, else nothing. */
export function sourcesNotice(overview) {
  if (!overview || (overview.held_runs === 0 && overview.failing === 0)) return null
  return alertBox(
    overview.held_runs > 0 ? 'warning' : 'error',
    tr('Źródła ofert wymagają uwagi', 'Offer sources need attention'),
    h(
      'p',
      { id: 'sources-notice' },
      overview.held_runs > 0
        ? tr(
            `Przebiegi czekające na decyzję: ${overview.held_runs}. `,
            `Runs awaiting a decision: ${overview.held_runs}. `,
          )
        : null,
      overview.failing > 0
        ? tr(
            `Źródła z błędem ostatniego przebiegu: ${overview.failing}. `,
            `Sources whose latest run failed: ${overview.failing}. `,
          )
        : null,
      h('a', { href: '#/zrodla' }, tr('Przejdź do źródeł ofert', 'Go to the offer sources')),
    ),
  )
}
