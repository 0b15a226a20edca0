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
import { renderPlatform } from './views/view-platform.js'
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
 * [Polish, English], `capability` the one the signed-in user needs to see the section (the API
 * refuses the rest with 403 anyway: docs/decisions/roles-and-capabilities.md), `render(page, {api,
 * user, signal})` draws the view.
 * `scope`: what a user limited to some developer entities and investments needs besides the capability
 * (`developer`: at least one developer entity, since a dataset is published per entity; `whole`: no
 * limit at all, as for scheduled sources), docs/decisions/roles-and-capabilities.md, "Scope".
 * @typedef {{ route: string, group?: string, capability?: string, scope?: 'developer' | 'whole', platform?: boolean, title: string[], render: (page: HTMLElement, context: any) => unknown }} Section
 * @type {Section[]}
 */
const SECTIONS = [
  {
    route: 'status',
    group: 'daily',
    capability: 'dg_read_all',
    title: ['Pulpit', 'Dashboard'],
    render: renderDashboard,
  },
  {
    route: 'publikacja',
    group: 'daily',
    capability: 'dg_read_all',
    scope: 'developer',
    title: ['Publikacja', 'Publication'],
    render: renderPublication,
  },
  {
    route: 'historia',
    group: 'daily',
    capability: 'dg_read_all',
    title: ['Historia publikacji', 'Publication history'],
    render: renderHistory,
  },
  {
    route: 'raport',
    group: 'daily',
    capability: 'dg_import',
    scope: 'developer',
    title: ['Import raportu', 'Report import'],
    render: renderReportImport,
  },
  {
    route: 'audyt-publikacji',
    group: 'daily',
    capability: 'dg_read_all',
    title: ['Audyt publikacji', 'Publication audit'],
    render: renderPublicationAudit,
  },
  {
    route: 'inwestycje',
    group: 'catalog',
    capability: 'dg_read_all',
    title: ['Inwestycje', 'Investments'],
    render: renderInvestments,
  },
  { route: 'oferty', group: 'catalog', capability: 'dg_read_all', title: ['Oferty', 'Offers'], render: renderOffers },
  {
    route: 'import',
    group: 'catalog',
    capability: 'dg_read_all',
    title: ['Import ofert', 'Offer import'],
    render: renderImports,
  },
  {
    route: 'zrodla',
    group: 'catalog',
    capability: 'dg_read_all',
    scope: 'whole',
    title: ['Źródła ofert', 'Offer sources'],
    render: renderSources,
  },
  {
    route: 'ceny-na-stronie',
    group: 'catalog',
    capability: 'dg_read_all',
    title: ['Ceny na stronie WWW', 'Prices on the website'],
    render: renderWebsitePrices,
  },
  {
    route: 'zmiana-cen',
    group: 'catalog',
    capability: 'dg_read_all',
    title: ['Eksport i zmiana cen', 'Export and price change'],
    render: renderPriceChange,
  },
  {
    route: 'ustawienia',
    group: 'admin',
    capability: 'dg_read_all',
    title: ['Ustawienia', 'Settings'],
    render: renderSettings,
  },
  {
    route: 'alerty',
    group: 'admin',
    capability: 'dg_read_administration',
    title: ['Alerty', 'Alerts'],
    render: renderAlerts,
  },
  {
    route: 'licencja',
    group: 'admin',
    capability: 'dg_read_administration',
    title: ['Licencja', 'Licence'],
    render: renderLicense,
  },
  // a trial's page, reached from Ustawienia → Poczta i adres panelu rather than from the menu
  {
    route: 'skrzynka-nadawcza',
    capability: 'manage_options',
    title: ['Skrzynka nadawcza', 'Outbox'],
    render: renderOutbox,
  },
  {
    route: 'webhook',
    group: 'admin',
    capability: 'manage_options',
    title: ['Klucz webhooka', 'Webhook key'],
    render: renderWebhook,
  },
  {
    route: 'uzytkownicy',
    group: 'admin',
    capability: 'dg_read_administration',
    title: ['Użytkownicy', 'Users'],
    render: renderUsers,
  },
  {
    route: 'audyt',
    group: 'admin',
    capability: 'dg_read_all',
    title: ['Dziennik zdarzeń', 'Audit log'],
    render: renderAudit,
  },
  // the platform's REST routes exist in the first company's app only: shown where they answer
  {
    route: 'platforma',
    group: 'admin',
    capability: 'manage_options',
    platform: true,
    title: ['Platforma — firmy', 'Platform — companies'],
    render: renderPlatform,
  },
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
/** Whether this panel is the first company's, where GET platform/tenants answers (asked once per sign-in). */
let platformPage = false

function routeName() {
  const name = location.hash.replace(/^#\/?/, '').split(/[/?]/)[0]
  if (name === '') return 'status'
  return Object.hasOwn(ROUTES, name) ? name : UNKNOWN.route
}

const sectionOf = (name) => ROUTES[name] ?? UNKNOWN

/** The capability that lets a user into the panel at all (an API-only account has not got it). */
const PANEL_CAPABILITY = 'dg_read_all'
const userCan = (capability) => Boolean(user?.capabilities.includes(capability))
/** Whether the user's scope (null: the whole catalog) lets it use a section that needs more. */
const scopeAllows = (section) => {
  const scope = user?.scope ?? null
  if (scope === null || section.scope === undefined) return true
  return section.scope === 'developer' && scope.developers.length > 0
}
const allowed = (section) => (section.capability === undefined || userCan(section.capability)) && scopeAllows(section)

function markCurrent(name) {
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.route === name) link.setAttribute('aria-current', 'page')
    else link.removeAttribute('aria-current')
  }
}

/** Asked once per sign-in, before the navigation is drawn, so the menu never changes under the user. */
async function detectPlatform() {
  platformPage = false
  if (!userCan('manage_options')) return
  try {
    await api.get('/platform/tenants')
    platformPage = true
  } catch {
    // 404 in a company's own panel: the platform is managed from the first company only
  }
}

/** The navigation, in the current language, from SECTIONS: only the sections the user's role may use. */
function drawNav() {
  replaceChildren(
    nav,
    Object.entries(GROUPS).map(([group, title]) => {
      const sections = SECTIONS.filter(
        (section) => section.group === group && allowed(section) && (!section.platform || platformPage),
      )
      // the interactive API documentation the service serves from its OpenAPI document
      const docs =
        group === 'admin'
          ? h(
              'a',
              { href: `${api.base}/docs`, target: '_blank', rel: 'noopener' },
              tr('Dokumentacja API', 'API documentation'),
            )
          : null
      if (sections.length === 0 && !docs) return null
      return h(
        'div',
        { class: 'nav-group', dataset: { group } },
        h('span', { class: 'nav-group-title' }, tr(...title)),
        sections.map((section) =>
          h('a', { href: `#/${section.route}`, dataset: { route: section.route } }, tr(...section.title)),
        ),
        docs,
      )
    }),
  )
}

function setChrome(loggedIn) {
  nav.hidden = !loggedIn || !userCan(PANEL_CAPABILITY)
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
  markCurrent(name)
  document.title = `${tr(...sectionOf(name).title)} — ${tr('panel operatora', 'operator panel')}`
  const page = h('div', { class: 'page', dataset: { view: name } })
  replaceChildren(view, page)
  view.focus({ preventScroll: true })
  if (!userCan(PANEL_CAPABILITY)) {
    page.append(
      alertBox(
        'warning',
        tr('To konto nie ma uprawnień administratora.', 'This account has no administrator rights.'),
        h(
          'p',
          {},
          tr(
            `Zalogowano jako ${user.login} (${roleLabel(user.role)}). Panel służy administratorom, operatorom i audytorom; konto do odczytu katalogu korzysta wyłącznie z API katalogu (strona WWW).`,
            `Logged in as ${user.login} (${roleLabel(user.role)}). The panel is for administrators, operators and auditors; a catalog-reading account uses the catalog API only (the website).`,
          ),
        ),
      ),
    )
    return
  }
  if (!allowed(sectionOf(name))) {
    // an address typed or bookmarked under another role: say so rather than draw a view of 403s
    page.append(
      h('div', { class: 'page-header' }, h('h1', {}, tr(...sectionOf(name).title))),
      alertBox(
        'warning',
        scopeAllows(sectionOf(name))
          ? tr('Twoja rola nie ma dostępu do tej sekcji.', 'Your role has no access to this section.')
          : tr(
              'Zakres Twojego konta nie obejmuje tej sekcji (np. publikacji całej spółki).',
              'The scope of your account does not cover this section (such as publishing a whole entity).',
            ),
        h(
          'p',
          {},
          tr(
            `Zalogowano jako ${user.login} (${roleLabel(user.role)}). Dostęp nadaje administrator w sekcji Użytkownicy.`,
            `Logged in as ${user.login} (${roleLabel(user.role)}). An administrator grants access under Users.`,
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

async function onLoggedIn(loggedIn) {
  user = loggedIn
  await detectPlatform()
  drawNav()
  // replaceState fires no hashchange, so the view is drawn once
  if (!location.hash) history.replaceState(null, '', '#/status')
  void show()
}

api.onSessionLost = () => {
  if (!user) return
  user = null
  platformPage = false
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
  platformPage = false
  drawNav()
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
    if (user) await detectPlatform()
    drawNav()
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
