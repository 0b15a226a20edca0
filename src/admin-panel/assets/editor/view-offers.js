// Offers: GET {base}/offers as a table the server filters, sorts and pages (the catalog's filters,
// publication status and "without type"), a new offer through POST {base}/offers, and one offer's
// editor (view-offer-edit.js). Filters and page live in the address, so a list can be bookmarked
// and "back" from an offer returns to it.
import { formatArea, formatWhen, formatMoney, h, moneyToCents, replaceChildren, todayInWarsaw } from '../dom.js'
import {
  HOST_STATUSES,
  hashRoute,
  hostStatusBadge,
  OFFER_STATUSES,
  offerStatusBadge,
  optionsOf,
  PROPERTY_TYPES,
  propertyTypeLabel,
  replaceHashQuery,
} from './editor-labels.js'
import { issueLines } from './editor-forms.js'
import { tr } from '../i18n.js'
import { dateInput, dayOf } from '../fields/date-input.js'
import {
  alertBox,
  card,
  clearFieldErrors,
  errorBox,
  formField,
  pagedTable,
  showFieldErrors,
  toast,
  withBusy,
} from '../ui.js'
import { renderOfferEditor } from './view-offer-edit.js'
import { announcedText } from '../offer-edit/price-text.js'

const SECTION = 'oferty'

export async function renderOffers(page, context) {
  const { segments } = hashRoute()
  if (segments[1] === 'nowa') return renderNewOffer(page, context)
  if (segments[1] !== undefined) return renderOfferEditor(page, { ...context, id: Number(segments[1]) })
  return renderOfferList(page, context)
}

/**
 * Every investment, for the filters and the new-offer form, by title: a page of 100 at a time, so
 * that a developer with more than a hundred still finds each one (a developer has tens, not
 * thousands).
 */
export async function loadInvestmentChoices(api, signal) {
  const choices = []
  for (let page = 1, pages = 1; page <= pages; page++) {
    const { body, headers } = await api.get(`/investments?per_page=100&page=${page}`, { signal })
    pages = Number(headers.get('X-WP-TotalPages') ?? 1)
    for (const investment of body) choices.push({ id: investment.id, title: investment.title })
  }
  return choices.sort((a, b) => a.title.localeCompare(b.title, 'pl', { numeric: true }))
}

/** One page of offers with the total from X-WP-Total. */
export async function loadOfferPage(api, query, signal) {
  const { body, headers } = await api.get(`/offers?${query}`, { signal })
  return {
    items: body,
    total: Number(headers.get('X-WP-Total') ?? body.length),
    totalPages: Number(headers.get('X-WP-TotalPages') ?? 1),
  }
}

async function renderOfferList(page, { api, signal }) {
  const { params } = hashRoute()
  const investments = await loadInvestmentChoices(api, signal)

  const input = (name, attributes = {}) =>
    h('input', { id: `filter-${name}`, name, value: params.get(name) ?? '', autocomplete: 'off', ...attributes })
  const select = (name, options) => {
    const element = h('select', { id: `filter-${name}`, name }, options)
    element.value = params.get(name) ?? ''
    return element
  }
  const search = input('search', {
    type: 'search',
    placeholder: tr('oznaczenie, tytuł lub identyfikator', 'designation, title or id'),
  })
  const investment = select('investment', [
    h('option', { value: '' }, tr('wszystkie', 'all')),
    investments.map((i) => h('option', { value: String(i.id) }, i.title)),
  ])
  const status = select('status', optionsOf(OFFER_STATUSES, { blank: tr('każdy', 'any') }))
  const hostStatus = select('host_status', optionsOf(HOST_STATUSES, { blank: tr('każdy', 'any') }))
  const type = select('type', optionsOf(PROPERTY_TYPES, { blank: tr('każdy', 'any') }))
  const withoutType = h('input', {
    type: 'checkbox',
    id: 'filter-without_type',
    name: 'without_type',
    checked: params.get('without_type') === 'true',
  })
  const rooms = input('rooms', { type: 'number', min: '0', max: '100', inputmode: 'numeric' })
  const floor = input('floor', { type: 'number', min: '-20', max: '300', inputmode: 'numeric' })
  const areaMin = input('area_min', { inputmode: 'decimal', placeholder: 'np. 40' })
  const areaMax = input('area_max', { inputmode: 'decimal', placeholder: 'np. 80' })
  // prices are typed in złoty; the API takes grosze
  const zloty = (name) => {
    const cents = Number(params.get(name))
    return input(name, {
      inputmode: 'decimal',
      placeholder: 'np. 500 000',
      value: params.has(name) && Number.isFinite(cents) ? String(cents / 100) : '',
    })
  }
  const priceMin = zloty('price_min')
  const priceMax = zloty('price_max')
  const more = ['host_status', 'rooms', 'floor', 'area_min', 'area_max', 'price_min', 'price_max'].some((k) =>
    params.has(k),
  )

  const filters = h(
    'form',
    { class: 'filters', id: 'offer-filters', role: 'search', onsubmit: (event) => event.preventDefault() },
    h(
      'div',
      { class: 'form-row' },
      formField({ label: tr('Szukaj', 'Search'), input: search, className: 'field-wide' }),
      formField({ label: tr('Inwestycja', 'Investment'), input: investment }),
      formField({ label: tr('Status oferty', 'Offer status'), input: status }),
      formField({ label: tr('Rodzaj', 'Type'), input: type }),
    ),
    h(
      'div',
      { class: 'filter-options' },
      formField({
        label: tr('Tylko oferty bez rodzaju', 'Only offers without a type'),
        input: withoutType,
        className: 'field-auto',
      }),
      h(
        'button',
        {
          type: 'button',
          class: 'button button-quiet',
          id: 'clear-filters',
          onclick: () => {
            for (const element of /** @type {NodeListOf<HTMLInputElement | HTMLSelectElement>} */ (
              filters.querySelectorAll('input, select')
            ))
              if (element.type === 'checkbox') element.checked = false
              else element.value = ''
            refresh()
          },
        },
        tr('Wyczyść filtry', 'Clear filters'),
      ),
    ),
    h(
      'details',
      { class: 'more-filters', open: more },
      h('summary', {}, tr('Więcej filtrów', 'More filters')),
      h(
        'div',
        { class: 'form-row' },
        formField({ label: tr('Status publikacji', 'Publication status'), input: hostStatus }),
        formField({ label: tr('Liczba pokoi', 'Rooms'), input: rooms, className: 'field-narrow' }),
        formField({ label: tr('Piętro', 'Floor'), input: floor, className: 'field-narrow' }),
        formField({ label: tr('Powierzchnia od (m²)', 'Area from (m²)'), input: areaMin, className: 'field-narrow' }),
        formField({ label: tr('Powierzchnia do (m²)', 'Area up to (m²)'), input: areaMax, className: 'field-narrow' }),
        formField({ label: tr('Cena od (zł)', 'Price from (zł)'), input: priceMin, className: 'field-narrow' }),
        formField({ label: tr('Cena do (zł)', 'Price up to (zł)'), input: priceMax, className: 'field-narrow' }),
      ),
    ),
  )

  function filterQuery() {
    const query = new URLSearchParams()
    clearFieldErrors(filters)
    const problems = []
    const text = (name, element) => {
      const value = element.value.trim()
      if (value !== '') query.set(name, value)
    }
    text('search', search)
    text('investment', investment)
    text('status', status)
    text('host_status', hostStatus)
    text('type', type)
    if (withoutType.checked) query.set('without_type', 'true')
    text('rooms', rooms)
    text('floor', floor)
    /** @type {[string, HTMLInputElement][]} */
    const areaFields = [
      ['area_min', areaMin],
      ['area_max', areaMax],
    ]
    for (const [name, element] of areaFields) {
      const value = element.value.trim().replace(/\s/g, '')
      if (value === '') continue
      if (/^\d{1,7}([.,]\d{1,2})?$/.test(value)) query.set(name, value)
      else problems.push({ field: name, code: 'invalid', message: tr('Wpisz np. 54,5', 'Type e.g. 54.5') })
    }
    /** @type {[string, HTMLInputElement][]} */
    const priceFields = [
      ['price_min', priceMin],
      ['price_max', priceMax],
    ]
    for (const [name, element] of priceFields) {
      if (element.value.trim() === '') continue
      const cents = moneyToCents(element.value)
      if (cents === null)
        problems.push({ field: name, code: 'invalid', message: tr('Wpisz np. 500 000', 'Type e.g. 500000') })
      else query.set(name, String(cents))
    }
    if (problems.length > 0) showFieldErrors(filters, problems)
    return query
  }

  let filterState = filterQuery()
  const table = pagedTable({
    id: 'offers-table',
    state: {
      page: Number(params.get('page')) || 1,
      perPage: Number(params.get('per_page')) || 20,
      // newest first by id: the server's default, fast at any size
      orderby: params.get('orderby') || 'id',
      order: params.get('order') || 'desc',
    },
    columns: [
      {
        label: tr('Oferta', 'Offer'),
        sort: 'code',
        render: (offer) => [
          h(
            'a',
            { href: `#/${SECTION}/${offer.id}`, class: 'offer-link', dataset: { id: String(offer.id) } },
            offer.prop_no,
          ),
          h('div', { class: 'cell-note' }, offer.title),
        ],
      },
      {
        label: tr('Inwestycja', 'Investment'),
        render: (offer) => h('a', { href: `#/inwestycje/${offer.investment_id}` }, offer.investment_title),
      },
      {
        label: tr('Rodzaj', 'Type'),
        render: (offer) =>
          offer.qualified
            ? propertyTypeLabel(offer.prop_type, { short: true })
            : h('span', { class: 'badge badge-warn', dataset: { unqualified: '' } }, tr('bez rodzaju', 'without type')),
      },
      { label: tr('Status', 'Status'), render: (offer) => offerStatusBadge(offer.property_status, offer.prop_type) },
      { label: tr('Publikacja', 'Publication'), render: (offer) => hostStatusBadge(offer.host_status) },
      { label: tr('Powierzchnia', 'Area'), sort: 'area', className: 'num', render: (o) => formatArea(o.prop_area) },
      {
        label: tr('Cena całkowita', 'Total price'),
        sort: 'price',
        defaultOrder: 'asc',
        className: 'num',
        render: (offer) => priceInForce(offer, 'price_total'),
      },
      {
        label: tr('Cena za m²', 'Price per m²'),
        className: 'num',
        render: (offer) => priceInForce(offer, 'price_m2'),
      },
      {
        label: tr('Zmieniono', 'Changed'),
        sort: 'modified',
        defaultOrder: 'desc',
        render: (offer) => formatWhen(offer.modified_at),
      },
    ],
    rowAttributes: (offer) => ({
      dataset: { id: String(offer.id), code: offer.prop_no },
      class: offer.qualified ? null : 'row-flagged',
    }),
    empty: tr('Żadna oferta nie spełnia tych warunków.', 'No offer matches these filters.'),
    load: async (state) => {
      const query = new URLSearchParams(filterState)
      query.set('page', String(state.page))
      query.set('per_page', String(state.perPage))
      query.set('orderby', String(state.orderby))
      query.set('order', String(state.order))
      return loadOfferPage(api, query, signal)
    },
    onState: (state) => {
      const query = new URLSearchParams(filterState)
      if (state.page > 1) query.set('page', String(state.page))
      if (state.perPage !== 20) query.set('per_page', String(state.perPage))
      if (state.orderby !== 'id') query.set('orderby', state.orderby)
      if (state.order !== 'desc') query.set('order', state.order)
      replaceHashQuery(SECTION, query)
    },
  })

  function refresh() {
    filterState = filterQuery()
    void table.reload({ page: 1 })
  }
  let typing = null
  /** @param {Event} event */
  const isChoice = (event) => {
    const target = /** @type {HTMLInputElement | HTMLSelectElement} */ (event.target)
    return target.tagName === 'SELECT' || target.type === 'checkbox'
  }
  filters.addEventListener('input', (event) => {
    if (isChoice(event)) return
    clearTimeout(typing)
    typing = setTimeout(refresh, 350)
  })
  filters.addEventListener('change', (event) => {
    if (isChoice(event)) refresh()
  })

  const untypedSlot = h('div', { id: 'untyped-notice' })
  page.append(
    h(
      'div',
      { class: 'page-header' },
      h('h1', {}, tr('Oferty', 'Offers')),
      h(
        'a',
        { class: 'button button-primary', href: `#/${SECTION}/nowa`, id: 'new-offer' },
        tr('Nowa oferta', 'New offer'),
      ),
    ),
    untypedSlot,
    card(null, filters),
    card(null, table.element),
  )
  await table.reload()
  void showUntypedNotice(api, signal, untypedSlot, () => {
    withoutType.checked = true
    refresh()
  })
}

/** Offers without a type are not published until an operator sets it: say how many there are. */
async function showUntypedNotice(api, signal, slot, onShow) {
  try {
    const { total } = await loadOfferPage(api, 'without_type=true&per_page=1', signal)
    if (total === 0) return
    replaceChildren(
      slot,
      alertBox(
        'warning',
        tr(`Oferty bez rodzaju: ${total}`, `Offers without a type: ${total}`),
        h(
          'p',
          {},
          tr(
            'Import albo webhook przysłał je bez rodzaju (mieszkanie, dom, miejsce postojowe…). Nie trafiają do pliku urzędowego, dopóki nie ustawisz ich rodzaju.',
            'An import or the webhook sent them without a type (flat, house, parking space…). They are left out of the official file until you set their type.',
          ),
        ),
        h(
          'button',
          { type: 'button', class: 'button', id: 'show-untyped', onclick: onShow },
          tr('Pokaż oferty bez rodzaju', 'Show offers without a type'),
        ),
      ),
    )
  } catch {
    // the notice is a help; the table shows any real error
  }
}

// ---------------------------------------------------------------------------------------------
// a new offer

async function renderNewOffer(page, { api, signal }) {
  const { params } = hashRoute()
  const investments = await loadInvestmentChoices(api, signal)
  const today = todayInWarsaw()
  const control = (tag, name, attributes = {}, children = []) =>
    h(tag, { name, id: `new-${name}`, ...attributes }, children)

  const investment = control('select', 'investment_id', { required: true }, [
    h('option', { value: '' }, tr('— wybierz —', '— choose —')),
    investments.map((i) => h('option', { value: String(i.id) }, i.title)),
  ])
  investment.value = params.get('investment') ?? ''
  const type = control(
    'select',
    'prop_type',
    { required: true },
    optionsOf(PROPERTY_TYPES, { blank: tr('— wybierz —', '— choose —') }),
  )
  const status = control('select', 'property_status', {}, optionsOf(OFFER_STATUSES, { selected: 'available' }))
  const hostStatus = control('select', 'host_status', {}, optionsOf(HOST_STATUSES, { selected: 'publish' }))
  const text = (name, attributes = {}) => control('input', name, { autocomplete: 'off', ...attributes })
  const fields = {
    prop_no: text('prop_no', { required: true, maxlength: 100, placeholder: 'np. A/1.02' }),
    title: text('title', { maxlength: 255 }),
    prop_area: text('prop_area', { inputmode: 'decimal', placeholder: 'np. 54,30' }),
    prop_rooms: text('prop_rooms', { inputmode: 'numeric' }),
    prop_floor: text('prop_floor', { inputmode: 'numeric' }),
    building: text('building', { maxlength: 100 }),
    price_total: text('price_total', { inputmode: 'decimal', placeholder: 'np. 650 000,00' }),
    price_m2: text('price_m2', { inputmode: 'decimal', placeholder: 'np. 12 000,00' }),
    source_property_id: text('source_property_id', { maxlength: 100 }),
  }
  const priceFrom = dateInput({ id: 'new-price_from', name: 'price_from', value: today })
  const message = h('div', { class: 'form-message', 'aria-live': 'assertive' })
  const submit = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'create-offer' },
    tr('Utwórz ofertę', 'Create the offer'),
  )

  const form = h(
    'form',
    { id: 'new-offer-form', novalidate: true, class: 'stack' },
    card(
      tr('Oferta', 'Offer'),
      h(
        'div',
        { class: 'form-row' },
        formField({ label: tr('Inwestycja', 'Investment'), input: investment, names: 'investment_id', required: true }),
        formField({
          label: tr('Rodzaj oferty', 'Type of offer'),
          input: type,
          required: true,
          hint: tr(
            'Mieszkanie i dom mogą mieć elementy dodatkowe (miejsca postojowe, komórki). Część sprzedawaną osobno dodaj jako osobną ofertę.',
            'A flat or a house may have parts and rooms (parking spaces, storage rooms). Add a part sold on its own as an offer of its own.',
          ),
        }),
      ),
      h(
        'div',
        { class: 'form-row' },
        formField({ label: tr('Oznaczenie lokalu', 'Designation'), input: fields.prop_no, required: true }),
        formField({
          label: tr('Tytuł', 'Title'),
          input: fields.title,
          hint: tr('Puste: np. „Mieszkanie A/1.02”.', 'Empty: e.g. "Mieszkanie A/1.02".'),
        }),
        formField({ label: tr('Budynek', 'Building'), input: fields.building }),
      ),
      h(
        'div',
        { class: 'form-row' },
        formField({ label: tr('Status oferty', 'Offer status'), input: status }),
        formField({
          label: tr('Status publikacji', 'Publication status'),
          input: hostStatus,
          hint: tr(
            'Katalog i plik urzędowy pokazują tylko opublikowane.',
            'The catalog and the official file show published ones only.',
          ),
        }),
      ),
      h(
        'div',
        { class: 'form-row' },
        formField({ label: tr('Powierzchnia (m²)', 'Area (m²)'), input: fields.prop_area, className: 'field-narrow' }),
        formField({ label: tr('Liczba pokoi', 'Rooms'), input: fields.prop_rooms, className: 'field-narrow' }),
        formField({ label: tr('Piętro', 'Floor'), input: fields.prop_floor, className: 'field-narrow' }),
      ),
    ),
    card(
      tr('Ceny', 'Prices'),
      h(
        'div',
        { class: 'form-row' },
        formField({ label: tr('Cena całkowita (zł)', 'Total price (zł)'), input: fields.price_total }),
        formField({ label: tr('Cena za m² (zł)', 'Price per m² (zł)'), input: fields.price_m2 }),
        formField({
          label: tr('Ceny obowiązują od', 'Prices valid from'),
          input: priceFrom,
          names: 'price_total_from price_m2_from',
        }),
      ),
      h(
        'p',
        { class: 'hint' },
        tr(
          'Kwoty wpisuj po polsku, np. 650 000,00. Cena całkowita musi być równa cenie za m² × powierzchnia.',
          'Type amounts as 650 000,00 or 650000.00. The total must equal the price per m² × the area.',
        ),
      ),
    ),
    card(
      tr('Powiązanie z innym systemem (opcjonalnie)', 'Link to another system (optional)'),
      formField({
        label: tr('Identyfikator w systemie źródłowym', 'Id in the source system'),
        input: fields.source_property_id,
        hint: tr(
          'Jeśli ceny tej oferty przychodzą też z importu lub CRM: jej identyfikator tam (kolumna ID lokalu).',
          'If this offer’s prices also come from an import or a CRM: its id there.',
        ),
      }),
    ),
    message,
    h(
      'div',
      { class: 'actions' },
      submit,
      h('a', { class: 'button button-quiet', href: `#/${SECTION}` }, tr('Anuluj', 'Cancel')),
    ),
  )

  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    replaceChildren(message)
    const body = {}
    if (investment.value) body.investment_id = Number(investment.value)
    if (type.value) body.prop_type = type.value
    body.property_status = status.value
    body.host_status = hostStatus.value
    for (const [name, element] of Object.entries(fields)) {
      const value = element.value.trim()
      if (value !== '') body[name] = value
    }
    if (body.price_total !== undefined) body.price_total_from = dayOf(priceFrom)
    if (body.price_m2 !== undefined) body.price_m2_from = dayOf(priceFrom)
    try {
      const { body: created } = await withBusy(submit, tr('Zapisywanie…', 'Saving…'), () =>
        api.post('/offers', { json: body }),
      )
      toast(tr(`Utworzono ofertę ${created.prop_no}.`, `Offer ${created.prop_no} created.`))
      location.hash = `#/${SECTION}/${created.id}`
    } catch (error) {
      const unplaced = showFieldErrors(form, error?.body?.issues)
      replaceChildren(message, errorBox(error, issueLines(unplaced)))
    }
  })

  page.append(
    h(
      'div',
      { class: 'page-header' },
      h('h1', {}, tr('Nowa oferta', 'New offer')),
      h('a', { href: `#/${SECTION}` }, tr('← Wszystkie oferty', '← All offers')),
    ),
    form,
  )
  investment.focus()
}

/** The price in force today; an announced one is named under it ("od 01.12.2026 (zapowiedziana)"). */
function priceInForce(offer, name) {
  const now = offer.in_force?.[name]
  if (!now) return formatMoney(offer[name])
  if (!now.next) return formatMoney(now.amount)
  return [formatMoney(now.amount), h('div', { class: 'hint' }, announcedText(now.next))]
}
