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
        'Panel usługi cen ofertowych. Zaloguj się swoim kontem — tym, które nadał Ci administrator.',
        'Panel of the offer price service. Log in with your own account — the one an administrator gave you.',
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
  // with SMTP and the panel's address configured, a link by e-mail; otherwise who can set a new password
  const whoCanReset = h(
    'p',
    { class: 'hint', id: 'who-can-reset' },
    tr(
      'Nowe hasło ustawi Ci inny administrator panelu (Administracja › Użytkownicy › Twoje konto) albo administrator serwera poleceniem „dg user set-password --login TWÓJ_LOGIN”.',
      'Another administrator of the panel can set a new password (Administration › Users › your account), or the server’s administrator with “dg user set-password --login YOUR_LOGIN”.',
    ),
  )
  const forgottenBody = h('div', {}, whoCanReset)
  const forgotten = h(
    'details',
    { class: 'forgotten-password', id: 'forgotten-password' },
    h('summary', {}, tr('Nie pamiętasz hasła?', 'Forgot the password?')),
    forgottenBody,
  )
  replaceChildren(root, h('div', { class: 'login-page' }, form, forgotten))
  login.focus()
  api
    .get('/session/password-reset')
    .then(({ body }) => {
      if (body.available) replaceChildren(forgottenBody, resetRequestForm(api, body, whoCanReset))
    })
    .catch(() => {
      // the hint of who can reset stays
    })
}

/** Asks for a link by e-mail; the answer is the same whether or not the account exists. */
function resetRequestForm(api, availability, whoCanReset) {
  const name = h('input', { id: 'reset-login', name: 'reset-login', autocomplete: 'username', maxlength: 254 })
  const submit = h(
    'button',
    { class: 'button', type: 'submit', id: 'reset-request' },
    tr('Wyślij odnośnik', 'Send the link'),
  )
  const message = h('div', { class: 'form-message', id: 'reset-message', 'aria-live': 'polite' })
  const form = h(
    'form',
    { class: 'stack', novalidate: true },
    h(
      'p',
      { class: 'hint' },
      tr(
        `Podaj login albo e-mail konta. Wyślemy na adres e-mail konta odnośnik do ustawienia nowego hasła, ważny ${availability.ttl_minutes} minut i tylko raz.`,
        `Give the account's login or e-mail. A link to set a new password, valid for ${availability.ttl_minutes} minutes and once only, goes to the account's e-mail address.`,
      ),
    ),
    h('label', { for: 'reset-login' }, tr('Login lub e-mail', 'Login or e-mail')),
    name,
    message,
    submit,
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    replaceChildren(message)
    if (!name.value.trim()) {
      replaceChildren(
        message,
        h('p', { class: 'field-error' }, tr('Podaj login lub e-mail.', 'Give the login or e-mail.')),
      )
      return
    }
    try {
      await withBusy(submit, tr('Wysyłanie…', 'Sending…'), () =>
        api.post('/session/password-reset', { json: { login: name.value.trim() } }),
      )
      replaceChildren(
        message,
        h(
          'p',
          { class: 'form-success', id: 'reset-sent' },
          tr(
            `Jeśli takie konto istnieje i ma adres e-mail, wysłaliśmy na niego odnośnik do ustawienia nowego hasła (ważny ${availability.ttl_minutes} minut). Nie dotarł w ciągu kilku minut? Sprawdź folder spam albo poproś administratora.`,
            `If such an account exists and has an e-mail address, a link to set a new password went to it (valid for ${availability.ttl_minutes} minutes). Nothing within a few minutes? Check the spam folder or ask an administrator.`,
          ),
        ),
      )
    } catch (error) {
      replaceChildren(message, errorBox(error))
    }
  })
  return h('div', {}, form, whoCanReset)
}

export const PASSWORD_RESET_ROUTE = 'nowe-haslo'

/** The page a reset link opens: a new password, twice, under the password policy. */
export function renderPasswordReset(root, { api }) {
  const token = new URLSearchParams(location.hash.split('?')[1] ?? '').get('token') ?? ''
  // the token leaves the address bar (and the browser's history) at once
  history.replaceState(null, '', `#/${PASSWORD_RESET_ROUTE}`)
  const minLength = 12
  const password = h('input', {
    id: 'new-password',
    type: 'password',
    autocomplete: 'new-password',
    minlength: minLength,
    maxlength: 1024,
  })
  const repeated = h('input', {
    id: 'new-password-repeat',
    type: 'password',
    autocomplete: 'new-password',
    maxlength: 1024,
  })
  const message = h('div', { class: 'form-message', id: 'new-password-message', 'aria-live': 'assertive' })
  const submit = h(
    'button',
    { class: 'button button-primary', type: 'submit', id: 'new-password-save' },
    tr('Ustaw hasło', 'Set the password'),
  )
  const form = h(
    'form',
    { class: 'login-form', novalidate: true },
    h('h1', {}, tr('Nowe hasło', 'New password')),
    h(
      'p',
      { class: 'muted' },
      tr(
        `Hasło musi mieć co najmniej ${minLength} znaków. Po zmianie wszystkie sesje tego konta w panelu się kończą; zaloguj się nowym hasłem.`,
        `The password must have at least ${minLength} characters. Once it is set, every panel session of the account ends; log in with the new password.`,
      ),
    ),
    h('label', { for: 'new-password' }, tr('Nowe hasło', 'New password')),
    password,
    h('label', { for: 'new-password-repeat' }, tr('Powtórz nowe hasło', 'Repeat the new password')),
    repeated,
    message,
    submit,
  )
  const toLogin = h('a', { href: '#/status', id: 'back-to-login' }, tr('Przejdź do logowania', 'Go to the sign-in'))
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    replaceChildren(message)
    const problem = !token
      ? tr(
          'Odnośnik jest niepełny: otwórz go z wiadomości e-mail jeszcze raz.',
          'The link is incomplete: open it from the e-mail again.',
        )
      : password.value.length < minLength
        ? tr(
            `Hasło musi mieć co najmniej ${minLength} znaków.`,
            `The password must have at least ${minLength} characters.`,
          )
        : password.value !== repeated.value
          ? tr('Hasła się różnią.', 'The passwords differ.')
          : null
    if (problem) {
      replaceChildren(message, h('p', { class: 'field-error' }, problem))
      return
    }
    try {
      await withBusy(submit, tr('Zapisywanie…', 'Saving…'), () =>
        api.post('/session/password-reset/confirm', { json: { token, password: password.value } }),
      )
      password.value = ''
      repeated.value = ''
      replaceChildren(
        root,
        h(
          'div',
          { class: 'login-page' },
          h(
            'div',
            { class: 'login-form', id: 'new-password-done' },
            h('h1', {}, tr('Hasło ustawione', 'Password set')),
            h(
              'p',
              {},
              tr(
                'Nowe hasło obowiązuje. Wszystkie sesje tego konta zostały zakończone: zaloguj się nowym hasłem.',
                'The new password is in force. Every session of the account has ended: log in with the new password.',
              ),
            ),
            toLogin,
          ),
        ),
      )
    } catch (error) {
      const text =
        error.code === 'password_reset_invalid'
          ? tr(
              'Ten odnośnik jest nieważny: wygasł, został już użyty albo zastąpiony nowszym. Poproś o nowy na stronie logowania („Nie pamiętasz hasła?”).',
              'This link is not valid: it expired, was used already or was replaced by a newer one. Ask for a new one on the sign-in page (“Forgot the password?”).',
            )
          : null
      replaceChildren(message, text ? h('p', { class: 'field-error', id: 'reset-invalid' }, text) : errorBox(error))
    }
  })
  form.append(h('p', { class: 'hint' }, toLogin))
  for (const input of [password, repeated]) input.addEventListener('input', () => replaceChildren(message))
  replaceChildren(root, h('div', { class: 'login-page' }, form))
  password.focus()
}
