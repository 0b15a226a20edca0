// Entry point: restores the session (GET /session gives the user and a fresh nonce), then shows the
// view named by the address's hash. Each view gets an AbortSignal that fires when the operator
// leaves it, which stops its polling. The navigation is drawn from SECTIONS: a new section is one
// entry there and a view module.
import { Api } from './api.js'
import { h, replaceChildren } from './dom.js'
import { language, setLanguage, tr, translateStatic } from './i18n.js'
import { roleLabel } from './messages.js'
import { alertBox, errorBox, toast } from './ui.js'
import { renderAudit } from './views/view-audit.js'
import { renderDashboard } from './views/view-dashboard.js'
import { renderHistory } from './views/view-history.js'
import { renderImports } from './views/view-imports.js'
import { renderInvestments } from './editor/view-investments.js'
import { renderLogin, renderPasswordReset, PASSWORD_RESET_ROUTE } from './views/view-login.js'
import { renderOffers } from './editor/view-offers.js'
import { renderPublication } from './views/view-publication.js'
import { renderPublicationAudit } from './views/view-publication-audit.js'
import { renderReportImport } from './views/view-report-import.js'
import { renderSettings } from './views/view-settings.js'
import { renderSources } from './views/view-sources.js'
import { renderUsers } from './views/view-users.js'
import { renderWebhook } from './views/view-webhook.js'
import { renderAlerts } from './operator/view-alerts.js'
import { renderLicense } from './operator/view-license.js'
import { renderOutbox } from './operator/view-outbox.js'
import { renderPriceChange } from './operator/view-price-change.js'
import { renderUnknownAddress } from './operator/view-unknown.js'
import { renderWebsitePrices } from './operator/view-website-prices.js'
import { helpLink } from './operator/help-links.js'

/** Groups of the navigation, in order: [Polish, English]. */
const GROUPS = {
  daily: ['Codzienna praca', 'Daily work'],
  catalog: ['Katalog', 'Catalog'],
  admin: ['Administracja', 'Administration'],
}

/**
 * The panel's sections in the order of the navigation. `route` is the address (#/route/…), `title`
 * [Polish, English], `render(page, {api, user, signal})` draws the view.
 * @typedef {{ route: string, group?: string, title: string[], render: (page: HTMLElement, context: any) => unknown }} Section
 * @type {Section[]}
 */
const SECTIONS = [
  { route: 'status', group: 'daily', title: ['Pulpit', 'Dashboard'], render: renderDashboard },
  { route: 'publikacja', group: 'daily', title: ['Publikacja', 'Publication'], render: renderPublication },
  { route: 'historia', group: 'daily', title: ['Historia publikacji', 'Publication history'], render: renderHistory },
  { route: 'raport', group: 'daily', title: ['Import raportu', 'Report import'], render: renderReportImport },
  {
    route: 'audyt-publikacji',
    group: 'daily',
    title: ['Audyt publikacji', 'Publication audit'],
    render: renderPublicationAudit,
  },
  { route: 'inwestycje', group: 'catalog', title: ['Inwestycje', 'Investments'], render: renderInvestments },
  { route: 'oferty', group: 'catalog', title: ['Oferty', 'Offers'], render: renderOffers },
  { route: 'import', group: 'catalog', title: ['Import ofert', 'Offer import'], render: renderImports },
  { route: 'zrodla', group: 'catalog', title: ['Źródła ofert', 'Offer sources'], render: renderSources },
  {
    route: 'ceny-na-stronie',
    group: 'catalog',
    title: ['Ceny na stronie WWW', 'Prices on the website'],
    render: renderWebsitePrices,
  },
  {
    route: 'zmiana-cen',
    group: 'catalog',
    title: ['Eksport i zmiana cen', 'Export and price change'],
    render: renderPriceChange,
  },
  { route: 'ustawienia', group: 'admin', title: ['Ustawienia', 'Settings'], render: renderSettings },
  { route: 'alerty', group: 'admin', title: ['Alerty', 'Alerts'], render: renderAlerts },
  { route: 'licencja', group: 'admin', title: ['Licencja', 'Licence'], render: renderLicense },
  // a trial's page, reached from Ustawienia → Poczta i adres panelu rather than from the menu
  { route: 'skrzynka-nadawcza', title: ['Skrzynka nadawcza', 'Outbox'], render: renderOutbox },
  { route: 'webhook', group: 'admin', title: ['Klucz webhooka', 'Webhook key'], render: renderWebhook },
  { route: 'uzytkownicy', group: 'admin', title: ['Użytkownicy', 'Users'], render: renderUsers },
  { route: 'audyt', group: 'admin', title: ['Dziennik zdarzeń', 'Audit log'], render: renderAudit },
]
const ROUTES = Object.fromEntries(SECTIONS.map((section) => [section.route, section]))
// an address the panel does not know says so (a mistyped or outdated link), never the dashboard
/** @type {Section} */
const UNKNOWN = { route: 'nieznany', title: ['Nieznany adres', 'Unknown address'], render: renderUnknownAddress }

const api = new Api(/** @type {HTMLMetaElement} */ (document.querySelector('meta[name="dg-rest-base"]')).content)
const view = /** @type {HTMLElement} */ (document.getElementById('view'))
const nav = /** @type {HTMLElement} */ (document.getElementById('nav'))
const account = /** @type {HTMLElement} */ (document.getElementById('account'))
let user = null
let leaving = null

function routeName() {
  const name = location.hash.replace(/^#\/?/, '').split(/[/?]/)[0]
  if (name === '') return 'status'
  return Object.hasOwn(ROUTES, name) ? name : UNKNOWN.route
}

const sectionOf = (name) => ROUTES[name] ?? UNKNOWN

/** The navigation, in the current language, from SECTIONS. */
function drawNav() {
  replaceChildren(
    nav,
    Object.entries(GROUPS).map(([group, title]) =>
      h(
        'div',
        { class: 'nav-group', dataset: { group } },
        h('span', { class: 'nav-group-title' }, tr(...title)),
        SECTIONS.filter((section) => section.group === group).map((section) =>
          h('a', { href: `#/${section.route}`, dataset: { route: section.route } }, tr(...section.title)),
        ),
        // the interactive API documentation the service serves from its OpenAPI document
        group === 'admin'
          ? h(
              'a',
              { href: `${api.base}/docs`, target: '_blank', rel: 'noopener' },
              tr('Dokumentacja API', 'API documentation'),
            )
          : null,
      ),
    ),
  )
}

function setChrome(loggedIn) {
  nav.hidden = !loggedIn || !user.capabilities.includes('manage_options')
  account.hidden = !loggedIn
  const name = /** @type {HTMLElement} */ (document.getElementById('account-name'))
  if (loggedIn) name.textContent = user.display_name || user.login
}

async function show() {
  leaving?.abort()
  leaving = new AbortController()
  const signal = leaving.signal
  setChrome(Boolean(user))
  // the link of a password-reset e-mail opens here, signed in or not
  if (location.hash.replace(/^#\/?/, '').split(/[/?]/)[0] === PASSWORD_RESET_ROUTE) {
    setChrome(false)
    document.title = tr('Nowe hasło — panel operatora', 'New password — operator panel')
    renderPasswordReset(view, { api })
    return
  }
  if (!user) {
    document.title = tr('Logowanie — panel operatora', 'Log in — operator panel')
    renderLogin(view, { api, onLoggedIn })
    return
  }
  const name = routeName()
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.route === name) link.setAttribute('aria-current', 'page')
    else link.removeAttribute('aria-current')
  }
  document.title = `${tr(...sectionOf(name).title)} — ${tr('panel operatora', 'operator panel')}`
  const page = h('div', { class: 'page', dataset: { view: name } })
  replaceChildren(view, page)
  view.focus({ preventScroll: true })
  if (!user.capabilities.includes('manage_options')) {
    page.append(
      alertBox(
        'warning',
        tr('To konto nie ma uprawnień administratora.', 'This account has no administrator rights.'),
        h(
          'p',
          {},
          tr(
            `Zalogowano jako ${user.login} (${roleLabel(user.role)}). Panel służy administratorom; konto do odczytu katalogu korzysta wyłącznie z API katalogu (strona WWW).`,
            `Logged in as ${user.login} (${roleLabel(user.role)}). The panel is for administrators; a catalog-reading account uses the catalog API only (the website).`,
          ),
        ),
      ),
    )
    return
  }
  try {
    await sectionOf(name).render(page, { api, user, signal })
    // every view links to its page of the operator's handbook
    const header = page.querySelector('.page-header')
    if (header && !header.querySelector('.help-link') && sectionOf(name) !== UNKNOWN) header.append(helpLink(name))
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
  toast(tr('Sesja wygasła — zaloguj się ponownie.', 'The session has ended — log in again.'), 'error')
  void show()
}

document.getElementById('logout')?.addEventListener('click', async () => {
  try {
    await api.logout()
  } catch {
    // the session may already be gone; the panel forgets it either way
  }
  user = null
  toast(tr('Wylogowano.', 'Logged out.'))
  void show()
})

window.addEventListener('hashchange', () => void show())

const languageSwitch = /** @type {HTMLElement} */ (document.getElementById('language-switch'))

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
  drawNav()
  void show()
})
translateStatic()
labelLanguageSwitch()
drawNav()

async function boot() {
  try {
    user = await api.currentSession()
  } catch (error) {
    replaceChildren(
      view,
      errorBox(error),
      h('button', { class: 'button', type: 'button', onclick: () => void boot() }, tr('Spróbuj ponownie', 'Try again')),
    )
    return
  }
  void show()
}

void boot()
