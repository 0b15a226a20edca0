/*
 * The 58 columns of the ministry's template "Wzorcowy zakres danych dotyczących cen mieszkań", in
 * the template's order. The header texts are the template's bytes, oddities included (two
 * trailing spaces, "cena obowiązuje cena", "m 2"): the portal and independent checkers compare
 * them with the official file, so they are copied, never tidied. Test
 * official-columns.unit.test.ts compares the joined line with the official CSV byte for byte.
 */

const DEFINITIONS = [
  ['developer_name', 'Nazwa dewelopera'],
  ['developer_legal_form', 'Forma prawna dewelopera'],
  ['krs', 'Nr KRS'],
  ['ceidg', 'Nr wpisu do CEiDG'],
  ['nip', 'Nr NIP'],
  ['regon', 'Nr REGON'],
  ['phone', 'Nr telefonu'],
  ['email', 'Adres poczty elektronicznej'],
  ['fax', 'Nr faxu'],
  ['website', 'Adres strony internetowej dewelopera'],
  ['seat_voivodeship', 'Województwo adresu siedziby/głównego miejsca wykonywania działalności gospodarczej dewelopera'],
  ['seat_powiat', 'Powiat adresu siedziby/głównego miejsca wykonywania działalności gospodarczej dewelopera '], // the trailing space is part of the official header
  ['seat_gmina', 'Gmina adresu siedziby/głównego miejsca wykonywania działalności gospodarczej dewelopera'],
  ['seat_city', 'Miejscowość adresu siedziby/głównego miejsca wykonywania działalności gospodarczej dewelopera'],
  ['seat_street', 'Ulica adresu siedziby/głównego miejsca wykonywania działalności gospodarczej dewelopera'],
  [
    'seat_building_no',
    'Nr nieruchomości adresu siedziby/głównego miejsca wykonywania działalności gospodarczej dewelopera',
  ],
  ['seat_local_no', 'Nr lokalu adresu siedziby/głównego miejsca wykonywania działalności gospodarczej dewelopera'],
  [
    'seat_postal_code',
    'Kod pocztowy adresu siedziby/głównego miejsca wykonywania działalności gospodarczej dewelopera',
  ],
  ['sales_voivodeship', 'Województwo adresu lokalu, w którym prowadzona jest sprzedaż'],
  ['sales_powiat', 'Powiat adresu lokalu, w którym prowadzona jest sprzedaż'],
  ['sales_gmina', 'Gmina adresu lokalu, w którym prowadzona jest sprzedaż'],
  ['sales_city', 'Miejscowość adresu lokalu, w którym prowadzona jest sprzedaż'],
  ['sales_street', 'Ulica adresu lokalu, w którym prowadzona jest sprzedaż'],
  ['sales_building_no', 'Nr nieruchomości adresu lokalu, w którym prowadzona jest sprzedaż'],
  ['sales_local_no', 'Nr lokalu adresu lokalu, w którym prowadzona jest sprzedaż'],
  ['sales_postal_code', 'Kod pocztowy adresu lokalu, w którym prowadzona jest sprzedaż'],
  ['sales_additional_locations', 'Dodatkowe lokalizacje, w których prowadzona jest sprzedaż'],
  ['contact_method', 'Sposób kontaktu nabywcy z deweloperem'],
  ['loc_voivodeship', 'Województwo lokalizacji przedsięwzięcia deweloperskiego lub zadania inwestycyjnego'],
  ['loc_powiat', 'Powiat lokalizacji przedsięwzięcia deweloperskiego lub zadania inwestycyjnego'],
  ['loc_gmina', 'Gmina lokalizacji przedsięwzięcia deweloperskiego lub zadania inwestycyjnego'],
  ['loc_city', 'Miejscowość lokalizacji przedsięwzięcia deweloperskiego lub zadania inwestycyjnego'],
  ['loc_street', 'Ulica lokalizacji przedsięwzięcia deweloperskiego lub zadania inwestycyjnego'],
  ['loc_building_no', 'Nr nieruchomości lokalizacji przedsięwzięcia deweloperskiego lub zadania inwestycyjnego'],
  ['loc_postal_code', 'Kod pocztowy lokalizacji przedsięwzięcia deweloperskiego lub zadania inwestycyjnego'],
  ['property_type', 'Rodzaj nieruchomości: lokal mieszkalny, dom jednorodzinny '], // the trailing space is part of the official header
  ['property_code', 'Nr lokalu lub domu jednorodzinnego nadany przez dewelopera'],
  ['price_m2', 'Cena m 2 powierzchni użytkowej lokalu mieszkalnego / domu jednorodzinnego [zł]'],
  [
    'price_m2_from',
    'Data od której cena obowiązuje cena m 2 powierzchni użytkowej lokalu mieszkalnego / domu jednorodzinnego',
  ],
  [
    'price_total',
    'Cena lokalu mieszkalnego lub domu jednorodzinnego będących przedmiotem umowy stanowiąca iloczyn ceny m2 oraz powierzchni [zł]',
  ],
  [
    'price_total_from',
    'Data od której cena obowiązuje cena lokalu mieszkalnego lub domu jednorodzinnego będących przedmiotem umowy stanowiąca iloczyn ceny m2 oraz powierzchni',
  ],
  [
    'price_combined',
    'Cena lokalu mieszkalnego lub domu jednorodzinnego uwzględniająca cenę lokalu stanowiącą iloczyn powierzchni oraz metrażu i innych składowych ceny, o których mowa w art. 19a ust. 1 pkt 1), 2) lub 3) [zł]',
  ],
  [
    'price_combined_from',
    'Data od której obowiązuje cena lokalu mieszkalnego lub domu jednorodzinnego uwzględniająca cenę lokalu stanowiącą iloczyn powierzchni oraz metrażu i innych składowych ceny, o których mowa w art. 19a ust. 1 pkt 1), 2) lub 3)',
  ],
  ['part_kind', 'Rodzaj części nieruchomości będących przedmiotem umowy'],
  ['part_designation', 'Oznaczenie części nieruchomości nadane przez dewelopera'],
  ['part_price', 'Cena części nieruchomości, będących przedmiotem umowy [zł]'],
  ['part_price_from', 'Data od której obowiązuje cena części nieruchomości, będących przedmiotem umowy'],
  [
    'room_kind',
    'Rodzaj pomieszczeń przynależnych, o których mowa w art. 2 ust. 4 ustawy z dnia 24 czerwca 1994 r. o własności lokali',
  ],
  [
    'room_designation',
    'Oznaczenie pomieszczeń przynależnych, o których mowa w art. 2 ust. 4 ustawy z dnia 24 czerwca 1994 r. o własności lokali',
  ],
  [
    'room_price',
    'Wyszczególnienie cen pomieszczeń przynależnych, o których mowa w art. 2 ust. 4 ustawy z dnia 24 czerwca 1994 r. o własności lokali [zł]',
  ],
  [
    'room_price_from',
    'Data od której obowiązuje cena wyszczególnionych pomieszczeń przynależnych, o których mowa w art. 2 ust. 4 ustawy z dnia 24 czerwca 1994 r. o własności lokali',
  ],
  [
    'right_description',
    'Wyszczególnienie praw niezbędnych do korzystania z lokalu mieszkalnego lub domu jednorodzinnego',
  ],
  ['right_value', 'Wartość praw niezbędnych do korzystania z lokalu mieszkalnego lub domu jednorodzinnego [zł]'],
  [
    'right_value_from',
    'Data od której obowiązuje cena wartości praw niezbędnych do korzystania z lokalu mieszkalnego lub domu jednorodzinnego',
  ],
  [
    'other_payment_description',
    'Wyszczególnienie rodzajów innych świadczeń pieniężnych, które nabywca zobowiązany jest spełnić na rzecz dewelopera w wykonaniu umowy przenoszącej własność',
  ],
  [
    'other_payment_value',
    'Wartość innych świadczeń pieniężnych, które nabywca zobowiązany jest spełnić na rzecz dewelopera w wykonaniu umowy przenoszącej własność [zł]',
  ],
  [
    'other_payment_value_from',
    'Data od której obowiązuje cena wartości innych świadczeń pieniężnych, które nabywca zobowiązany jest spełnić na rzecz dewelopera w wykonaniu umowy przenoszącej własność',
  ],
  ['prospectus_url', 'Adres strony internetowej, pod którym dostępny jest prospekt informacyjny'],
] as const

export type OfficialColumnKey = (typeof DEFINITIONS)[number][0]

export interface OfficialColumn {
  /** 1-based position, as the official documentation numbers the columns. */
  readonly number: number
  readonly key: OfficialColumnKey
  readonly header: string
}

export const OFFICIAL_COLUMN_COUNT = 58

export const OFFICIAL_COLUMNS: readonly OfficialColumn[] = Object.freeze(
  DEFINITIONS.map(([key, header], index) => Object.freeze({ number: index + 1, key, header })),
)

if (OFFICIAL_COLUMNS.length !== OFFICIAL_COLUMN_COUNT) {
  throw new Error(`official column table has ${OFFICIAL_COLUMNS.length} entries, expected ${OFFICIAL_COLUMN_COUNT}`)
}

export const OFFICIAL_HEADERS: readonly string[] = Object.freeze(OFFICIAL_COLUMNS.map((column) => column.header))

/** The header row of the daily file, without its line end. */
export const OFFICIAL_HEADER_LINE: string = OFFICIAL_HEADERS.join(';')

/** 0-based position of each column in a row. */
export const OFFICIAL_COLUMN_INDEX: Readonly<Record<OfficialColumnKey, number>> = Object.freeze(
  Object.fromEntries(OFFICIAL_COLUMNS.map((column) => [column.key, column.number - 1])) as Record<
    OfficialColumnKey,
    number
  >,
)
