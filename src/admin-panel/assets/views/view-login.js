// Login with the user's login (or e-mail) and login password: POST {base}/session sets the
// HttpOnly session cookie and returns the REST nonce the panel sends with every call.
import { h, replaceChildren } from '../dom.js'
import { tr } from '../i18n.js'
import { errorBox, withBusy } from '../ui.js'

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
  const submit = h('button', { class: 'button button-primary', type: 'submit' }, tr('Zaloguj', 'Log in'))
  const form = h(
    'form',
    { class: 'login-form', novalidate: true },
    h('h1', {}, tr('Logowanie', 'Log in')),
    h(
      'p',
      { class: 'muted' },
      tr(
        'Panel operatora usługi cen ofertowych. Zaloguj się kontem administratora.',
        'Operator panel of the offer price service. Log in with an administrator account.',
      ),
    ),
    h('label', { for: 'login' }, tr('Login lub e-mail', 'Login or e-mail')),
    login,
    h('label', { for: 'password' }, tr('Hasło', 'Password')),
    password,
    message,
    submit,
    h(
      'p',
      { class: 'hint' },
      tr(
        'Hasło logowania (nie hasło aplikacji). Demo (npm run demo) wypisuje hasło konta „admin” przy starcie.',
        'The login password (not an application password). The demo (npm run demo) prints the “admin” password at start.',
      ),
    ),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    replaceChildren(message)
    if (!login.value.trim() || !password.value) {
      replaceChildren(
        message,
        h('p', { class: 'field-error' }, tr('Podaj login i hasło.', 'Give the login and the password.')),
      )
      return
    }
    try {
      const user = await withBusy(submit, tr('Logowanie…', 'Logging in…'), () =>
        api.login(login.value.trim(), password.value),
      )
      password.value = ''
      onLoggedIn(user)
    } catch (error) {
      replaceChildren(message, errorBox(error))
      password.select()
    }
  })
  // without e-mail reset, the panel says who can set a new password
  const forgotten = h(
    'details',
    { class: 'forgotten-password', id: 'forgotten-password' },
    h('summary', {}, tr('Nie pamiętasz hasła?', 'Forgot the password?')),
    h(
      'p',
      { class: 'hint' },
      tr(
        'Nowe hasło ustawi Ci inny administrator panelu (Administracja › Użytkownicy › Twoje konto) albo administrator serwera poleceniem „dg user set-password --login TWÓJ_LOGIN”.',
        'Another administrator of the panel can set a new password (Administration › Users › your account), or the server’s administrator with “dg user set-password --login YOUR_LOGIN”.',
      ),
    ),
  )
  replaceChildren(root, h('div', { class: 'login-page' }, form, forgotten))
  login.focus()
}
