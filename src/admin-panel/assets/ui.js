// Building blocks shared by the views: cards, error boxes, issue lists, toasts, the confirmation
// dialog, form fields with their server-side problems, paged tables, the stale-edit answer.
import { formatNumber, h, replaceChildren } from './dom.js'
import { language, tr } from './i18n.js'
import { describeError } from './messages.js'

export function card(title, ...children) {
  return h('section', { class: 'card' }, title ? h('h2', {}, title) : null, ...children)
}

/**
 * A red box telling what went wrong in the panel's language; the status, the code and the
 * server's own text are folded beneath, for support.
 * @param {any} error
 * @param {Node | null} [extra]
 */
export function errorBox(error, extra = null) {
  const { text, code, detail } = describeError(error)
  return h(
    'div',
    { class: 'alert alert-error', role: 'alert', dataset: { code } },
    h('p', { class: 'alert-title' }, text),
    extra,
    detail ? technicalDetails(h('p', { class: 'alert-detail' }, detail)) : null,
  )
}

export function alertBox(tone, title, ...children) {
  return h(
    'div',
    { class: `alert alert-${tone}`, role: tone === 'error' ? 'alert' : 'status' },
    h('p', { class: 'alert-title' }, title),
    ...children,
  )
}

/**
 * Issues of the API (publication, preflight, import, settings) as the operator must correct them:
 * the message in the panel's language, the stable code beneath in small print for support.
 */
/**
 * `links(issue)`: an element shown after the issue's text (where it is fixed), or null.
 * @param {any[]} issues
 * @param {string} [className]
 * @param {(issue: any) => Node | null} [links]
 */
export function issuesList(issues, className = 'issues', links = () => null) {
  if (!Array.isArray(issues) || issues.length === 0) return null
  return h(
    'ul',
    { class: className },
    issues.map((issue) =>
      h(
        'li',
        { dataset: { code: issue.code ?? '' } },
        h('span', { class: 'issue-text' }, issueText(issue), links(issue) ? [' ', links(issue)] : null),
        h(
          'code',
          { class: 'issue-code', title: tr('kod dla wsparcia technicznego', 'code for support') },
          issue.code ?? '—',
        ),
      ),
    ),
  )
}

/** An issue's message in the panel's language (the API sends both; older records may hold one). */
export function issueText(issue) {
  return (language() === 'en' ? issue.message_en : issue.message_pl) || issue.message || issue.code || ''
}

/**
 * Technical details (codes, ids, checksums) an operator rarely needs but support asks for: folded
 * under one "Technical details" line.
 */
export function technicalDetails(...children) {
  return h(
    'details',
    { class: 'technical' },
    h('summary', {}, tr('Szczegóły techniczne', 'Technical details')),
    ...children,
  )
}

/**
 * A button that copies `text()` to the clipboard (or selects `target` when the browser refuses,
 * so Ctrl+C works); `text` is read on click, so a secret is never kept in an attribute.
 * @param {() => string} text
 * @param {{ target?: HTMLElement, label?: string, id?: string }} [options]
 */
export function copyButton(text, { target, label, id } = {}) {
  const button = h('button', { type: 'button', class: 'button button-quiet copy-button', id })
  button.textContent = label ?? tr('Kopiuj', 'Copy')
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(typeof text === 'function' ? text() : text)
      toast(tr('Skopiowano do schowka.', 'Copied to the clipboard.'))
    } catch {
      if (target) getSelection()?.selectAllChildren(target)
      toast(tr('Zaznaczono tekst: skopiuj go skrótem Ctrl+C.', 'The text is selected: copy it with Ctrl+C.'), 'info')
    }
  })
  return button
}

export function toast(text, tone = 'success') {
  const host = /** @type {HTMLElement} */ (document.getElementById('toasts'))
  const item = h('div', { class: `toast toast-${tone}` }, text)
  host.append(item)
  setTimeout(() => item.remove(), 5000)
}

/**
 * A modal question answered with the dialog's own buttons; resolves true on "Potwierdź".
 * @param {{title: string, body: (string|Node)[], okLabel?: string, danger?: boolean}} options
 */
export function confirmDialog({ title, body, okLabel = tr('Potwierdź', 'Confirm'), danger = false }) {
  const dialog = /** @type {HTMLDialogElement} */ (document.getElementById('confirm-dialog'))
  replaceChildren(document.getElementById('confirm-title'), title)
  replaceChildren(
    document.getElementById('confirm-body'),
    body.map((part) => (typeof part === 'string' ? h('p', {}, part) : part)),
  )
  const ok = /** @type {HTMLElement} */ (document.getElementById('confirm-ok'))
  ok.textContent = okLabel
  ok.className = `button ${danger ? 'button-danger' : 'button-primary'}`
  dialog.returnValue = ''
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true })
    dialog.showModal()
  })
}

/** Disables a button while `work` runs and shows `busyLabel` on it. */
export async function withBusy(button, busyLabel, work) {
  const label = button.textContent
  button.disabled = true
  button.textContent = busyLabel
  button.setAttribute('aria-busy', 'true')
  try {
    return await work()
  } finally {
    button.disabled = false
    button.textContent = label
    button.removeAttribute('aria-busy')
  }
}

let fieldCount = 0

/**
 * A labelled form field with room for its problems beneath. `names` are the API fields it edits
 * (space-separated: one date input may give several `*_from` fields), matched with the `field` of
 * the server's issues by showFieldErrors.
 * @param {{label: string | (string | Node)[], input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, names?: string, hint?: string | Node | (string | Node)[], required?: boolean, className?: string | null}} options
 */
export function formField({ label, input, names, hint, required = false, className }) {
  if (!input.id) input.id = `field-${++fieldCount}`
  const checkbox = input.type === 'checkbox'
  const labelElement = h(
    'label',
    { for: input.id, class: checkbox ? 'checkbox' : null },
    checkbox ? input : null,
    label,
    required ? h('span', { class: 'required', 'aria-hidden': 'true' }, ' *') : null,
  )
  return h(
    'div',
    { class: ['field', className].filter(Boolean).join(' '), dataset: { field: names ?? input.name ?? '' } },
    labelElement,
    checkbox ? null : input,
    hint ? h('p', { class: 'hint' }, hint) : null,
    h('p', { class: 'field-error', id: `${input.id}-error`, hidden: true }),
  )
}

/**
 * A file input with the panel's own button and words: the browser's own button speaks the
 * browser's language ("Choose File" in a Polish panel), so it is hidden and its label acts for it.
 */
export function filePicker(input) {
  input.classList.add('visually-hidden')
  const name = h('span', { class: 'file-picker-name muted' }, tr('nie wybrano pliku', 'no file chosen'))
  input.addEventListener('change', () => {
    const files = [...(input.files ?? [])]
    name.textContent =
      files.length > 0 ? files.map((f) => f.name).join(', ') : tr('nie wybrano pliku', 'no file chosen')
  })
  return h(
    'span',
    { class: 'file-picker' },
    input,
    h('label', { for: input.id, class: 'button file-picker-button' }, tr('Wybierz plik…', 'Choose a file…')),
    name,
  )
}

export function clearFieldErrors(root) {
  for (const field of root.querySelectorAll('.field.has-error')) {
    field.classList.remove('has-error')
    const slot = field.querySelector(':scope > .field-error')
    if (slot) {
      slot.replaceChildren()
      slot.hidden = true
    }
    for (const control of field.querySelectorAll('[aria-invalid]')) {
      control.removeAttribute('aria-invalid')
      control.removeAttribute('aria-describedby')
    }
  }
}

/**
 * Shows each issue of a 422 answer ({field, code, message, message_pl, message_en}) beneath its
 * field and focuses the first; returns the issues no field of `root` takes, for the caller to list.
 */
export function showFieldErrors(root, issues) {
  clearFieldErrors(root)
  const unplaced = []
  let first = null
  for (const issue of Array.isArray(issues) ? issues : []) {
    const name = String(issue.field ?? '').replace(/["\\]/g, '\\$&')
    const field = name ? root.querySelector(`.field[data-field~="${name}"]`) : null
    const slot = field?.querySelector(':scope > .field-error')
    if (!slot) {
      unplaced.push(issue)
      continue
    }
    const text = (language() === 'en' ? issue.message_en : issue.message_pl) || issue.message || issue.code
    slot.append(h('span', { class: 'field-error-line', dataset: { code: issue.code ?? '' } }, text))
    slot.hidden = false
    field.classList.add('has-error')
    const control = field.querySelector('input, select, textarea')
    if (control) {
      control.setAttribute('aria-invalid', 'true')
      control.setAttribute('aria-describedby', slot.id)
      first ??= control
    }
  }
  first?.focus()
  return unplaced
}

/**
 * One page of a server-side list as a table, with sortable headers and a pager; the server pages,
 * filters and sorts, so it stays fast however long the list.
 * @param {{
 *   columns: {label: string, sort?: string, defaultOrder?: 'asc'|'desc', className?: string, render: (item: any) => unknown}[],
 *   load: (state: {page: number, perPage: number, orderby?: string, order?: string}) => Promise<{items: any[], total: number, totalPages: number}>,
 *   state: {page?: number, perPage?: number, orderby?: string, order?: string},
 *   onState?: (state: object) => void,
 *   rowAttributes?: (item: any) => object,
 *   empty?: string,
 *   id?: string,
 *   perPageOptions?: number[],
 * }} options
 */
export function pagedTable({ columns, load, state: initial, onState, rowAttributes, empty, id, perPageOptions }) {
  const state = { page: 1, perPage: 20, ...initial }
  const sizes = perPageOptions ?? [20, 50, 100]
  const status = h('div', { class: 'table-status', 'aria-live': 'polite' })
  const head = h('thead')
  const body = h('tbody')
  const summary = h('p', { class: 'muted table-summary' })
  const previous = h('button', { type: 'button', class: 'button button-quiet', onclick: () => go(state.page - 1) })
  const next = h('button', { type: 'button', class: 'button button-quiet', onclick: () => go(state.page + 1) })
  const position = h('span', { class: 'pager-position' })
  const perPage = h(
    'select',
    {
      onchange: () => reload({ perPage: Number(perPage.value), page: 1 }),
    },
    sizes.map((size) => h('option', { value: String(size) }, String(size))),
  )
  const wrap = h('div', { class: 'table-wrap' }, h('table', { class: 'table table-paged', id }, head, body))
  const element = h(
    'div',
    { class: 'paged-table' },
    status,
    wrap,
    h(
      'div',
      { class: 'pager' },
      summary,
      h(
        'div',
        { class: 'actions' },
        previous,
        position,
        next,
        h('label', { class: 'pager-size' }, perPage, ` ${tr('na stronę', 'per page')}`),
      ),
    ),
  )
  let ticket = 0

  function header() {
    replaceChildren(
      head,
      h(
        'tr',
        {},
        columns.map((column) => {
          if (!column.sort) return h('th', { scope: 'col', class: column.className }, column.label)
          const active = state.orderby === column.sort
          const direction = active ? (state.order === 'asc' ? 'ascending' : 'descending') : 'none'
          return h(
            'th',
            { scope: 'col', class: column.className, 'aria-sort': direction },
            h(
              'button',
              {
                type: 'button',
                class: 'sort-button',
                dataset: { sort: column.sort },
                onclick: () =>
                  reload({
                    orderby: column.sort,
                    order: active ? (state.order === 'asc' ? 'desc' : 'asc') : (column.defaultOrder ?? 'asc'),
                    page: 1,
                  }),
              },
              column.label,
              h(
                'span',
                { class: 'sort-mark', 'aria-hidden': 'true' },
                active ? (state.order === 'asc' ? ' ▲' : ' ▼') : '',
              ),
            ),
          )
        }),
      ),
    )
  }

  function go(page) {
    if (page >= 1) void reload({ page })
  }

  async function reload(change = {}) {
    Object.assign(state, change)
    const mine = ++ticket
    header()
    perPage.value = String(state.perPage)
    element.setAttribute('aria-busy', 'true')
    element.classList.add('loading')
    try {
      const result = await load({ ...state })
      if (mine !== ticket) return
      replaceChildren(status)
      replaceChildren(
        body,
        result.items.length === 0
          ? h(
              'tr',
              {},
              h(
                'td',
                { colspan: String(columns.length), class: 'muted table-empty' },
                empty ?? tr('Brak wyników.', 'No results.'),
              ),
            )
          : result.items.map((item) =>
              h(
                'tr',
                rowAttributes?.(item) ?? {},
                columns.map((column) => h('td', { class: column.className }, column.render(item))),
              ),
            ),
      )
      const pages = Math.max(result.totalPages, 1)
      replaceChildren(summary, tr(`Wyników: ${formatNumber(result.total)}`, `Results: ${formatNumber(result.total)}`))
      replaceChildren(position, tr(`Strona ${state.page} z ${pages}`, `Page ${state.page} of ${pages}`))
      replaceChildren(previous, tr('‹ Poprzednia', '‹ Previous'))
      replaceChildren(next, tr('Następna ›', 'Next ›'))
      previous.disabled = state.page <= 1
      next.disabled = state.page >= pages
      onState?.({ ...state })
    } catch (error) {
      if (mine !== ticket || error?.name === 'AbortError') return
      replaceChildren(status, errorBox(error))
    } finally {
      if (mine === ticket) {
        element.removeAttribute('aria-busy')
        element.classList.remove('loading')
      }
    }
  }

  return { element, reload }
}

/**
 * The answer to a stale edit (409 `edit_conflict` with the current values): each field the
 * operator changed beside its stored value now, and the choice to save the change again over the
 * current version or to drop it and see what is stored.
 * @param {{rows: {label: string, mine: string, current: string}[], onReapply: () => unknown, onDiscard: () => unknown}} options
 */
export function conflictBox({ rows, onReapply, onDiscard }) {
  const reapply = h('button', { type: 'button', class: 'button button-primary', id: 'conflict-reapply' })
  reapply.textContent = tr('Zapisz moje zmiany w aktualnej wersji', 'Save my changes over the current version')
  reapply.addEventListener('click', () => withBusy(reapply, tr('Zapisywanie…', 'Saving…'), async () => onReapply()))
  return h(
    'div',
    { class: 'alert alert-warning conflict', role: 'alert', id: 'edit-conflict' },
    h(
      'p',
      { class: 'alert-title' },
      tr(
        'Ktoś zmienił te dane w międzyczasie — nic nie zapisano.',
        'Someone changed this data meanwhile — nothing was saved.',
      ),
    ),
    h(
      'p',
      {},
      tr(
        'Inny operator, import albo webhook zapisał nowsze wartości. Porównaj je ze swoimi i zdecyduj.',
        'Another operator, an import or the webhook saved newer values. Compare them with yours and decide.',
      ),
    ),
    rows.length > 0
      ? h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'table conflict-table' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', { scope: 'col' }, tr('Pole', 'Field')),
                h('th', { scope: 'col' }, tr('Twoja zmiana', 'Your change')),
                h('th', { scope: 'col' }, tr('Zapisane teraz', 'Stored now')),
              ),
            ),
            h(
              'tbody',
              {},
              rows.map((row) =>
                h(
                  'tr',
                  { class: row.mine === row.current ? null : 'differs' },
                  h('th', { scope: 'row' }, row.label),
                  h('td', { class: 'mine' }, row.mine),
                  h('td', { class: 'current' }, row.current),
                ),
              ),
            ),
          ),
        )
      : null,
    h(
      'div',
      { class: 'actions' },
      reapply,
      h(
        'button',
        { type: 'button', class: 'button', id: 'conflict-discard', onclick: () => onDiscard() },
        tr('Odrzuć moje zmiany', 'Drop my changes'),
      ),
    ),
  )
}
