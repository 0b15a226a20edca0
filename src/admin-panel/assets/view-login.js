// Login with the user's login (or e-mail) and login password: POST {base}/session sets the
// HttpOnly session cookie and returns the REST nonce the panel sends with every call.
import { h, replaceChildren } from './dom.js'
import { errorBox, withBusy } from './ui.js'

export function renderLogin(root, { api, onLoggedIn }) {
  const message = h('div', { class: 'form-message', 'aria-live': 'assertive' })
  const login = h('input', {
    id: 'login',
    name: 'login',
    autocomplete: 'username',
    required: true,
    maxlength: 254,
    autofocus: true,
  })
  const password = h('input', {
    id: 'password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
    maxlength: 1024,
  })
  const submit = h('button', { class: 'button button-primary', type: 'submit' }, 'Zaloguj')
  const form = h(
    'form',
    { class: 'login-form', novalidate: true },
    h('h1', {}, 'Logowanie'),
    h('p', { class: 'muted' }, 'Panel operatora usługi cen ofertowych. Zaloguj się kontem administratora.'),
    h('label', { for: 'login' }, 'Login lub e-mail'),
    login,
    h('label', { for: 'password' }, 'Hasło'),
    password,
    message,
    submit,
    h(
      'p',
      { class: 'hint' },
      'Hasło logowania (nie hasło aplikacji). Demo (npm run demo) wypisuje hasło konta „admin” przy starcie.',
    ),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    replaceChildren(message)
    if (!login.value.trim() || !password.value) {
      replaceChildren(message, h('p', { class: 'field-error' }, 'Podaj login i hasło.'))
      return
    }
    try {
      const user = await withBusy(submit, 'Logowanie…', () => api.login(login.value.trim(), password.value))
      password.value = ''
      onLoggedIn(user)
    } catch (error) {
      replaceChildren(message, errorBox(error))
      password.select()
    }
  })
  replaceChildren(root, h('div', { class: 'login-page' }, form))
  login.focus()
}
