// Ceny na stronie WWW: per investment, GET/PUT {base}/investments/{id}/public-prices — the switch
// of the public price endpoint (off by default), the website origins allowed to read it from a
// browser, the snippet to paste into the website and a live preview of the component the service
// serves ({base}/embed/{version}/dg-prices.js). Each change is saved at once (audited by the API).
// Not licence-gated: the prices on the developer's own website are the law's minimum (art. 19a).
import { badge, externalLink, h, replaceChildren } from '../dom.js'
import { hashRoute, hostStatusBadge, visibilityLabel } from '../editor/editor-labels.js'
import { language, tr } from '../i18n.js'
import { alertBox, card, copyButton, errorBox, toast, withBusy } from '../ui.js'

const SECTION = 'ceny-na-stronie'
const COMPONENT = 'dg-offer-table'
/** How long the preview waits for the component script to define its element. */
const DEFINE_TIMEOUT_MS = 4000

/**
 * The origin a browser sends for `text`, or the reason it is not one — the API's own rule
 * (https, or http for this computer; no path), checked here to answer before a request.
 */
export function originProblem(text) {
  const trimmed = text.trim()
  if (trimmed === '') return tr('Wpisz adres strony.', 'Enter the website’s address.')
  let url
  try {
    url = new URL(trimmed)
  } catch {
    return tr(
      'To nie jest adres (np. https://www.example.pl).',
      'This is not an address (e.g. https://www.example.pl).',
    )
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    return tr('Adres musi zaczynać się od https://.', 'The address must start with https://.')
  if (url.username || url.password || url.search || url.hash || trimmed.endsWith('?') || trimmed.endsWith('#'))
    return tr('Podaj sam adres strony, bez parametrów.', 'Give the site’s address only, without parameters.')
  if (url.pathname !== '/' || /^[a-z]+:\/\/[^/]+\/./i.test(trimmed))
    return tr(
      'Podaj sam adres strony, bez ścieżki (np. https://www.example.pl).',
      'Give the site’s address only, without a path (e.g. https://www.example.pl).',
    )
  return null
}

export async function renderWebsitePrices(page, context) {
  const { segments } = hashRoute()
  if (segments[1] === undefined) return renderInvestmentChoice(page, context)
  const id = Number(segments[1])
  if (!Number.isSafeInteger(id) || id < 1) {
    page.append(alertBox('error', tr('Nieprawidłowy adres inwestycji.', 'Invalid investment address.')))
    return
  }
  return renderInvestmentPrices(page, { ...context, id })
}

async function renderInvestmentChoice(page, { api, signal }) {
  const { body: investments } = await api.get('/investments?per_page=100', { signal })
  page.append(
    h('div', { class: 'page-header' }, h('h1', {}, tr('Ceny na stronie WWW', 'Prices on the website'))),
    h(
      'p',
      { class: 'lead' },
      tr(
        'Wybierz inwestycję, aby udostępnić jej ceny na stronie WWW dewelopera: jeden fragment kodu do wklejenia, bez haseł.',
        'Choose an investment to show its prices on the developer’s website: one snippet to paste, no passwords.',
      ),
    ),
    card(
      null,
      investments.length === 0
        ? h('p', { class: 'muted' }, tr('Nie ma jeszcze inwestycji.', 'No investments yet.'))
        : h(
            'ul',
            { class: 'link-list', id: 'website-prices-investments' },
            investments.map((investment) =>
              h(
                'li',
                {},
                h(
                  'a',
                  { href: `#/${SECTION}/${investment.id}`, dataset: { id: String(investment.id) } },
                  investment.title,
                ),
                ' ',
                hostStatusBadge(investment.host_status),
              ),
            ),
          ),
    ),
  )
}

async function renderInvestmentPrices(page, { api, signal, id }) {
  const [{ body: investment }, { body: initial }] = await Promise.all([
    api.get(`/investments/${id}`, { signal }),
    api.get(`/investments/${id}/public-prices`, { signal }),
  ])
  let settings = initial
  const message = h('div', { class: 'form-message', 'aria-live': 'polite', id: 'website-prices-message' })

  async function save(change, button, busyLabel) {
    replaceChildren(message)
    try {
      const work = () => api.request('PUT', `/investments/${id}/public-prices`, { json: change })
      const { body } = button ? await withBusy(button, busyLabel, work) : await work()
      settings = body
      draw()
      toast(tr('Zapisano — zmiana działa od razu.', 'Saved — the change holds at once.'))
      return true
    } catch (error) {
      replaceChildren(message, errorBox(error))
      return false
    }
  }

  // ----- the switch
  const enabled = h('input', { type: 'checkbox', id: 'public-prices-enabled', role: 'switch' })
  enabled.addEventListener('change', async () => {
    enabled.disabled = true
    const saved = await save({ enabled: enabled.checked })
    enabled.disabled = false
    if (!saved) enabled.checked = settings.enabled
  })
  const enabledState = h('span', { id: 'public-prices-state' })
  const publishedNote = h('div')

  // ----- allowed origins
  const originsList = h('ul', { class: 'origin-list', id: 'public-prices-origins' })
  const originInput = h('input', {
    type: 'url',
    id: 'public-prices-origin',
    name: 'origin',
    autocomplete: 'off',
    placeholder: 'https://www.example.pl',
    'aria-describedby': 'public-prices-origin-error',
  })
  const originError = h('p', { class: 'field-error', id: 'public-prices-origin-error', hidden: true })
  const addButton = h('button', { type: 'submit', class: 'button', id: 'public-prices-add-origin' }, tr('Dodaj', 'Add'))
  const originForm = h(
    'form',
    { class: 'inline-form', id: 'public-prices-origin-form', novalidate: true },
    h('label', { for: 'public-prices-origin' }, tr('Adres strony', 'Website address')),
    h('div', { class: 'inline-row' }, originInput, addButton),
    originError,
  )
  originForm.addEventListener('submit', async (event) => {
    event.preventDefault()
    const problem = originProblem(originInput.value)
    originError.hidden = problem === null
    originError.textContent = problem ?? ''
    originInput.setAttribute('aria-invalid', problem === null ? 'false' : 'true')
    if (problem) return originInput.focus()
    const next = [...settings.allowed_origins, originInput.value.trim()]
    if (await save({ allowed_origins: next }, addButton, tr('Zapisywanie…', 'Saving…'))) {
      originInput.value = ''
      originInput.focus()
    }
  })

  // ----- snippet and preview
  const snippet = h('code', { id: 'public-prices-snippet' })
  const snippetBlock = h('pre', { class: 'snippet' }, snippet)
  const copy = copyButton(() => settings.snippet, { target: snippet, id: 'public-prices-copy' })
  copy.textContent = tr('Kopiuj kod', 'Copy the code')
  const endpoint = h('p', { class: 'muted', id: 'public-prices-endpoint' })
  const preview = h('div', { class: 'component-preview', id: 'public-prices-preview' })

  function draw() {
    enabled.checked = settings.enabled
    replaceChildren(
      enabledState,
      settings.enabled ? badge(tr('włączone', 'on'), 'ok') : badge(tr('wyłączone', 'off'), 'neutral'),
    )
    const answerable = investment.host_status === 'publish' && investment.visibility === 'public'
    replaceChildren(
      publishedNote,
      settings.enabled && !answerable
        ? alertBox(
            'warning',
            tr(
              'Ta inwestycja nie jest opublikowana jako publiczna: adres odpowie „ceny niedostępne”.',
              'This investment is not published as public: the address answers “prices not available”.',
            ),
            h(
              'p',
              {},
              tr('Status: ', 'Status: '),
              hostStatusBadge(investment.host_status),
              ` · ${visibilityLabel(investment.visibility)}. `,
              h('a', { href: `#/inwestycje/${id}` }, tr('Zmień w edycji inwestycji', 'Change it in the investment')),
            ),
          )
        : null,
    )
    replaceChildren(
      originsList,
      settings.allowed_origins.length === 0
        ? h(
            'li',
            { class: 'muted' },
            tr(
              'Brak — dodaj adres strony, na której wkleisz kod.',
              'None — add the address of the site you paste the code into.',
            ),
          )
        : settings.allowed_origins.map((origin) => {
            const remove = h(
              'button',
              {
                type: 'button',
                class: 'button button-quiet',
                dataset: { origin },
                'aria-label': tr(`Usuń ${origin}`, `Remove ${origin}`),
              },
              tr('Usuń', 'Remove'),
            )
            remove.addEventListener('click', () =>
              save(
                { allowed_origins: settings.allowed_origins.filter((o) => o !== origin) },
                remove,
                tr('Usuwanie…', 'Removing…'),
              ),
            )
            return h('li', {}, h('code', {}, origin), ' ', remove)
          }),
    )
    snippet.textContent = settings.snippet
    replaceChildren(endpoint, tr('Adres danych: ', 'Data address: '), externalLink(settings.endpoint_url))
    void drawPreview()
  }

  let previewRun = 0
  async function drawPreview() {
    const run = ++previewRun
    replaceChildren(preview, h('p', { class: 'muted' }, tr('Ładowanie podglądu…', 'Loading the preview…')))
    const available = await componentAvailable(settings.script_url, signal)
    if (run !== previewRun || signal.aborted) return
    if (!available) {
      replaceChildren(
        preview,
        alertBox(
          'warning',
          tr('Komponent jest niedostępny.', 'The component is unavailable.'),
          h(
            'p',
            { id: 'public-prices-preview-unavailable' },
            tr(
              `Usługa nie udostępnia skryptu komponentu (${settings.script_url}), więc podglądu nie da się pokazać. Kod do wklejenia i adres danych działają niezależnie od niego.`,
              `The service does not serve the component’s script (${settings.script_url}), so no preview can be shown. The snippet and the data address work regardless.`,
            ),
          ),
        ),
      )
      return
    }
    const table = document.createElement(COMPONENT)
    table.setAttribute('investment', String(id))
    if (language() === 'en') table.setAttribute('lang', 'en')
    replaceChildren(
      preview,
      settings.enabled
        ? null
        : h(
            'p',
            { class: 'muted', id: 'public-prices-preview-off' },
            tr(
              'Ceny są wyłączone: tak komponent wygląda na stronie, dopóki ich nie włączysz.',
              'The prices are off: this is how the component looks on the website until you turn them on.',
            ),
          ),
      table,
    )
    // elements of one investment share the component's copy of the answer: after a change of the
    // settings the preview asks again (a cheap revalidation) instead of showing the earlier answer
    const element = /** @type {HTMLElement & { refresh?: () => Promise<void> }} */ (table)
    if (run > 1 && typeof element.refresh === 'function') void element.refresh()
  }

  page.append(
    h(
      'div',
      { class: 'page-header' },
      h(
        'div',
        { class: 'stack-tight' },
        h('a', { href: `#/${SECTION}`, class: 'back-link' }, tr('← Wszystkie inwestycje', '← All investments')),
        h('h1', { id: 'website-prices-heading' }, investment.title),
      ),
      h(
        'div',
        { class: 'actions' },
        h('a', { class: 'button', href: `#/inwestycje/${id}` }, tr('Edycja inwestycji', 'Edit the investment')),
      ),
    ),
    message,
    card(
      tr('Ceny na stronie WWW', 'Prices on the website'),
      h(
        'p',
        {},
        tr(
          'Po włączeniu usługa podaje bez logowania to, co ustawa (art. 19a) każe pokazać na stronie dewelopera: te lokale opublikowanej inwestycji, które plik dzienny publikuje i które są w sprzedaży (wolne i zarezerwowane, o ile statusy publikacji je obejmują), także miejsca postojowe i komórki sprzedawane osobno, ich ceny obowiązujące dziś, części i pomieszczenia przynależne z cenami, inne świadczenia i historię cen. Nigdy szkiców, ofert prywatnych ani archiwalnych, nigdy danych osobowych. Ceny zapowiedziane na później pojawią się dopiero w swoim dniu.',
          'Once on, the service answers without a login what the act (art. 19a) says the developer’s website must show: the units of a published investment that the daily file lists and that are on sale (available and reserved, as far as the publication’s statuses include them), parking spaces and storage rooms sold on their own too, their prices in force today, parts and appurtenant rooms with prices, other payments and the price history. Never drafts, private or archived offers, never personal data. Prices announced for later show from their day on.',
        ),
      ),
      h(
        'div',
        { class: 'field' },
        h(
          'label',
          { for: 'public-prices-enabled', class: 'checkbox' },
          enabled,
          tr('Udostępniaj ceny tej inwestycji na stronach WWW', 'Show this investment’s prices on websites'),
        ),
        ' ',
        enabledState,
      ),
      publishedNote,
      h(
        'p',
        { class: 'hint', id: 'public-prices-licence' },
        tr(
          'Ta funkcja nie wymaga licencji PRO: to minimum ustawowe, dostępne zawsze.',
          'This function needs no PRO licence: it is the legal minimum, always available.',
        ),
      ),
    ),
    card(
      tr('Strony, które mogą pokazywać ceny', 'Websites that may show the prices'),
      h(
        'p',
        { class: 'hint' },
        tr(
          'Przeglądarka pozwoli odczytać ceny tylko stronom z tej listy. Podaj adres strony bez ścieżki, np. https://www.example.pl (na komputerze programisty także http://localhost:8080).',
          'A browser lets only the websites on this list read the prices. Give the site’s address without a path, e.g. https://www.example.pl (on a developer’s computer also http://localhost:8080).',
        ),
      ),
      originsList,
      originForm,
    ),
    card(
      tr('Kod do wklejenia', 'Code to paste'),
      h(
        'p',
        { class: 'hint' },
        tr(
          'Wklej ten kod na stronie WWW w miejscu, gdzie ma się pojawić tabela cen. Strona w WordPressie nie potrzebuje kodu: wystarczy wtyczka dg-ceny (podręcznik, „Pomoc”).',
          'Paste this code into the web page where the price table should appear A WordPress site needs no code: the dg-ceny plugin does it (see the handbook, “Help”).',
        ),
      ),
      snippetBlock,
      h('div', { class: 'actions' }, copy),
      endpoint,
    ),
    card(tr('Podgląd', 'Preview'), preview),
  )
  draw()
}

/** Whether the service serves the component's script, loaded once into the panel if so. */
async function componentAvailable(scriptAddress, signal) {
  if (customElements.get(COMPONENT)) return true
  // from the panel's own origin, the only one its Content-Security-Policy lets scripts come from
  const scriptUrl = new URL(scriptAddress, location.href).pathname
  try {
    const response = await fetch(scriptUrl, { method: 'HEAD', credentials: 'omit', signal })
    if (!response.ok) return false
  } catch {
    return false
  }
  if (!document.querySelector(`script[data-component="${COMPONENT}"]`)) {
    const script = document.createElement('script')
    script.src = scriptUrl
    script.dataset.component = COMPONENT
    document.head.append(script)
  }
  const timeout = new Promise((resolve) => setTimeout(() => resolve(false), DEFINE_TIMEOUT_MS))
  return Promise.race([customElements.whenDefined(COMPONENT).then(() => true), timeout])
}
