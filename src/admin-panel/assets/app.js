// Entry point: restores the session (GET /session gives the user and a fresh nonce), then shows the
// view named by the address's hash. Each view gets an AbortSignal that fires when the operator
// leaves it, which stops its polling.
import { Api } from './api.js'
import { h, replaceChildren } from './dom.js'
import { language, setLanguage, tr, translateStatic } from './i18n.js'
import { alertBox, errorBox, toast } from './ui.js'
import { renderImports } from './view-imports.js'
import { renderInvestments } from './view-investments.js'
import { renderLogin } from './view-login.js'
import { renderOffers } from './view-offers.js'
import { renderPublication } from './view-publication.js'
import { renderStatus } from './view-status.js'
import { renderWebhook } from './view-webhook.js'

// title: [Polish, English]
const ROUTES = {
  status: { title: ['Status', 'Status'], render: renderStatus },
  inwestycje: { title: ['Inwestycje', 'Investments'], render: renderInvestments },
  oferty: { title: ['Oferty', 'Offers'], render: renderOffers },
  publikacja: { title: ['Publikacja', 'Publication'], render: renderPublication },
  import: { title: ['Import ofert', 'Offer import'], render: renderImports },
  webhook: { title: ['Klucz webhooka', 'Webhook key'], render: renderWebhook },
}

const api = new Api(document.querySelector('meta[name="dg-rest-base"]').content)
const view = document.getElementById('view')
const nav = document.getElementById('nav')
const account = document.getElementById('account')
let user = null
let leaving = null

function routeName() {
  const name = location.hash.replace(/^#\/?/, '').split(/[/?]/)[0]
  return Object.hasOwn(ROUTES, name) ? name : 'status'
}

function setChrome(loggedIn) {
  nav.hidden = !loggedIn || !user.capabilities.includes('manage_options')
  account.hidden = !loggedIn
  if (loggedIn) document.getElementById('account-name').textContent = user.display_name || user.login
}

async function show() {
  leaving?.abort()
  leaving = new AbortController()
  const signal = leaving.signal
  setChrome(Boolean(user))
  if (!user) {
    document.title = 'Logowanie — panel operatora'
    renderLogin(view, { api, onLoggedIn })
    return
  }
  const name = routeName()
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.route === name) link.setAttribute('aria-current', 'page')
    else link.removeAttribute('aria-current')
  }
  document.title = `${tr(...ROUTES[name].title)} — ${tr('panel operatora', 'operator panel')}`
  const page = h('div', { class: 'page', dataset: { view: name } })
  replaceChildren(view, page)
  view.focus({ preventScroll: true })
  if (!user.capabilities.includes('manage_options')) {
    page.append(
      alertBox(
        'warning',
        'To konto nie ma uprawnień administratora.',
        h(
          'p',
          {},
          `Zalogowano jako ${user.login} (${user.role_label}). Panel służy administratorom (uprawnienie manage_options); ` +
            'konto tylko do odczytu katalogu korzysta wyłącznie z API katalogu.',
        ),
      ),
    )
    return
  }
  try {
    await ROUTES[name].render(page, { api, user, signal })
  } catch (error) {
    if (error?.name === 'AbortError' || signal.aborted) return
    page.append(errorBox(error))
  }
}

function onLoggedIn(loggedIn) {
  user = loggedIn
  // replaceState fires no hashchange, so the view is drawn once
  if (!location.hash) history.replaceState(null, '', '#/status')
  void show()
}

api.onSessionLost = () => {
  if (!user) return
  user = null
  toast('Sesja wygasła — zaloguj się ponownie.', 'error')
  void show()
}

document.getElementById('logout').addEventListener('click', async () => {
  try {
    await api.logout()
  } catch {
    // the session may already be gone; the panel forgets it either way
  }
  user = null
  toast('Wylogowano.')
  void show()
})

window.addEventListener('hashchange', () => void show())

const languageSwitch = document.getElementById('language-switch')

function labelLanguageSwitch() {
  // the button names the other language in that language
  const other = language() === 'en' ? 'pl' : 'en'
  languageSwitch.textContent = other === 'en' ? 'English' : 'Polski'
  languageSwitch.lang = other
  languageSwitch.dataset.language = other
  languageSwitch.title = other === 'en' ? 'Switch the panel to English' : 'Przełącz panel na polski'
}

languageSwitch.addEventListener('click', () => {
  setLanguage(languageSwitch.dataset.language)
  labelLanguageSwitch()
  void show()
})
translateStatic()
labelLanguageSwitch()

async function boot() {
  try {
    user = await api.currentSession()
  } catch (error) {
    replaceChildren(
      view,
      errorBox(error),
      h('button', { class: 'button', type: 'button', onclick: () => void boot() }, 'Spróbuj ponownie'),
    )
    return
  }
  void show()
}

void boot()
