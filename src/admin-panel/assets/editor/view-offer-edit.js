// One offer in the editor: GET {base}/offers/{id} and every change through PATCH {base}/offers/{id}
// (its data, a price change with its date, reason and correction flag, its type when an import
// sent none), archive and restore, its components (POST/PATCH/DELETE …/components) and its price
// history (GET …/price-history). Each write names the version shown (If-Match), so a change made
// meanwhile is shown to the operator instead of being overwritten.
import { plural } from '../operator/plural.js'
import {
  facts,
  formatArea,
  formatDate,
  formatWhen,
  formatMoney,
  h,
  moneyInputText,
  moneyToCents,
  mono,
  replaceChildren,
  todayInWarsaw,
} from '../dom.js'
import {
  channelLabel,
  COMPONENT_GROUPS,
  COMPONENT_KINDS,
  componentKindLabel,
  fieldLabel,
  HOST_STATUSES,
  hostStatusBadge,
  OFFER_STATUSES,
  offerStatusBadge,
  optionsOf,
  PROPERTY_TYPES,
  propertyTypeLabel,
  recordTypeLabel,
} from './editor-labels.js'
import { conflictRowsOf, customMetaEditor, readField, sendVersioned } from './editor-forms.js'
import { mediaCard } from './editor-media.js'
import { drawPriceChart } from './price-chart.js'
import { tr } from '../i18n.js'
import { dateInput, dayOf } from '../fields/date-input.js'
import { alertBox, card, confirmDialog, errorBox, formField, toast } from '../ui.js'

const PRICES = ['price_total', 'price_m2', 'price_combined']
/** Fields a stale edit compares between the offer as shown and as stored now. */
const WATCHED = [
  'prop_no',
  'title',
  'prop_type',
  'property_status',
  'host_status',
  'prop_area',
  'prop_rooms',
  'prop_floor',
  'building',
  'variant',
  ...PRICES,
]

export async function renderOfferEditor(page, { api, signal, id }) {
  if (!Number.isSafeInteger(id) || id < 1) {
    page.append(alertBox('error', tr('Nieprawidłowy adres oferty.', 'Invalid offer address.')))
    return
  }
  let offer = (await api.get(`/offers/${id}`, { signal })).body
  const customFields = (await api.get('/custom-fields', { signal })).body.dg_property
  const path = `/offers/${id}`

  const header = h('div', { class: 'page-header' })
  const qualifySlot = h('div')
  const dataSlot = h('div')
  const priceSlot = h('div')
  const historySlot = h('div')
  const componentSlot = h('div', { id: 'components-card' })
  // one media card for the page: uploads in progress and their refusals stay while the page is drawn again
  const media = mediaCard({
    api,
    signal,
    owner: 'offers',
    entity: offer,
    onSaved: (saved) => draw(saved),
    onCurrent: (current) => draw(current),
  })
  const mediaSlot = h('div', { id: 'media-card' }, media.element)
  const lifecycleSlot = h('div')
  const detailsSlot = h('div')
  page.append(
    header,
    qualifySlot,
    h('div', { class: 'grid editor-grid' }, dataSlot, priceSlot),
    componentSlot,
    historySlot,
    mediaSlot,
    h('div', { class: 'grid' }, lifecycleSlot, detailsSlot),
  )

  /** Draws every part from the offer as stored now (after a load, a save or a conflict). */
  function draw(current) {
    offer = current
    document.title = `${offer.prop_no} — ${tr('panel operatora', 'operator panel')}`
    replaceChildren(header, pageHeader(offer))
    replaceChildren(qualifySlot, offer.qualified ? null : qualifyCard())
    replaceChildren(dataSlot, dataCard())
    replaceChildren(priceSlot, priceCard())
    replaceChildren(componentSlot, componentsCard())
    media.update(offer)
    replaceChildren(lifecycleSlot, lifecycleCard())
    replaceChildren(detailsSlot, detailsCard(offer))
    void drawHistory()
  }

  const saved = (text) => (updated) => {
    draw(updated)
    toast(text)
  }

  // ---------------------------------------------------------------------------------------------
  // the type of an offer sent without one

  function qualifyCard() {
    const type = h(
      'select',
      { id: 'qualify-type', name: 'prop_type' },
      optionsOf(PROPERTY_TYPES, { blank: tr('— wybierz rodzaj —', '— choose the type —') }),
    )
    const message = h('div', { class: 'form-message', 'aria-live': 'assertive' })
    const button = h(
      'button',
      { type: 'submit', class: 'button button-primary', id: 'qualify-submit' },
      tr('Ustaw rodzaj', 'Set the type'),
    )
    const form = h(
      'form',
      { id: 'qualify-form', novalidate: true },
      h(
        'p',
        {},
        tr(
          'Import albo webhook przysłał tę ofertę bez rodzaju. Dopóki go nie ustawisz, oferta nie trafia do pliku urzędowego ani do katalogu. Rodzaju nigdy nie zgadujemy — wybierz go na podstawie umowy lub prospektu.',
          'An import or the webhook sent this offer without a type. Until you set it, the offer stays out of the official file and the catalog. The type is never guessed — choose it from the contract or the prospectus.',
        ),
      ),
      h(
        'div',
        { class: 'form-row' },
        formField({ label: tr('Rodzaj oferty', 'Type of offer'), input: type, required: true }),
      ),
      message,
      h('div', { class: 'actions' }, button),
    )
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      void sendVersioned({
        api,
        method: 'PATCH',
        path,
        body: { prop_type: type.value },
        version: offer.version,
        before: offer,
        watch: WATCHED,
        form,
        message,
        button,
        onSaved: saved(tr('Ustawiono rodzaj oferty.', 'The type of the offer is set.')),
        onCurrent: draw,
      })
    })
    return h(
      'section',
      { class: 'alert alert-warning alert-large', id: 'qualify' },
      h('h2', { class: 'alert-title' }, tr('Ta oferta nie ma rodzaju', 'This offer has no type')),
      form,
    )
  }

  // ---------------------------------------------------------------------------------------------
  // the offer's data

  function dataCard() {
    const text = (name, attributes = {}) =>
      h('input', { id: `offer-${name}`, name, autocomplete: 'off', value: offer[name] ?? '', ...attributes })
    const inputs = {
      prop_no: text('prop_no', { maxlength: 100 }),
      title: text('title', { maxlength: 255 }),
      prop_area: text('prop_area', { inputmode: 'decimal', value: (offer.prop_area ?? '').replace('.', ',') }),
      prop_rooms: text('prop_rooms', { inputmode: 'numeric', value: offer.prop_rooms ?? '' }),
      prop_floor: text('prop_floor', { inputmode: 'numeric', value: offer.prop_floor ?? '' }),
      building: text('building', { maxlength: 100 }),
      variant: text('variant', { maxlength: 100 }),
    }
    const typeOptions = optionsOf(PROPERTY_TYPES, {
      selected: offer.prop_type,
      blank: offer.qualified ? undefined : tr('— bez rodzaju —', '— without type —'),
    })
    const selects = {
      prop_type: h('select', { id: 'offer-prop_type', name: 'prop_type' }, typeOptions),
      // archiving has its own action, which withdraws the prices
      property_status: h(
        'select',
        { id: 'offer-property_status', name: 'property_status' },
        optionsOf(
          Object.fromEntries(
            Object.entries(OFFER_STATUSES).filter(
              ([code]) => code !== 'archived' || offer.property_status === 'archived',
            ),
          ),
          { selected: offer.property_status },
        ),
      ),
      host_status: h(
        'select',
        { id: 'offer-host_status', name: 'host_status' },
        optionsOf(HOST_STATUSES, { selected: offer.host_status }),
      ),
    }
    const meta = customMetaEditor(offer.custom_meta, customFields, 'offer')
    const message = h('div', { class: 'form-message', 'aria-live': 'assertive' })
    const button = h(
      'button',
      { type: 'submit', class: 'button button-primary', id: 'save-offer' },
      tr('Zapisz dane oferty', 'Save the offer'),
    )
    const field = (name, input, extra = {}) => formField({ label: fieldLabel(name), input, names: name, ...extra })
    const form = h(
      'form',
      { id: 'offer-form', novalidate: true },
      h(
        'div',
        { class: 'form-row' },
        field('prop_no', inputs.prop_no, { required: true }),
        field('title', inputs.title, { required: true }),
      ),
      h(
        'div',
        { class: 'form-row' },
        field('prop_type', selects.prop_type),
        field('property_status', selects.property_status),
        field('host_status', selects.host_status, {
          hint: tr(
            'Katalog i plik urzędowy pokazują tylko opublikowane.',
            'The catalog and the official file show published ones only.',
          ),
        }),
      ),
      h(
        'div',
        { class: 'form-row' },
        field('prop_area', inputs.prop_area, { className: 'field-narrow' }),
        field('prop_rooms', inputs.prop_rooms, { className: 'field-narrow' }),
        field('prop_floor', inputs.prop_floor, { className: 'field-narrow' }),
        field('building', inputs.building, { className: 'field-narrow' }),
        field('variant', inputs.variant, { className: 'field-narrow' }),
      ),
      h('h3', {}, tr('Pola dodatkowe', 'Custom fields')),
      meta.element,
      message,
      h('div', { class: 'actions' }, button),
    )
    const shown = (name) => {
      if (name === 'prop_area') return (offer.prop_area ?? '').replace('.', ',')
      return offer[name] === null || offer[name] === undefined ? '' : String(offer[name])
    }
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      const body = {}
      for (const [name, input] of Object.entries(inputs)) {
        const value = input.value.trim()
        if (value === shown(name)) continue
        // an emptied area, rooms, floor, building or variant is removed; designation and title are never empty
        body[name] = value === '' && name !== 'prop_no' && name !== 'title' ? null : value
      }
      for (const [name, select] of Object.entries(selects))
        if (select.value !== (offer[name] ?? '') && select.value !== '') body[name] = select.value
      const metaChanges = meta.changes()
      if (metaChanges) body.custom_meta = metaChanges
      if (Object.keys(body).length === 0) {
        toast(tr('Nic nie zmieniono.', 'Nothing changed.'), 'info')
        return
      }
      void sendVersioned({
        api,
        method: 'PATCH',
        path,
        body,
        version: offer.version,
        before: offer,
        watch: WATCHED,
        form,
        message,
        button,
        onSaved: saved(tr('Zapisano dane oferty.', 'The offer is saved.')),
        onCurrent: draw,
      })
    })
    return card(tr('Dane oferty', 'Offer data'), form)
  }

  // ---------------------------------------------------------------------------------------------
  // prices: a change with its date, reason and correction flag

  function priceCard() {
    const today = todayInWarsaw()
    const amount = (name) =>
      h('input', {
        id: `price-${name}`,
        name,
        inputmode: 'decimal',
        autocomplete: 'off',
        value: moneyInputText(offer[name]),
      })
    const inputs = Object.fromEntries(PRICES.map((name) => [name, amount(name)]))
    const from = dateInput({ id: 'price-from', name: 'price_from', value: today, required: true })
    const reason = h('input', { id: 'price-reason', name: 'reason', maxlength: 500, autocomplete: 'off' })
    const correction = h('input', { id: 'price-correction', name: 'correction', type: 'checkbox' })
    const combinedVariant = h('input', {
      id: 'price-combined-variant',
      name: 'price_combined_variant',
      value: offer.price_combined_variant ?? '',
    })
    const combinedStatus = h('input', {
      id: 'price-combined-status',
      name: 'price_combined_status',
      value: offer.price_combined_status ?? '',
    })
    const perM2 = h('p', { class: 'hint', id: 'price-per-m2', 'aria-live': 'polite' })
    const message = h('div', { class: 'form-message', 'aria-live': 'assertive' })
    const button = h(
      'button',
      { type: 'submit', class: 'button button-primary', id: 'save-prices' },
      tr('Zapisz zmianę ceny', 'Save the price change'),
    )

    /*
     * The operator types either the total or the price per m²; the other is computed from the area
     * at once and shown before saving, to the grosz with half a grosz rounded up. Both are sent,
     * and the server's one write path still checks that they agree (the price-consistency rule).
     */
    const areaHundredths = offer.prop_area ? Math.round(Number(offer.prop_area) * 100) : 0
    const compute = (source) => {
      const target = source === 'price_total' ? 'price_m2' : 'price_total'
      const cents = moneyToCents(inputs[source].value)
      inputs.price_total.classList.remove('computed')
      inputs.price_m2.classList.remove('computed')
      if (!areaHundredths) {
        replaceChildren(
          perM2,
          tr(
            'Powierzchnia oferty nie jest znana: podaj obie ceny (całkowitą i za m²).',
            'The offer has no area: give both prices (the total and the price per m²).',
          ),
        )
        return
      }
      if (cents === null || inputs[source].value.trim() === '') {
        replaceChildren(perM2)
        return
      }
      const result =
        source === 'price_total'
          ? Math.round((cents * 100) / areaHundredths)
          : Math.round((cents * areaHundredths) / 100)
      inputs[target].value = moneyInputText((result / 100).toFixed(2))
      inputs[target].classList.add('computed')
      const area = formatArea(offer.prop_area)
      replaceChildren(
        perM2,
        h(
          'span',
          { id: 'price-computed', dataset: { computed: target } },
          source === 'price_total'
            ? tr(
                `Cena za m² obliczona: ${formatMoney((cents / 100).toFixed(2))} ÷ ${area} = ${formatMoney((result / 100).toFixed(2))}/m².`,
                `Price per m² computed: ${formatMoney((cents / 100).toFixed(2))} ÷ ${area} = ${formatMoney((result / 100).toFixed(2))}/m².`,
              )
            : tr(
                `Cena całkowita obliczona: ${formatMoney((cents / 100).toFixed(2))}/m² × ${area} = ${formatMoney((result / 100).toFixed(2))}.`,
                `Total computed: ${formatMoney((cents / 100).toFixed(2))}/m² × ${area} = ${formatMoney((result / 100).toFixed(2))}.`,
              ),
        ),
        ' ',
        h(
          'span',
          { class: 'muted', id: 'price-rounding-rule' },
          tr(
            'Zaokrąglenie do pełnego grosza, połowa grosza w górę. Zapisane zostaną obie ceny.',
            'Rounded to the grosz, half a grosz up. Both prices are saved.',
          ),
        ),
      )
    }
    inputs.price_total.addEventListener('input', () => compute('price_total'))
    inputs.price_m2.addEventListener('input', () => compute('price_m2'))

    // column 42: the total plus the parts, appurtenant rooms and rights bought with the unit
    // (docs/decisions/column-42-combined-price.md); one click fills it for the operator to save
    const combinedParts = (offer.components ?? []).filter(
      (c) => ['part', 'appurtenant_room', 'right'].includes(c.group) && c.price !== null,
    )
    const combinedHint = h('p', { class: 'hint', id: 'price-combined-computed', 'aria-live': 'polite' })
    const computeCombined =
      offer.offer_kind === 'property' && combinedParts.length > 0
        ? h(
            'p',
            {},
            h(
              'button',
              {
                type: 'button',
                class: 'button button-quiet button-small',
                id: 'compute-combined-price',
                onclick: () => {
                  const total = moneyToCents(inputs.price_total.value)
                  if (total === null) {
                    replaceChildren(
                      combinedHint,
                      tr(
                        'Najpierw wpisz cenę całkowitą lokalu: cena łączna to cena lokalu plus ceny części, pomieszczeń i praw.',
                        'Enter the total first: the combined price is the total plus the parts, rooms and rights.',
                      ),
                    )
                    return
                  }
                  const parts = combinedParts.reduce((sum, c) => sum + (moneyToCents(c.price) ?? 0), 0)
                  inputs.price_combined.value = moneyInputText(((total + parts) / 100).toFixed(2))
                  replaceChildren(
                    combinedHint,
                    tr(
                      `Cena łączna = ${formatMoney((total / 100).toFixed(2))} + ${plural(combinedParts.length, ['element', 'elementy', 'elementów'], 'pl')} (${formatMoney((parts / 100).toFixed(2))}). Sprawdź i zapisz zmianę ceny.`,
                      `Combined price = ${formatMoney((total / 100).toFixed(2))} + ${plural(combinedParts.length, ['part', 'parts'], 'en')} (${formatMoney((parts / 100).toFixed(2))}). Check it and save the price change.`,
                    ),
                  )
                },
              },
              tr('Przelicz cenę łączną', 'Compute the combined price'),
            ),
            combinedHint,
          )
        : null

    // a stored price dated after today is announced: the price in force is the one before it
    const current = (name) => {
      const hint = priceHint(offer[name], offer[`${name}_from`], offer.in_force?.[name])
      return name === 'price_combined' ? `${hint}${combinedSourceText(offer.in_force?.price_combined)}` : hint
    }
    const form = h(
      'form',
      { id: 'price-form', novalidate: true },
      h(
        'div',
        { class: 'form-row' },
        PRICES.map((name) =>
          formField({ label: `${fieldLabel(name)} (zł)`, input: inputs[name], names: name, hint: current(name) }),
        ),
      ),
      perM2,
      computeCombined,
      h(
        'div',
        { class: 'form-row' },
        formField({
          label: tr('Nowe ceny obowiązują od', 'New prices valid from'),
          input: from,
          names: 'price_total_from price_m2_from price_combined_from',
          required: true,
        }),
        formField({
          label: tr('Powód zmiany (opcjonalnie)', 'Reason (optional)'),
          input: reason,
          names: 'reason',
          className: 'field-wide',
          hint: tr(
            'Np. „Cennik grudniowy”. Zapisywany w historii cen.',
            'E.g. "December price list". Kept in the price history.',
          ),
        }),
      ),
      formField({
        label: tr(
          'To korekta błędnie wpisanej ceny, nie zmiana ceny',
          'This corrects a wrongly entered price; it is not a price change',
        ),
        input: correction,
        names: 'correction',
        hint: tr(
          'Korekta zastępuje błędny zapis w historii (rodzaj zapisu „korekta ceny”). Zwykła zmiana ceny zostawia poprzednią cenę w historii.',
          'A correction replaces the wrong record in the history (record type "price correction"). A price change keeps the previous price in the history.',
        ),
      }),
      h(
        'details',
        { class: 'more-filters' },
        h('summary', {}, tr('Wariant i status ceny z elementami', 'Variant and state of the price with parts')),
        h(
          'div',
          { class: 'form-row' },
          formField({
            label: fieldLabel('price_combined_variant'),
            input: combinedVariant,
            names: 'price_combined_variant',
          }),
          formField({
            label: fieldLabel('price_combined_status'),
            input: combinedStatus,
            names: 'price_combined_status',
          }),
        ),
      ),
      h(
        'p',
        { class: 'hint' },
        tr(
          'Kwoty wpisuj po polsku (np. 529 000,00). Wyczyszczenie pola wycofuje cenę z dniem podanym wyżej.',
          'Type amounts as 529 000,00 or 529000.00. Emptying a field withdraws the price on the date above.',
        ),
      ),
      message,
      h('div', { class: 'actions' }, button),
    )
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      const body = {}
      const withdrawn = []
      for (const name of PRICES) {
        const typed = inputs[name].value.trim()
        if (typed === moneyInputText(offer[name])) continue
        // the same amount typed another way ("529000" for "529 000,00") is no change
        if (typed !== '' && offer[name] !== null && moneyToCents(typed) === moneyToCents(offer[name])) continue
        if (typed === '' && offer[name] === null) continue
        body[name] = typed === '' ? null : typed
        body[`${name}_from`] = dayOf(from)
        if (typed === '') withdrawn.push(fieldLabel(name))
      }
      for (const [name, input] of [
        ['price_combined_variant', combinedVariant],
        ['price_combined_status', combinedStatus],
      ]) {
        const typed = input.value.trim()
        if (typed !== (offer[name] ?? '')) body[name] = typed === '' ? null : typed
      }
      if (Object.keys(body).length === 0) {
        toast(tr('Ceny się nie zmieniły.', 'The prices did not change.'), 'info')
        return
      }
      if (reason.value.trim()) body.reason = reason.value.trim()
      if (correction.checked) body.correction = true
      if (
        withdrawn.length > 0 &&
        !(await confirmDialog({
          title: tr('Wycofać cenę?', 'Withdraw the price?'),
          body: [
            tr(
              `Wycofasz: ${withdrawn.join(', ')} z dniem ${formatDate(dayOf(from))}. Historia cen zapisze wycofanie, a plik urzędowy nie pokaże już tej ceny.`,
              `You withdraw: ${withdrawn.join(', ')} on ${formatDate(dayOf(from))}. The price history records the withdrawal and the official file no longer shows this price.`,
            ),
          ],
          okLabel: tr('Wycofaj cenę', 'Withdraw the price'),
          danger: true,
        }))
      )
        return
      await sendVersioned({
        api,
        method: 'PATCH',
        path,
        body,
        version: offer.version,
        before: offer,
        watch: WATCHED,
        form,
        message,
        button,
        onSaved: saved(tr('Zapisano zmianę ceny.', 'The price change is saved.')),
        onCurrent: draw,
      })
    })
    return card(tr('Ceny', 'Prices'), form)
  }

  // ---------------------------------------------------------------------------------------------
  // price history

  async function drawHistory() {
    try {
      const { body } = await api.get(`${path}/price-history`, { signal })
      const chart = h('div', { class: 'price-chart', id: 'price-chart' })
      replaceChildren(historySlot, historyCard(body.items, chart))
      // drawn once in the page, where its width is known; the table holds the same data if it fails
      await drawPriceChart(chart, body.items, todayInWarsaw()).catch(() => chart.remove())
    } catch (error) {
      if (error?.name === 'AbortError') return
      replaceChildren(historySlot, card(tr('Historia cen', 'Price history'), errorBox(error)))
    }
  }

  function historyCard(items, chart) {
    const subject = (item) => {
      if (item.price_type !== 'component') return fieldLabel(`price_${item.price_type}`)
      const component = offer.components.find((c) => c.id === item.component_id)
      const name = component ? (component.kind ? componentKindLabel(component.kind) : component.kind_label) : null
      // the server's label names a removed component too ("Miejsce postojowe MP-1: …")
      return component ? [name, component.designation].filter(Boolean).join(' ') : item.label.replace(/:.*$/, '')
    }
    const amount = (part) => (part.cents === null ? '—' : formatMoney((part.cents / 100).toFixed(2)))
    return card(
      tr('Historia cen', 'Price history'),
      items.length === 0 ? null : chart,
      items.length === 0
        ? h('p', { class: 'muted' }, tr('Ta oferta nie ma jeszcze cen.', 'This offer has no prices yet.'))
        : h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'table', id: 'price-history' },
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  [
                    tr('Obowiązuje od', 'Valid from'),
                    tr('Cena', 'Price'),
                    tr('Zapis', 'Record'),
                    tr('Było', 'Before'),
                    tr('Jest', 'After'),
                    tr('Powód', 'Reason'),
                    tr('Źródło', 'Source'),
                    tr('Zapisano', 'Recorded'),
                  ].map((label) => h('th', { scope: 'col' }, label)),
                ),
              ),
              h(
                'tbody',
                {},
                // newest first: the operator looks for the change just made
                [...items]
                  .reverse()
                  .map((item) =>
                    h(
                      'tr',
                      { dataset: { recordType: item.record_type, priceType: item.price_type } },
                      h(
                        'td',
                        {},
                        formatDate(item.valid_from),
                        item.announced
                          ? h('span', { class: 'announced' }, ` ${tr('(zapowiedziana)', '(announced)')}`)
                          : '',
                      ),
                      h('td', {}, subject(item)),
                      h(
                        'td',
                        {},
                        recordTypeLabel(item.record_type),
                        item.correction && item.record_type !== 'correction' ? ` (${tr('korekta', 'correction')})` : '',
                      ),
                      h('td', { class: 'num' }, amount(item.before)),
                      h('td', { class: 'num' }, amount(item.after)),
                      h('td', {}, item.reason || '—'),
                      h('td', {}, channelLabel(item.channel)),
                      h('td', {}, formatDate(item.recorded_at)),
                    ),
                  ),
              ),
            ),
          ),
    )
  }

  // ---------------------------------------------------------------------------------------------
  // components of a flat or a house

  function componentsCard() {
    if (offer.offer_kind === 'standalone_part')
      return card(
        tr('Elementy dodatkowe', 'Parts and rooms'),
        h(
          'p',
          { class: 'muted' },
          tr(
            'To część sprzedawana osobno (własny wiersz w pliku urzędowym); nie ma elementów dodatkowych.',
            'This is a part sold on its own (a row of its own in the official file); it has no parts or rooms.',
          ),
        ),
      )
    const formSlot = h('div', { id: 'component-form-slot' })
    const add = h(
      'button',
      {
        type: 'button',
        class: 'button',
        id: 'add-component',
        onclick: () => replaceChildren(formSlot, componentForm(null, formSlot)),
      },
      tr('+ Dodaj element', '+ Add a part or room'),
    )
    const rows = offer.components.map((component) =>
      h(
        'tr',
        { dataset: { componentId: String(component.id) } },
        h('td', {}, component.kind ? componentKindLabel(component.kind) : component.kind_label),
        h('td', {}, component.designation ?? '—'),
        h('td', { class: 'num' }, formatMoney(component.price)),
        h('td', {}, formatDate(component.price_from)),
        h('td', {}, component.relation ?? '—'),
        h('td', {}, component.legal_title ?? '—'),
        h(
          'td',
          { class: 'row-actions' },
          h(
            'button',
            {
              type: 'button',
              class: 'button button-quiet edit-component',
              onclick: () => {
                replaceChildren(formSlot, componentForm(component, formSlot))
                formSlot.scrollIntoView({ block: 'nearest' })
              },
            },
            tr('Zmień', 'Edit'),
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'button button-quiet delete-component',
              onclick: () => void removeComponent(component),
            },
            tr('Usuń', 'Remove'),
          ),
        ),
      ),
    )
    return card(
      tr(
        'Elementy dodatkowe (miejsca postojowe, komórki, pomieszczenia)',
        'Parts and rooms (parking spaces, storage rooms)',
      ),
      h(
        'p',
        { class: 'hint' },
        tr(
          'Sprzedawane razem z lokalem. Pierwsza część i pierwsze pomieszczenie trafiają do wiersza lokalu w pliku urzędowym (kolumny 44–51), kolejne do osobnych wierszy.',
          'Sold with the flat. The first part and the first room go on the flat’s row of the official file (columns 44–51), further ones on rows of their own.',
        ),
      ),
      offer.components.length === 0
        ? h('p', { class: 'muted', id: 'no-components' }, tr('Brak elementów dodatkowych.', 'No parts or rooms.'))
        : h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'table', id: 'components' },
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  [
                    tr('Rodzaj', 'Kind'),
                    tr('Oznaczenie', 'Designation'),
                    tr('Cena', 'Price'),
                    tr('Cena od', 'Price since'),
                    tr('Związek z lokalem', 'Relation'),
                    tr('Tytuł prawny', 'Legal title'),
                    '',
                  ].map((label) => h('th', { scope: 'col' }, label)),
                ),
              ),
              h('tbody', {}, rows),
            ),
          ),
      h('div', { class: 'actions' }, add),
      formSlot,
    )
  }

  function componentForm(component, slot) {
    const today = todayInWarsaw()
    const kindOf = (c) => (c === null ? 'parking_space' : (c.kind ?? 'custom'))
    const kind = h(
      'select',
      { id: 'component-kind', name: 'kind' },
      optionsOf(COMPONENT_KINDS, { selected: kindOf(component) }),
    )
    const group = h(
      'select',
      { id: 'component-group', name: 'group' },
      optionsOf(COMPONENT_GROUPS, { selected: component?.group ?? 'appurtenant_room' }),
    )
    const text = (name, attributes = {}) =>
      h('input', { id: `component-${name}`, name, autocomplete: 'off', value: component?.[name] ?? '', ...attributes })
    const inputs = {
      kind_label: text('kind_label', { maxlength: 255, placeholder: tr('np. Piwnica', 'e.g. Piwnica') }),
      designation: text('designation', { maxlength: 100, placeholder: tr('np. MP-12', 'e.g. MP-12') }),
      price: text('price', {
        inputmode: 'decimal',
        value: moneyInputText(component?.price),
        placeholder: 'np. 45 000,00',
      }),
      relation: text('relation', {
        maxlength: 255,
        placeholder: tr('np. przynależne do lokalu', 'e.g. przynależne do lokalu'),
      }),
      requirement: text('requirement', {
        maxlength: 255,
        placeholder: tr('np. obowiązkowy zakup', 'e.g. obowiązkowy zakup'),
      }),
      legal_title: text('legal_title', {
        maxlength: 255,
        placeholder: tr('np. odrębna własność', 'e.g. odrębna własność'),
      }),
      variant: text('variant', { maxlength: 100 }),
      description: text('description', { maxlength: 1000 }),
    }
    // a new price holds from today unless told otherwise; the stored date is shown beside the price
    const priceFrom = dateInput({ id: 'component-price_from', name: 'price_from', value: today })
    const reason = h('input', { id: 'component-reason', name: 'reason', maxlength: 500, autocomplete: 'off' })
    const correction = h('input', { id: 'component-correction', name: 'correction', type: 'checkbox' })
    const customFields = h(
      'div',
      { class: 'form-row' },
      formField({ label: fieldLabel('group'), input: group, names: 'group' }),
      formField({ label: fieldLabel('kind_label'), input: inputs.kind_label, names: 'kind_label', required: true }),
    )
    const showCustom = () => (customFields.hidden = kind.value !== 'custom')
    kind.addEventListener('change', showCustom)
    showCustom()
    const message = h('div', { class: 'form-message', 'aria-live': 'assertive' })
    const button = h(
      'button',
      { type: 'submit', class: 'button button-primary', id: 'save-component' },
      component ? tr('Zapisz element', 'Save the part') : tr('Dodaj element', 'Add the part'),
    )
    const field = (name, input, extra = {}) => formField({ label: fieldLabel(name), input, names: name, ...extra })
    const form = h(
      'form',
      { id: 'component-form', class: 'subform', novalidate: true },
      h('h3', {}, component ? tr('Zmiana elementu', 'Change the part') : tr('Nowy element', 'New part or room')),
      h('div', { class: 'form-row' }, field('kind', kind), field('designation', inputs.designation)),
      customFields,
      h(
        'div',
        { class: 'form-row' },
        field('price', inputs.price, {
          label: `${fieldLabel('price')} (zł)`,
          hint:
            component?.price != null
              ? priceHint(
                  component.price,
                  component.price_from,
                  offer.in_force?.components.find((c) => c.id === component.id),
                )
              : null,
        }),
        field('price_from', priceFrom),
        formField({
          label: tr('Powód zmiany ceny (opcjonalnie)', 'Reason for the price (optional)'),
          input: reason,
          names: 'reason',
        }),
      ),
      component
        ? formField({
            label: tr('Nowa cena to korekta błędnej ceny', 'The new price corrects a wrong one'),
            input: correction,
            names: 'correction',
          })
        : null,
      h(
        'div',
        { class: 'form-row' },
        field('relation', inputs.relation),
        field('legal_title', inputs.legal_title),
        field('requirement', inputs.requirement),
      ),
      h('div', { class: 'form-row' }, field('variant', inputs.variant), field('description', inputs.description)),
      message,
      h(
        'div',
        { class: 'actions' },
        button,
        h(
          'button',
          { type: 'button', class: 'button button-quiet', onclick: () => replaceChildren(slot) },
          tr('Anuluj', 'Cancel'),
        ),
      ),
    )
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      const body = {}
      if (kind.value === 'custom') {
        if (!component || group.value !== component.group) body.group = group.value
        if (!component || inputs.kind_label.value.trim() !== component.kind_label)
          body.kind_label = inputs.kind_label.value.trim()
      } else if (!component || kind.value !== component.kind) body.kind = kind.value
      for (const [name, input] of Object.entries(inputs)) {
        if (name === 'kind_label') continue
        const typed = input.value.trim()
        const was = name === 'price' ? moneyInputText(component?.price) : (component?.[name] ?? '')
        if (typed === was) continue
        if (
          name === 'price' &&
          typed !== '' &&
          component?.price &&
          moneyToCents(typed) === moneyToCents(component.price)
        )
          continue
        body[name] = typed === '' ? null : typed
      }
      // the date goes with a new or changed price, or alone when the operator moved it (the
      // current price's date corrected); an unchanged price keeps its own date
      if (priceFrom.value && (!component || body.price !== undefined || dayOf(priceFrom) !== today))
        body.price_from = dayOf(priceFrom)
      if (component && Object.keys(body).length === 0) {
        toast(tr('Nic nie zmieniono.', 'Nothing changed.'), 'info')
        return
      }
      if (reason.value.trim()) body.reason = reason.value.trim()
      if (correction.checked) body.correction = true
      void sendVersioned({
        api,
        method: component ? 'PATCH' : 'POST',
        path: component ? `${path}/components/${component.id}` : `${path}/components`,
        body,
        version: offer.version,
        before: offer,
        watch: WATCHED,
        form,
        message,
        button,
        rowsOf: (sent, current) => {
          const stored = component ? current.components.find((c) => c.id === component.id) : undefined
          return conflictRowsOf(sent, (name) => readField(stored, name)).concat(componentSummaryRows(current))
        },
        onSaved: saved(
          component ? tr('Zapisano element.', 'The part is saved.') : tr('Dodano element.', 'The part is added.'),
        ),
        onCurrent: draw,
      })
    })
    return form
  }

  /** After a conflict on a component: what the offer holds now, so the operator sees a duplicate coming. */
  function componentSummaryRows(current) {
    return [
      {
        label: tr('Elementy oferty teraz', 'The offer’s parts now'),
        mine: '—',
        current:
          current.components
            .map((c) =>
              `${c.kind ? componentKindLabel(c.kind) : c.kind_label} ${c.designation ?? ''} ${formatMoney(c.price)}`.trim(),
            )
            .join('; ') || tr('brak', 'none'),
      },
    ]
  }

  async function removeComponent(component) {
    const reason = h('input', { id: 'remove-component-reason', maxlength: 500, autocomplete: 'off' })
    const name =
      `${component.kind ? componentKindLabel(component.kind) : component.kind_label} ${component.designation ?? ''}`.trim()
    const ok = await confirmDialog({
      title: tr(`Usunąć ${name}?`, `Remove ${name}?`),
      body: [
        tr(
          'Element zniknie z oferty, a jego cena zostanie wycofana dzisiejszą datą (zapis w historii cen).',
          'The part leaves the offer and its price is withdrawn today (recorded in the price history).',
        ),
        formField({ label: tr('Powód (opcjonalnie)', 'Reason (optional)'), input: reason }),
      ],
      okLabel: tr('Usuń element', 'Remove the part'),
      danger: true,
    })
    if (!ok) return
    const query = new URLSearchParams()
    if (reason.value.trim()) query.set('reason', reason.value.trim())
    const message = componentSlot.querySelector('#component-form-slot')
    await sendVersioned({
      api,
      method: 'DELETE',
      path: `${path}/components/${component.id}${query.toString() ? `?${query}` : ''}`,
      version: offer.version,
      form: componentSlot,
      message,
      rowsOf: (_sent, current) => componentSummaryRows(current),
      onSaved: saved(tr('Usunięto element.', 'The part is removed.')),
      onCurrent: draw,
    })
  }

  // ---------------------------------------------------------------------------------------------
  // archive and restore

  function lifecycleCard() {
    const message = h('div', { class: 'form-message', 'aria-live': 'assertive' })
    if (offer.property_status === 'archived') {
      const status = h(
        'select',
        { id: 'restore-status' },
        optionsOf(Object.fromEntries(Object.entries(OFFER_STATUSES).filter(([code]) => code !== 'archived')), {
          selected: 'available',
        }),
      )
      const button = h(
        'button',
        { type: 'button', class: 'button button-primary', id: 'restore-offer' },
        tr('Przywróć do sprzedaży', 'Put back on sale'),
      )
      const form = h(
        'div',
        {},
        h(
          'p',
          {},
          tr(
            'Oferta jest zarchiwizowana: nie ma jej w katalogu ani w pliku urzędowym. Przywrócenie opublikuje ją z jej cenami (zapis w historii cen).',
            'The offer is archived: neither the catalog nor the official file shows it. Restoring publishes it with its prices (recorded in the price history).',
          ),
        ),
        h(
          'div',
          { class: 'form-row' },
          formField({
            label: tr('Status po przywróceniu', 'Status once restored'),
            input: status,
            names: 'property_status',
          }),
        ),
        message,
        h('div', { class: 'actions' }, button),
      )
      button.addEventListener('click', async () => {
        const ok = await confirmDialog({
          title: tr(`Przywrócić ofertę ${offer.prop_no}?`, `Restore offer ${offer.prop_no}?`),
          body: [
            tr(
              'Oferta wróci do katalogu i do następnego pliku urzędowego.',
              'The offer returns to the catalog and to the next official file.',
            ),
          ],
          okLabel: tr('Przywróć', 'Restore'),
        })
        if (!ok) return
        await sendVersioned({
          api,
          method: 'POST',
          path: `${path}/restore`,
          body: { property_status: status.value },
          version: offer.version,
          before: offer,
          watch: WATCHED,
          form,
          message,
          button,
          onSaved: saved(tr('Przywrócono ofertę.', 'The offer is restored.')),
          onCurrent: draw,
        })
      })
      return card(tr('Archiwum', 'Archive'), form)
    }
    const button = h(
      'button',
      { type: 'button', class: 'button button-danger', id: 'archive-offer' },
      tr('Archiwizuj ofertę', 'Archive the offer'),
    )
    const form = h(
      'div',
      {},
      h(
        'p',
        {},
        tr(
          'Oferta wycofana ze sprzedaży: znika z katalogu i z pliku urzędowego, a jej ceny zostają wycofane dzisiejszą datą. Historia zostaje; ofertę można przywrócić.',
          'An offer taken off sale: it leaves the catalog and the official file and its prices are withdrawn today. The history stays; the offer can be restored.',
        ),
      ),
      message,
      h('div', { class: 'actions' }, button),
    )
    button.addEventListener('click', async () => {
      const reason = h('input', { id: 'archive-reason', maxlength: 500, autocomplete: 'off' })
      const ok = await confirmDialog({
        title: tr(`Zarchiwizować ofertę ${offer.prop_no}?`, `Archive offer ${offer.prop_no}?`),
        body: [
          tr(
            'Oferta zniknie z katalogu i z następnego pliku urzędowego; jej ceny zostaną wycofane dzisiejszą datą.',
            'The offer leaves the catalog and the next official file; its prices are withdrawn today.',
          ),
          formField({ label: tr('Powód (opcjonalnie)', 'Reason (optional)'), input: reason }),
        ],
        okLabel: tr('Archiwizuj', 'Archive'),
        danger: true,
      })
      if (!ok) return
      await sendVersioned({
        api,
        method: 'POST',
        path: `${path}/archive`,
        body: reason.value.trim() ? { reason: reason.value.trim() } : {},
        version: offer.version,
        before: offer,
        watch: WATCHED,
        form,
        message,
        button,
        onSaved: saved(tr('Zarchiwizowano ofertę.', 'The offer is archived.')),
        onCurrent: draw,
      })
    })
    return card(tr('Archiwizacja', 'Archiving'), form)
  }

  draw(offer)
}

function pageHeader(offer) {
  return [
    h(
      'div',
      { class: 'stack-tight' },
      h('a', { href: '#/oferty', class: 'back-link' }, tr('← Wszystkie oferty', '← All offers')),
      h('h1', { id: 'offer-heading' }, offer.title),
      h(
        'p',
        { class: 'muted header-facts' },
        `${tr('Oznaczenie', 'Designation')} `,
        h('strong', {}, offer.prop_no),
        ` · ${tr('Inwestycja', 'Investment')} `,
        h('a', { href: `#/inwestycje/${offer.investment_id}` }, offer.investment_title),
        offer.prop_area ? ` · ${formatArea(offer.prop_area)}` : null,
      ),
    ),
    h(
      'div',
      { class: 'row badges' },
      offer.qualified
        ? h('span', { class: 'badge badge-neutral' }, propertyTypeLabel(offer.prop_type))
        : h('span', { class: 'badge badge-warn', dataset: { unqualified: '' } }, tr('bez rodzaju', 'without type')),
      offerStatusBadge(offer.property_status, offer.prop_type),
      hostStatusBadge(offer.host_status),
    ),
  ]
}

function detailsCard(offer) {
  return card(
    tr('Szczegóły techniczne', 'Technical details'),
    facts([
      [tr('Identyfikator oferty', 'Offer id'), mono(String(offer.id))],
      [fieldLabel('source_property_id'), offer.source_property_id ? mono(offer.source_property_id) : '—'],
      [
        tr('Identyfikator inwestycji (źródło)', 'Investment id (source)'),
        offer.source_investment_id ? mono(offer.source_investment_id) : '—',
      ],
      [
        tr('Rodzaj oferty', 'Kind of offer'),
        offer.offer_kind === 'standalone_part'
          ? tr('część sprzedawana osobno', 'part sold on its own')
          : tr('lokal lub dom', 'flat or house'),
      ],
      [tr('Utworzono', 'Created'), formatWhen(offer.created_at)],
      [tr('Zmieniono', 'Changed'), formatWhen(offer.modified_at)],
      [tr('Wersja', 'Version'), mono(offer.version)],
    ]),
  )
}

/**
 * "teraz 500 000,00 zł od 01.11.2026", and for an announced price also
 * "; 519 000,00 zł od 01.12.2026 (zapowiedziana)": the file, the catalog and the website show the
 * price in force until the announced one's date.
 */
function priceHint(stored, storedFrom, inForce) {
  if (!inForce) {
    if (stored === null || stored === undefined) return tr('brak', 'none')
    return tr(
      `teraz ${formatMoney(stored)} od ${formatDate(storedFrom)}`,
      `now ${formatMoney(stored)} since ${formatDate(storedFrom)}`,
    )
  }
  const now =
    inForce.amount === null
      ? tr('teraz brak ceny', 'no price now')
      : tr(
          `teraz ${formatMoney(inForce.amount)} od ${formatDate(inForce.from)}`,
          `now ${formatMoney(inForce.amount)} since ${formatDate(inForce.from)}`,
        )
  if (!inForce.next) return now
  return `${now}; ${announcedText(inForce.next)}`
}

/**
 * Where column 42 comes from: the sum of the unit's and its parts' prices, or the package price;
 * a package set aside because a price changed after it is named, with what to do.
 */
export function combinedSourceText(inForce) {
  if (!inForce) return ''
  const source =
    inForce.source === 'derived'
      ? tr(' (suma ceny lokalu i części)', ' (total plus the parts)')
      : inForce.source === 'package'
        ? tr(' (cena pakietowa)', ' (package price)')
        : ''
  if (!inForce.held_package) return source
  return (
    source +
    tr(
      `; cena pakietowa ${formatMoney(inForce.held_package.amount)} od ${formatDate(inForce.held_package.from)} jest wstrzymana, bo cena lokalu lub części zmieniła się później: wpisz ją ponownie albo usuń`,
      `; the package price ${formatMoney(inForce.held_package.amount)} since ${formatDate(inForce.held_package.from)} is set aside because the unit's or a part's price changed after it: enter it again or remove it`,
    )
  )
}

/** "519 000,00 zł od 01.12.2026 (zapowiedziana)": the next price announced after today. */
export function announcedText(next) {
  return next.amount === null
    ? tr(`bez ceny od ${formatDate(next.from)} (zapowiedziane)`, `no price from ${formatDate(next.from)} (announced)`)
    : tr(
        `${formatMoney(next.amount)} od ${formatDate(next.from)} (zapowiedziana)`,
        `${formatMoney(next.amount)} from ${formatDate(next.from)} (announced)`,
      )
}
