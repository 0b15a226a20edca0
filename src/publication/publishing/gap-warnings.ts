/*
 * What a published file shows incompletely, told as warnings: the file is published all the same,
 * never silently. The same warnings make a scheduled publication's gap alert.
 */
import { englishCount, polishCount } from '../../host/plural.js'
import type { DailyFileGaps, UntypedOffer } from '../daily-file/collect-daily-input.js'
import { issue, type PublicationIssue } from '../publication-issue.js'

/** The warnings of a publication that say its file is legally incomplete. */
export const GAP_WARNING_CODES: ReadonlySet<string> = new Set([
  'offer_price_missing',
  'offer_price_m2_missing',
  'offer_price_total_missing',
  'offers_left_out_by_status',
  'offers_hidden_in_draft',
  'price_combined_missing',
  'price_combined_package_held',
  'investment_location_missing',
  'investment_prospectus_missing',
  'part_listed_twice',
  'offer_type_missing',
])

/** How many designations a message names; the details list them all. */
const NAMED_IN_MESSAGE = 20

interface Named {
  pl: string
  en: string
}

function named(list: { code?: string; title?: string; id: number }[]): Named {
  const shown = list.slice(0, NAMED_IN_MESSAGE).map((o) => o.code || o.title || `#${o.id}`)
  const more = list.length - shown.length
  return {
    pl: `${shown.join(', ')}${more > 0 ? ` i ${polishCount(more, ['inny', 'inne', 'innych'])}` : ''}`,
    en: `${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`,
  }
}

/** A part is named with the units it is listed with. */
function partNames(parts: DailyFileGaps['partsListedTwice']): Named {
  const shown = parts
    .slice(0, NAMED_IN_MESSAGE)
    .map((p) => `${p.designation} (${p.units.join(', ')})`)
    .join('; ')
  return { pl: shown, en: shown }
}

interface GapWarningText {
  gap: keyof DailyFileGaps
  code: string
  /** The key of the details that lists every one. */
  listedAs: 'offers' | 'investments' | 'parts'
  names?: (gaps: DailyFileGaps) => Named
  pl: (count: number, n: Named) => string
  en: (count: number, n: Named) => string
}

/** In the order the warnings are given. */
const GAP_WARNINGS: readonly GapWarningText[] = [
  {
    gap: 'offersWithoutPrice',
    code: 'offer_price_missing',
    listedAs: 'offers',
    pl: (count, n) =>
      `${polishCount(count, ['oferowany lokal nie ma ceny i w pliku ma', 'oferowane lokale nie mają ceny i w pliku mają', 'oferowanych lokali nie ma ceny i w pliku ma'])} X zamiast ceny: ${n.pl}. Ustawa wymaga podania ceny każdego oferowanego lokalu: uzupełnij cenę (import, webhook lub edytor) albo zmień status oferty.`,
    en: (count, n) =>
      `${englishCount(count, ['offered unit has', 'offered units have'])} no price and show X instead of a price: ${n.en}. The act requires the price of every offered unit: enter the price (import, webhook or editor) or change the offer's status.`,
  },
  {
    gap: 'combinedPriceMissing',
    code: 'price_combined_missing',
    listedAs: 'offers',
    pl: (count, n) =>
      `${polishCount(count, ['lokal ma wycenione części, pomieszczenia przynależne lub prawa, ale nie ma', 'lokale mają wycenione części, pomieszczenia przynależne lub prawa, ale nie mają', 'lokali ma wycenione części, pomieszczenia przynależne lub prawa, ale nie ma'])} ceny lokalu, więc kolumny 42 (cena łączna) nie da się obliczyć i ma X: ${n.pl}. Podaj cenę całkowitą lokalu w edytorze oferty (pole „Cena całkowita”); cena łączna zostanie wtedy obliczona.`,
    en: (count, n) =>
      `${englishCount(count, ['unit has', 'units have'])} priced parts, appurtenant rooms or rights but no total, so column 42 (combined price) cannot be computed and is X: ${n.en}. Enter the unit's total price in the offer editor.`,
  },
  {
    gap: 'combinedPackageHeld',
    code: 'price_combined_package_held',
    listedAs: 'offers',
    pl: (count, n) =>
      `${polishCount(count, ['lokal ma cenę pakietową (cenę z elementami dodatkowymi), której nie publikujemy', 'lokale mają ceny pakietowe (ceny z elementami dodatkowymi), których nie publikujemy', 'lokali ma ceny pakietowe (ceny z elementami dodatkowymi), których nie publikujemy'])}, bo cena lokalu albo części zmieniła się po ich ustaleniu (albo cena pakietowa jest niższa niż cena lokalu): ${n.pl}. W kolumnie 42 jest cena lokalu plus ceny części, pomieszczeń przynależnych i praw. Jeśli cena pakietowa nadal obowiązuje, wpisz ją ponownie w edytorze oferty (pole „Cena z elementami dodatkowymi”); jeśli nie, usuń ją.`,
    en: (count, n) =>
      `${englishCount(count, ['unit has a package price', 'units have package prices'])} (stored combined price) that is not published because the total or a part changed after it was set (or it is below the total): ${n.en}. Column 42 shows the total plus the parts, appurtenant rooms and rights. If the package price still holds, enter it again in the offer editor; otherwise remove it.`,
  },
  {
    gap: 'offersWithoutPriceM2',
    code: 'offer_price_m2_missing',
    listedAs: 'offers',
    pl: (count, n) =>
      `${polishCount(count, ['lokal ma cenę całkowitą, ale nie ma', 'lokale mają cenę całkowitą, ale nie mają', 'lokali ma cenę całkowitą, ale nie ma'])} ceny za m² (w pliku X w kolumnach 38–39): ${n.pl}. Ustawa wymaga obu cen: podaj cenę za m² w edytorze oferty (pole „Cena za m²”), importem lub webhookiem.`,
    en: (count, n) =>
      `${englishCount(count, ['unit has', 'units have'])} a total but no price per m² (X in columns 38–39): ${n.en}. Enter the price per m².`,
  },
  {
    gap: 'offersWithoutTotal',
    code: 'offer_price_total_missing',
    listedAs: 'offers',
    pl: (count, n) =>
      `${polishCount(count, ['lokal ma cenę za m², ale nie ma', 'lokale mają cenę za m², ale nie mają', 'lokali ma cenę za m², ale nie ma'])} ceny całkowitej (w pliku X w kolumnach 40–41): ${n.pl}. Podaj cenę całkowitą w edytorze oferty (pole „Cena całkowita”), importem lub webhookiem.`,
    en: (count, n) =>
      `${englishCount(count, ['unit has', 'units have'])} a price per m² but no total (X in columns 40–41): ${n.en}. Enter the total price.`,
  },
  {
    gap: 'offersLeftOutByStatus',
    code: 'offers_left_out_by_status',
    listedAs: 'offers',
    pl: (count, n) =>
      `${polishCount(count, ['lokal w sprzedaży (wolny lub zarezerwowany) nie trafia', 'lokale w sprzedaży (wolne lub zarezerwowane) nie trafiają', 'lokali w sprzedaży (wolnych lub zarezerwowanych) nie trafia'])} do pliku, bo ich status nie jest publikowany: ${n.pl}. Ustawa wymaga publikacji cen każdego oferowanego lokalu: w Ustawieniach, zakładka „Publikacja”, w polu „Oferty w pliku dnia” zaznacz „wolne” i „zarezerwowane”.`,
    en: (count, n) =>
      `${englishCount(count, ['unit on sale is', 'units on sale are'])} left out of the file because their status is not published: ${n.en}. In Settings, tab “Publication”, tick “available” and “reserved” under “Offers in the day’s file”.`,
  },
  {
    gap: 'offersHiddenInDraft',
    code: 'offers_hidden_in_draft',
    listedAs: 'offers',
    pl: (count, n) =>
      `${polishCount(count, ['lokal w sprzedaży jest ukryty jako szkic i nie trafia', 'lokale w sprzedaży są ukryte jako szkice i nie trafiają', 'lokali w sprzedaży jest ukrytych jako szkice i nie trafia'])} do pliku: ${n.pl}. Jeśli lokal jest oferowany, w edytorze oferty ustaw „Status publikacji” na „opublikowana” i kliknij „Zapisz dane oferty”; jeśli nie, zmień jego status (np. na „niedostępne”).`,
    en: (count, n) =>
      `${englishCount(count, ['unit on sale is', 'units on sale are'])} hidden as drafts and left out of the file: ${n.en}. Publish them in the offer editor, or change their status.`,
  },
  {
    gap: 'investmentsWithoutLocation',
    code: 'investment_location_missing',
    listedAs: 'investments',
    pl: (count, n) =>
      `Inwestycje bez pełnej lokalizacji (kolumny 29–35 mają X): ${n.pl}. Uzupełnij województwo, powiat, gminę, miejscowość, ulicę, numer i kod pocztowy.`,
    en: (count, n) =>
      `Investments without a full location (columns 29–35 show X): ${n.en}. Enter the voivodeship, county, municipality, city, street, number and postal code.`,
  },
  {
    gap: 'investmentsAwaitingLocation',
    code: 'investment_awaiting_location',
    listedAs: 'investments',
    pl: (_count, n) =>
      `Inwestycje utworzone importem, które czekają na lokalizację — do tego czasu nie ma ich na stronie WWW (ich oferty są w pliku dnia): ${n.pl}. W edytorze inwestycji uzupełnij województwo, powiat, gminę, miejscowość, ulicę, numer i kod pocztowy, a potem ustaw „Status publikacji” na „opublikowana”.`,
    en: (_count, n) =>
      `Investments created by an import that await their location — until then they are not on the website (their offers are in the day’s file): ${n.en}. In the investment editor enter the full location, then set the publication status to published.`,
  },
  {
    gap: 'partsListedTwice',
    code: 'part_listed_twice',
    listedAs: 'parts',
    names: (gaps) => partNames(gaps.partsListedTwice),
    pl: (count, n) =>
      `Te same części lub pomieszczenia są w pliku kilka razy — przy dwóch lokalach albo przy lokalu i osobno: ${n.pl}. Część należy do jednego lokalu albo jest sprzedawana osobno: usuń ją w edytorze oferty tam, gdzie jest zbędna.`,
    en: (count, n) =>
      `The same parts or rooms appear more than once in the file — with two units, or with a unit and on their own: ${n.en}. A part belongs to one unit or is sold on its own: remove it in the offer editor where it does not belong.`,
  },
  {
    gap: 'investmentsWithoutProspectus',
    code: 'investment_prospectus_missing',
    listedAs: 'investments',
    pl: (count, n) => `Inwestycje bez adresu prospektu informacyjnego (kolumna 58 ma X): ${n.pl}.`,
    en: (count, n) => `Investments without a prospectus URL (column 58 shows X): ${n.en}.`,
  },
]

/** The file's incomplete places, one warning for each kind found. */
export function gapWarnings(gaps: DailyFileGaps): PublicationIssue[] {
  return GAP_WARNINGS.filter((text) => gaps[text.gap].length > 0).map((text) => {
    const list = gaps[text.gap]
    const n = text.names ? text.names(gaps) : named(list)
    return issue(text.code, text.pl(list.length, n), text.en(list.length, n), {
      count: list.length,
      [text.listedAs]: list,
    })
  })
}

/** The counts of a publication outcome and of /status. */
export function gapCounts(gaps: DailyFileGaps, fileGaps: Record<string, number> = {}): Record<string, number> {
  const counts: Record<string, number> = {
    offers_without_price: gaps.offersWithoutPrice.length,
    offers_without_price_m2: gaps.offersWithoutPriceM2.length,
    offers_without_total: gaps.offersWithoutTotal.length,
    combined_price_missing: gaps.combinedPriceMissing.length,
    combined_package_held: gaps.combinedPackageHeld.length,
    offers_left_out_by_status: gaps.offersLeftOutByStatus.length,
    offers_hidden_in_draft: gaps.offersHiddenInDraft.length,
    investments_without_location: gaps.investmentsWithoutLocation.length,
    investments_without_prospectus: gaps.investmentsWithoutProspectus.length,
  }
  // a file not read from the catalog (a report) has only its own rows to show its gaps
  const fromFile: Record<string, string> = {
    offer_price_missing: 'offers_without_price',
    offer_price_m2_missing: 'offers_without_price_m2',
    offer_price_total_missing: 'offers_without_total',
  }
  for (const [code, count] of Object.entries(fileGaps)) {
    const key = fromFile[code]
    if (key !== undefined) counts[key] = Math.max(counts[key] ?? 0, count)
  }
  return counts
}

export function untypedOffersWarning(offers: UntypedOffer[]): PublicationIssue {
  const sorted = [...offers].sort((a, b) => a.id - b.id)
  const shown = sorted.slice(0, NAMED_IN_MESSAGE).map((o) => o.code || `#${o.id}`)
  const more = sorted.length - shown.length
  const listPl = `${shown.join(', ')}${more > 0 ? ` i ${polishCount(more, ['inna', 'inne', 'innych'])}` : ''}`
  const listEn = `${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`
  return issue(
    'offer_type_missing',
    `${polishCount(sorted.length, ['oferta bez rodzaju nie trafi', 'oferty bez rodzaju nie trafią', 'ofert bez rodzaju nie trafi'])} do pliku dziennego: ${listPl}. Ustaw rodzaj (mieszkanie lub dom) w edytorze oferty albo w kolumnie „Rodzaj (mieszkanie albo dom)” importu lub w polu rodzaju webhooka; rodzaj nigdy nie jest zgadywany.`,
    `${englishCount(sorted.length, ['offer without a type is', 'offers without a type are'])} left out of the daily file: ${listEn}. Set the type (mieszkanie or dom) with the prop_type field of the import or the webhook, or in the offer editor; the type is never guessed.`,
    { count: sorted.length, offers: sorted.map((o) => ({ id: o.id, code: o.code })) },
  )
}
