/*
 * The Polish name of each offer type (an offer's default title is that name and its code) and the
 * slug of a name (investments' addresses, the daily file's name), as the writer, the editor, the
 * catalog and the publication all make them.
 */

export const OFFER_TYPE_LABELS: Record<string, string> = {
  mieszkanie: 'Mieszkanie',
  dom: 'Dom',
  parking_space: 'Miejsce postojowe',
  garage: 'Garaż',
  storage_room: 'Komórka lokatorska',
  other: 'Inne',
}

// ł and its kin have no Unicode decomposition, so NFKD alone would drop them instead of transliterating.
const TRANSLITERATION: Readonly<Record<string, string>> = Object.freeze({
  ą: 'a',
  ć: 'c',
  ę: 'e',
  ł: 'l',
  ń: 'n',
  ó: 'o',
  ś: 's',
  ź: 'z',
  ż: 'z',
})

/** `Osiedle Żółta Łąka Sp. z o.o.` → `osiedle-zolta-laka-sp-z-o-o`; only `[a-z0-9-]` survive. */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[ąćęłńóśźż]/g, (letter) => TRANSLITERATION[letter] ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}
