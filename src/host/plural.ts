/*
 * Counts with their word in operator messages: Polish has three forms (1 lokal, 2 lokale, 5 lokali;
 * 22 lokale, 25 lokali), chosen by Intl.PluralRules, never "lokal(e)" or one form for every count.
 */
const POLISH = new Intl.PluralRules('pl-PL')
const ENGLISH = new Intl.PluralRules('en-GB')

/** "1 lokal ma", "2 lokale mają", "5 lokali ma": `forms` is [one, few, many]. */
export function polishCount(count: number, forms: readonly [string, string, string]): string {
  const rule = POLISH.select(count)
  return `${count} ${rule === 'one' ? forms[0] : rule === 'few' ? forms[1] : forms[2]}`
}

/** "1 unit has", "2 units have": `forms` is [one, other]. */
export function englishCount(count: number, forms: readonly [string, string]): string {
  return `${count} ${ENGLISH.select(count) === 'one' ? forms[0] : forms[1]}`
}
