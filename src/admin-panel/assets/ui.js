// Building blocks shared by the views: cards, error boxes, issue lists, toasts, the confirmation
// dialog.
import { h, replaceChildren } from './dom.js'
import { describeError } from './messages.js'

export function card(title, ...children) {
  return h('section', { class: 'card' }, title ? h('h2', {}, title) : null, ...children)
}

/** A red box telling what went wrong, in Polish, with the code and the server's text beneath. */
export function errorBox(error, extra = null) {
  const { text, code, detail } = describeError(error)
  return h(
    'div',
    { class: 'alert alert-error', role: 'alert', dataset: { code } },
    h('p', { class: 'alert-title' }, text),
    detail ? h('p', { class: 'alert-detail' }, detail) : null,
    extra,
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
 * Publication issues with their stable code and both messages (the API gives Polish and English),
 * as the operator must correct them.
 */
export function issuesList(issues, className = 'issues') {
  if (!Array.isArray(issues) || issues.length === 0) return null
  return h(
    'ul',
    { class: className },
    issues.map((issue) =>
      h(
        'li',
        { dataset: { code: issue.code ?? '' } },
        h('code', { class: 'issue-code' }, issue.code ?? '—'),
        h('span', { class: 'issue-pl' }, issue.message_pl ?? issue.message ?? ''),
        issue.message_en ? h('span', { class: 'issue-en', lang: 'en' }, issue.message_en) : null,
      ),
    ),
  )
}

export function toast(text, tone = 'success') {
  const host = document.getElementById('toasts')
  const item = h('div', { class: `toast toast-${tone}` }, text)
  host.append(item)
  setTimeout(() => item.remove(), 5000)
}

/**
 * A modal question answered with the dialog's own buttons; resolves true on "Potwierdź".
 * @param {{title: string, body: (string|Node)[], okLabel?: string, danger?: boolean}} options
 */
export function confirmDialog({ title, body, okLabel = 'Potwierdź', danger = false }) {
  const dialog = document.getElementById('confirm-dialog')
  replaceChildren(document.getElementById('confirm-title'), title)
  replaceChildren(
    document.getElementById('confirm-body'),
    body.map((part) => (typeof part === 'string' ? h('p', {}, part) : part)),
  )
  const ok = document.getElementById('confirm-ok')
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
