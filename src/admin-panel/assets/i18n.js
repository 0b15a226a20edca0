// The panel's language: Polish by default, English on request, remembered in this browser. Views
// word each text in both languages in place (tr('Zapisz', 'Save')), so no key can go missing; the
// static parts of index.html carry their English in data-en. The API is asked for the same
// language (Accept-Language), so its field messages match the panel's.

const STORAGE_KEY = 'dg-panel-language'
const LANGUAGES = ['pl', 'en']

function stored() {
  try {
    const value = localStorage.getItem(STORAGE_KEY)
    return value !== null && LANGUAGES.includes(value) ? value : 'pl'
  } catch {
    // storage may be blocked (private mode, policy): Polish then
    return 'pl'
  }
}

let current = stored()

/** 'pl' or 'en'. */
export function language() {
  return current
}

/** The text of the current language. */
export function tr(pl, en) {
  return current === 'en' ? en : pl
}

/** The locale for Intl formatting of the current language. */
export function locale() {
  return current === 'en' ? 'en-GB' : 'pl-PL'
}

export function setLanguage(next) {
  if (!LANGUAGES.includes(next)) return
  current = next
  try {
    localStorage.setItem(STORAGE_KEY, next)
  } catch {
    // kept for this page only
  }
  translateStatic()
}

/**
 * Words the static elements of the page (those with data-en) in the current language; their Polish
 * is their original text, kept in data-pl the first time.
 */
export function translateStatic(root = document) {
  document.documentElement.lang = current
  for (const element of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll('[data-en]'))) {
    if (element.dataset.pl === undefined) element.dataset.pl = /** @type {string} */ (element.textContent)
    element.textContent = /** @type {string} */ (current === 'en' ? element.dataset.en : element.dataset.pl)
  }
  for (const element of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll('[data-en-label]'))) {
    if (element.dataset.plLabel === undefined) element.dataset.plLabel = element.getAttribute('aria-label') ?? ''
    element.setAttribute(
      'aria-label',
      /** @type {string} */ (current === 'en' ? element.dataset.enLabel : element.dataset.plLabel),
    )
  }
}
