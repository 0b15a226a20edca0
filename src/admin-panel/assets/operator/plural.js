// Polish (and English) plural forms by Intl.PluralRules: "1 oferta", "2 oferty", "5 ofert", "22 oferty".
import { formatNumber } from '../dom.js'
import { language } from '../i18n.js'

const RULES = { pl: new Intl.PluralRules('pl-PL'), en: new Intl.PluralRules('en-GB') }

/**
 * The count with its word: `forms` is [one, few, many] (Polish: oferta, oferty, ofert); English
 * uses [one, other, other]. `lang` defaults to the panel's language.
 */
export function plural(count, forms, lang = language()) {
  const rule = (lang === 'en' ? RULES.en : RULES.pl).select(count)
  const word =
    rule === 'one' ? forms[0] : rule === 'few' ? forms[1] : rule === 'other' && lang === 'en' ? forms[1] : forms[2]
  return `${formatNumber(count)} ${word}`
}
