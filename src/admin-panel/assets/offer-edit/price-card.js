// The offer's prices: a change with its date, reason and correction flag, saved through
// PATCH {base}/offers/{id}; the total or the price per m² computed from the other, and column 42
// computed from the parts sold with the unit.
import { plural } from '../operator/plural.js'
import {
  formatArea,
  formatDate,
  formatMoney,
  h,
  moneyInputText,
  moneyToCents,
  replaceChildren,
  todayInWarsaw,
} from '../dom.js'
import { tr } from '../i18n.js'
import { fieldLabel } from '../editor/editor-labels.js'
import { sendVersioned } from '../editor/editor-forms.js'
import { dateInput, dayOf } from '../fields/date-input.js'
import { card, confirmDialog, formField, toast } from '../ui.js'
import { PRICES, WATCHED } from './offer-fields.js'
import { combinedSourceText, priceHint } from './price-text.js'

/** @param {import('./offer-fields.js').OfferEditView} view */
export function priceCard(view) {
  const { offer } = view
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
      source === 'price_total' ? Math.round((cents * 100) / areaHundredths) : Math.round((cents * areaHundredths) / 100)
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
    /** @type {[string, HTMLInputElement][]} */
    const combinedFields = [
      ['price_combined_variant', combinedVariant],
      ['price_combined_status', combinedStatus],
    ]
    for (const [name, input] of combinedFields) {
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
      api: view.api,
      method: 'PATCH',
      path: view.path,
      body,
      version: view.offer.version,
      before: view.offer,
      watch: WATCHED,
      form,
      message,
      button,
      onSaved: view.saved(tr('Zapisano zmianę ceny.', 'The price change is saved.')),
      onCurrent: view.draw,
    })
  })
  return card(tr('Ceny', 'Prices'), form)
}
