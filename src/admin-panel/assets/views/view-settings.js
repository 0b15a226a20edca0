// Ustawienia (settings), in tabs: the publication (where the files are served, what is listed, the
// schedule), the developer entities (official columns 1–28), the investments' locations (29–35)
// and prospectus (58), the site options extensions define, the legacy key parameter, and the
// e-mail server with the panel's address (operator/mail-settings-tab.js). Every
// form sends the public REST call and shows the server's issues at their fields; nothing is
// checked here that the API would not check again.
import { badge, facts, formatDate, h, mono, replaceChildren } from '../dom.js'
import { hashRoute, offerStatusLabel, VOIVODESHIPS } from '../editor/editor-labels.js'
import { tr } from '../i18n.js'
import { mailSettingsTab } from '../operator/mail-settings-tab.js'
import { scheduleField } from '../fields/schedule-field.js'
import {
  alertBox,
  card,
  clearFieldErrors,
  confirmDialog,
  errorBox,
  formField,
  issueText,
  pagedTable,
  showFieldErrors,
  technicalDetails,
  toast,
  withBusy,
} from '../ui.js'

const TABS = [
  ['publikacja', ['Publikacja', 'Publication']],
  ['deweloper', ['Deweloper', 'Developer']],
  ['lokalizacje', ['Lokalizacje inwestycji', 'Investment locations']],
  ['opcje', ['Opcje strony', 'Site options']],
  ['generate', ['Dawny adres generowania', 'Legacy generating address']],
  ['poczta', ['Poczta i adres panelu', 'E-mail and panel address']],
]

const LISTABLE_STATUSES = ['available', 'reserved', 'sold', 'unavailable']

/** A 422/409 answer: issues at their fields, the rest and the code in the message box. */
function showRefusal(form, message, error) {
  const rest = error.body?.issues ? showFieldErrors(form, error.body.issues) : []
  replaceChildren(
    message,
    errorBox(
      error,
      rest.length
        ? h(
            'ul',
            { class: 'issues' },
            rest.map((i) =>
              h(
                'li',
                { dataset: { code: i.code } },
                h('span', { class: 'issue-text' }, issueText(i)),
                h('code', { class: 'issue-code' }, i.code),
              ),
            ),
          )
        : null,
    ),
  )
}

const text = (value) => (value === null || value === undefined ? '' : String(value))
const orNull = (input) => (input.value.trim() === '' ? null : input.value.trim())

function voivodeshipSelect(id, name, selected) {
  return h(
    'select',
    { id, name },
    h('option', { value: '' }, tr('— wybierz —', '— choose —')),
    VOIVODESHIPS.map((v) => h('option', { value: v, selected: v === selected }, v)),
  )
}

// ---------------------------------------------------------------------------------------------
// publication settings

async function publicationTab(root, api) {
  const [{ body: settings }, { body: developers }] = await Promise.all([
    api.get('/publication/settings'),
    api.get('/developers'),
  ])
  const publicBase = h('input', {
    id: 'set-public-base-url',
    name: 'public_base_url',
    value: text(settings.public_base_url),
    placeholder: 'https://ceny.example.pl/dane-gov',
  })
  const schedule = scheduleField(settings)
  const developer = h(
    'select',
    { id: 'set-developer-id', name: 'developer_id' },
    h('option', { value: '' }, tr('pierwszy wpisany', 'the first one entered')),
    developers.items.map((d) => h('option', { value: String(d.id), selected: d.id === settings.developer_id }, d.name)),
  )
  const statuses = LISTABLE_STATUSES.map((code) =>
    h('input', {
      type: 'checkbox',
      name: 'published_statuses',
      value: code,
      id: `set-status-${code}`,
      checked: settings.published_statuses.includes(code),
    }),
  )
  const message = h('div', { 'aria-live': 'polite' })
  const save = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'save-publication-settings' },
    tr('Zapisz ustawienia publikacji', 'Save the publication settings'),
  )
  const form = h(
    'form',
    { id: 'publication-settings-form', novalidate: true, class: 'stack' },
    formField({
      label: tr('Publiczny adres plików', 'Public address of the files'),
      input: publicBase,
      names: 'public_base_url',
      hint: tr(
        'Adres https, pod którym portal pobiera pliki tej usługi (/dane-gov). Od niego zależą adresy XML i MD5 zgłoszone w portalu; zmiana dotyczy tylko nowych plików.',
        'The https address where the portal fetches this service’s files (/dane-gov). The XML and MD5 addresses registered with the portal follow from it; a change applies to new files only.',
      ),
    }),
    settings.xml_url
      ? facts([
          [tr('Adres XML do zgłoszenia w portalu', 'XML address to register with the portal'), mono(settings.xml_url)],
          [tr('Adres sumy kontrolnej (.md5)', 'Checksum address (.md5)'), mono(settings.md5_url)],
        ])
      : null,
    h(
      'p',
      { class: 'hint' },
      tr(
        'Adres strony z cenami i uwagi do opisu zbioru ustawia się osobno dla każdego dewelopera (zakładka „Deweloper”, grupa „Zbiór na portalu”).',
        'The page with the prices and the dataset notes are set for each developer separately (tab “Developer”, group “Dataset on the portal”).',
      ),
    ),
    h(
      'fieldset',
      { class: 'field', dataset: { field: 'published_statuses' } },
      h('legend', {}, tr('Oferty w pliku dnia', 'Offers in the day’s file')),
      statuses.map((input) =>
        h('label', { class: 'checkbox', for: input.id }, input, ` ${offerStatusLabel(input.value)}`),
      ),
      h(
        'p',
        { class: 'hint' },
        tr(
          'Plik urzędowy zawiera oferty o zaznaczonych statusach (zwykle: wolne i zarezerwowane). Ceny na stronie WWW pokazują z nich te w sprzedaży: wolne i zarezerwowane.',
          'The official file lists offers with the ticked statuses (usually available and reserved). Prices on the website show those of them on sale: available and reserved.',
        ),
      ),
      h('p', { class: 'field-error', id: 'published-statuses-error', hidden: true }),
    ),
    schedule.element,
    h(
      'div',
      { class: 'form-row' },
      formField({
        label: tr('Deweloper publikujący', 'Publishing developer'),
        input: developer,
        names: 'developer_id',
        hint: tr(
          'Jego zbiór jest pod /dane-gov/; każdy inny podmiot ma własny zbiór.',
          'Its dataset is at /dane-gov/; every other entity has a dataset of its own.',
        ),
      }),
    ),
    message,
    h('div', { class: 'actions' }, save),
    technicalDetails(
      facts([
        [
          tr(
            'Identyfikator zbioru w portalu (extIdent, nie zmienia się)',
            'Dataset id on the portal (extIdent, never changes)',
          ),
          mono(settings.public_dataset_id),
        ],
      ]),
    ),
  )

  async function send(extra = {}) {
    const payload = {
      public_base_url: orNull(publicBase),
      schedule: schedule.value(),
      developer_id: developer.value ? Number(developer.value) : null,
      published_statuses: statuses.filter((s) => s.checked).map((s) => s.value),
      ...extra,
    }
    return withBusy(save, tr('Zapisywanie…', 'Saving…'), () =>
      api.request('PUT', '/publication/settings', { json: payload }),
    )
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearFieldErrors(form)
    replaceChildren(message)
    const scheduleProblem = schedule.problem()
    if (scheduleProblem) {
      showFieldErrors(form, [
        { field: 'schedule', code: 'invalid_time', message_pl: scheduleProblem, message_en: scheduleProblem },
      ])
      return
    }
    let saved
    try {
      saved = await send()
    } catch (error) {
      if (error.code !== 'confirmation_required') return showRefusal(form, message, error)
      const confirmed = await confirmDialog({
        title: tr('Zmienić publiczny adres plików?', 'Change the public address of the files?'),
        body: [issueText(error.body.issues[0])],
        okLabel: tr('Zmień adres', 'Change the address'),
        danger: true,
      })
      if (!confirmed) return
      try {
        saved = await send({ confirm_url_change: true })
      } catch (again) {
        return showRefusal(form, message, again)
      }
    }
    schedule.showSaved(saved?.body)
    toast(tr('Zapisano ustawienia publikacji.', 'The publication settings are saved.'))
    replaceChildren(message, alertBox('success', tr('Zapisano.', 'Saved.')))
  })
  root.append(card(tr('Ustawienia publikacji', 'Publication settings'), form))
}

// ---------------------------------------------------------------------------------------------
// developers (official columns 1–28)

/** @type {[field: string, column: number, pl: string, en: string, kind?: string][]} */
const DEVELOPER_FIELDS = [
  // a name or legal form is long ("spółka z ograniczoną odpowiedzialnością"): wrapped, never cut
  ['name', 1, 'Nazwa', 'Name', 'long'],
  ['legal_form', 2, 'Forma prawna', 'Legal form', 'long'],
  ['krs', 3, 'Numer KRS', 'KRS number'],
  ['ceidg', 4, 'Wpis do CEIDG', 'CEIDG entry'],
  ['nip', 5, 'NIP', 'NIP (tax id)'],
  ['regon', 6, 'REGON', 'REGON'],
  ['phone', 7, 'Telefon', 'Phone'],
  ['email', 8, 'Adres e-mail', 'E-mail address'],
  ['fax', 9, 'Faks', 'Fax'],
  ['website', 10, 'Strona WWW', 'Website'],
  ['seat_voivodeship', 11, 'Województwo', 'Voivodeship', 'voivodeship'],
  ['seat_powiat', 12, 'Powiat', 'County (powiat)'],
  ['seat_gmina', 13, 'Gmina', 'Municipality (gmina)'],
  ['seat_city', 14, 'Miejscowość', 'City'],
  ['seat_street', 15, 'Ulica', 'Street'],
  ['seat_building_no', 16, 'Nr budynku', 'Building no.'],
  ['seat_local_no', 17, 'Nr lokalu', 'Unit no.'],
  ['seat_postal_code', 18, 'Kod pocztowy', 'Postal code'],
  ['sales_voivodeship', 19, 'Województwo', 'Voivodeship', 'voivodeship'],
  ['sales_powiat', 20, 'Powiat', 'County (powiat)'],
  ['sales_gmina', 21, 'Gmina', 'Municipality (gmina)'],
  ['sales_city', 22, 'Miejscowość', 'City'],
  ['sales_street', 23, 'Ulica', 'Street'],
  ['sales_building_no', 24, 'Nr budynku', 'Building no.'],
  ['sales_local_no', 25, 'Nr lokalu', 'Unit no.'],
  ['sales_postal_code', 26, 'Kod pocztowy', 'Postal code'],
  ['sales_additional_locations', 27, 'Dodatkowe miejsca sprzedaży', 'Other places of sale', 'long'],
  ['contact_method', 28, 'Sposób kontaktu z nabywcami', 'How buyers contact the developer', 'long'],
]

/**
 * The entity's own dataset on the portal: field, Polish, English, kind, Polish hint, English hint.
 * @type {[field: string, pl: string, en: string, kind: string, hintPl: string, hintEn: string][]}
 */
const DATASET_FIELDS = [
  [
    'dataset_url',
    'Adres strony z cenami',
    'Page with the prices',
    'url',
    'Strona WWW tej spółki z cenami mieszkań (https://), podawana w zbiorze na portalu (<url>). Wymagana przed publikacją produkcyjną; po opublikowaniu zbioru można ją zmienić, ale nie usunąć.',
    'This company’s web page with the flat prices (https://), given in its dataset on the portal (<url>). Required before publishing in production; once the dataset is published it can be changed, not removed.',
  ],
  [
    'description_note_pl',
    'Uwaga na końcu opisu zbioru (po polsku)',
    'Note ending the dataset description (Polish)',
    'long',
    'Np. zakończenie sprzedaży inwestycji; zwykły tekst.',
    'E.g. the end of sales of an investment; plain text.',
  ],
  [
    'description_note_en',
    'Uwaga na końcu opisu zbioru (po angielsku)',
    'Note ending the dataset description (English)',
    'long',
    'Tylko tekst angielski; puste pole: angielski opis bez uwagi (polska uwaga nigdy nie trafia do opisu angielskiego).',
    'English text only; empty: the English description has no note (the Polish note never goes into the English description).',
  ],
]

const DEVELOPER_GROUPS = [
  [
    ['Podmiot', 'Entity'],
    ['name', 'legal_form', 'krs', 'ceidg', 'nip', 'regon'],
  ],
  [
    ['Kontakt', 'Contact'],
    ['phone', 'email', 'fax', 'website', 'contact_method'],
  ],
  [['Siedziba', 'Registered office'], DEVELOPER_FIELDS.filter(([f]) => f.startsWith('seat_')).map(([f]) => f)],
  [['Biuro sprzedaży', 'Sales office'], DEVELOPER_FIELDS.filter(([f]) => f.startsWith('sales_')).map(([f]) => f)],
]

function developerForm(api, developer, onSaved) {
  const inputs = new Map()
  const datasetFieldOf = ([name, pl, en, kind, hintPl, hintEn]) => {
    const id = `dev-${name}`
    const value = text(developer?.[name])
    const input =
      kind === 'long'
        ? h('textarea', { id, name, rows: 2, maxlength: 500 }, value)
        : h('input', {
            id,
            name,
            value,
            maxlength: 1000,
            autocomplete: 'off',
            placeholder: 'https://www.example.pl/ceny',
          })
    inputs.set(name, input)
    return formField({ label: tr(pl, en), input, names: name, hint: tr(hintPl, hintEn), className: 'field-wide' })
  }
  const fieldOf = (name) => {
    const [, column, pl, en, kind] = /** @type {(typeof DEVELOPER_FIELDS)[number]} */ (
      DEVELOPER_FIELDS.find(([f]) => f === name)
    )
    const id = `dev-${name}`
    const value = text(developer?.[name])
    const input =
      kind === 'voivodeship'
        ? voivodeshipSelect(id, name, value)
        : kind === 'long'
          ? h('textarea', { id, name, rows: 2, maxlength: 2000 }, value)
          : h('input', { id, name, value, maxlength: 300, autocomplete: 'off' })
    inputs.set(name, input)
    return formField({
      label: `${tr(pl, en)} (${tr('kol.', 'col.')} ${column})`,
      input,
      names: name,
      required: name === 'name',
      className: kind === 'long' ? 'field-wide' : null,
    })
  }
  const message = h('div', { 'aria-live': 'polite' })
  const save = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'save-developer' },
    developer ? tr('Zapisz dane dewelopera', 'Save the developer’s data') : tr('Dodaj dewelopera', 'Add the developer'),
  )
  const form = h(
    'form',
    { id: 'developer-form', novalidate: true, class: 'stack' },
    DEVELOPER_GROUPS.map(([title, fields]) =>
      h(
        'fieldset',
        { class: 'group' },
        h('legend', {}, tr(title[0], title[1])),
        h('div', { class: 'form-grid' }, fields.map(fieldOf)),
      ),
    ),
    h(
      'fieldset',
      { class: 'group', id: 'developer-dataset' },
      h('legend', {}, tr('Zbiór na portalu', 'Dataset on the portal')),
      h('div', { class: 'form-grid' }, DATASET_FIELDS.map(datasetFieldOf)),
    ),
    h(
      'p',
      { class: 'hint' },
      tr(
        'NIP i REGON są sprawdzane razem z cyfrą kontrolną, KRS ma 10 cyfr, kod pocztowy 00-000, telefon 9 cyfr. Puste pole w pliku urzędowym to „X”.',
        'NIP and REGON are checked with their check digit, KRS has 10 digits, postal codes 00-000, phones 9 digits. An empty field is “X” in the official file.',
      ),
    ),
    message,
    h('div', { class: 'actions' }, save),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearFieldErrors(form)
    replaceChildren(message)
    const payload = {}
    for (const [name, input] of inputs) payload[name] = orNull(input)
    try {
      const { body } = await withBusy(save, tr('Zapisywanie…', 'Saving…'), () =>
        developer
          ? api.request('PUT', `/developers/${developer.id}`, { json: payload })
          : api.post('/developers', { json: payload }),
      )
      toast(tr('Zapisano dane dewelopera.', 'The developer’s data is saved.'))
      onSaved(body)
    } catch (error) {
      showRefusal(form, message, error)
    }
  })
  return form
}

async function developersTab(root, api) {
  const { body } = await api.get('/developers')
  const params = hashRoute().params
  const chosen = params.get('deweloper')
  const current = chosen === 'nowy' ? null : (body.items.find((d) => String(d.id) === chosen) ?? body.items[0] ?? null)
  const switcher = h(
    'select',
    { id: 'developer-choice', 'aria-label': tr('Deweloper', 'Developer') },
    body.items.map((d) =>
      h(
        'option',
        { value: String(d.id), selected: d.id === current?.id, title: d.nip ? `NIP ${d.nip}` : null },
        // the NIP tells apart entities of one name; otherwise it only widens the choice
        `${d.name}${d.nip && body.items.some((o) => o !== d && o.name === d.name) ? ` (NIP ${d.nip})` : ''}`,
      ),
    ),
    h('option', { value: 'nowy', selected: current === null }, tr('+ nowy podmiot', '+ new entity')),
  )
  switcher.addEventListener('change', () => {
    location.hash = `#/ustawienia/deweloper?deweloper=${switcher.value}`
  })
  const area = h('div', {})
  replaceChildren(
    area,
    developerForm(api, current, (saved) => {
      location.hash = `#/ustawienia/deweloper?deweloper=${saved.id}&zapisano=${Date.now()}`
    }),
  )
  root.append(
    card(
      tr('Dane dewelopera (kolumny 1–28 pliku urzędowego)', 'Developer data (columns 1–28 of the official file)'),
      h(
        'p',
        {},
        tr(
          'Każda spółka sprzedająca mieszkania ma własny zbiór danych na portalu. Wybierz podmiot albo dodaj nowy.',
          'Each company selling flats has its own dataset on the portal. Choose an entity or add a new one.',
        ),
      ),
      h('div', { class: 'form-row' }, formField({ label: tr('Podmiot', 'Entity'), input: switcher })),
      area,
    ),
  )
}

// ---------------------------------------------------------------------------------------------
// investment locations (official columns 29–35 and 58)

/** @type {[field: string, column: number, pl: string, en: string][]} */
const LOCATION_FIELDS = [
  ['voivodeship', 29, 'Województwo', 'Voivodeship'],
  ['powiat', 30, 'Powiat', 'County (powiat)'],
  ['gmina', 31, 'Gmina', 'Municipality (gmina)'],
  ['city', 32, 'Miejscowość', 'City'],
  ['street', 33, 'Ulica', 'Street'],
  ['building_no', 34, 'Nr budynku', 'Building no.'],
  ['postal_code', 35, 'Kod pocztowy', 'Postal code'],
  ['prospectus_url', 58, 'Adres prospektu informacyjnego', 'Prospectus address'],
]

const locationComplete = (investment) =>
  LOCATION_FIELDS.slice(0, 7).every(([field]) => text(investment.location?.[field]).trim() !== '')

function locationForm(api, investment, onSaved) {
  const inputs = new Map()
  const message = h('div', { 'aria-live': 'polite' })
  const fields = LOCATION_FIELDS.map(([field, column, pl, en]) => {
    const id = `loc-${field}`
    const value = field === 'prospectus_url' ? text(investment.prospectus_url) : text(investment.location?.[field])
    const input =
      field === 'voivodeship'
        ? voivodeshipSelect(id, field, value)
        : h('input', { id, name: field, value, maxlength: 300 })
    inputs.set(field, input)
    return formField({
      label: `${tr(pl, en)} (${tr('kol.', 'col.')} ${column})`,
      input,
      names: field,
      className: field === 'prospectus_url' ? 'field-wide' : null,
    })
  })
  const save = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'save-location' },
    tr('Zapisz lokalizację', 'Save the location'),
  )
  const form = h(
    'form',
    { id: 'location-form', novalidate: true, class: 'stack' },
    h('div', { class: 'form-grid' }, fields),
    message,
    h('div', { class: 'actions' }, save),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearFieldErrors(form)
    replaceChildren(message)
    const payload = {}
    for (const [name, input] of inputs) payload[name] = orNull(input)
    try {
      await withBusy(save, tr('Zapisywanie…', 'Saving…'), () =>
        api.request('PUT', `/investments/${investment.id}/location`, { json: payload }),
      )
      toast(tr('Zapisano lokalizację.', 'The location is saved.'))
      onSaved()
    } catch (error) {
      showRefusal(form, message, error)
    }
  })
  return form
}

async function locationsTab(root, api) {
  const editor = h('div', {})
  const preselected = hashRoute().params.get('inwestycja')
  let table
  const edit = async (id) => {
    const { body: investment } = await api.get(`/investments/${id}`)
    replaceChildren(
      editor,
      card(
        tr(`Lokalizacja: ${investment.title}`, `Location: ${investment.title}`),
        h(
          'p',
          { class: 'hint' },
          tr(
            'Kolumny 29–35 i 58 pliku urzędowego dla ofert tej inwestycji.',
            'Columns 29–35 and 58 of the official file for this investment’s offers.',
          ),
        ),
        locationForm(api, investment, () => {
          void table.reload()
          replaceChildren(editor)
        }),
      ),
    )
    editor.scrollIntoView({ block: 'start' })
  }
  table = pagedTable({
    id: 'locations-table',
    state: { perPage: 20 },
    columns: [
      { label: tr('Inwestycja', 'Investment'), render: (i) => i.title },
      {
        label: tr('Adres', 'Address'),
        render: (i) =>
          [i.location.street, i.location.building_no, i.location.postal_code, i.location.city]
            .filter(Boolean)
            .join(' ') || '—',
      },
      {
        label: tr('Stan', 'State'),
        render: (i) => [
          locationComplete(i)
            ? badge(tr('lokalizacja pełna', 'location complete'), 'ok')
            : badge(tr('brak lokalizacji', 'location missing'), 'warn'),
          ' ',
          i.prospectus_url ? null : badge(tr('brak prospektu', 'no prospectus'), 'warn'),
        ],
      },
      {
        label: '',
        render: (i) =>
          h(
            'button',
            {
              type: 'button',
              class: 'button button-small',
              dataset: { investment: String(i.id) },
              onclick: () => void edit(i.id),
            },
            tr('Edytuj', 'Edit'),
          ),
      },
    ],
    load: async (state) => {
      const { body, headers } = await api.get(`/investments?page=${state.page}&per_page=${state.perPage}`)
      return {
        items: body,
        total: Number(headers.get('X-WP-Total') ?? body.length),
        totalPages: Number(headers.get('X-WP-TotalPages') ?? 1),
      }
    },
  })
  root.append(
    card(
      tr('Lokalizacje inwestycji i prospekty', 'Investment locations and prospectuses'),
      h(
        'p',
        {},
        tr(
          'Inwestycja bez pełnej lokalizacji lub prospektu trafia do pliku z „X” i ostrzeżeniem.',
          'An investment without a full location or prospectus goes into the file with “X” and a warning.',
        ),
      ),
      table.element,
    ),
    editor,
  )
  await table.reload()
  if (preselected && /^\d+$/.test(preselected)) await edit(Number(preselected))
}

// ---------------------------------------------------------------------------------------------
// site options (dg_extension_settings_fields)

function optionInput(option) {
  const id = `opt-${option.name}`
  if (option.type === 'boolean')
    return h('input', { type: 'checkbox', id, name: option.name, checked: option.value === true })
  if (option.type === 'integer' || option.type === 'number')
    return h('input', {
      type: 'number',
      id,
      name: option.name,
      step: option.type === 'integer' ? '1' : 'any',
      value: text(option.value),
    })
  return h('input', { id, name: option.name, value: text(option.value), maxlength: 10000 })
}

function optionValue(option, input) {
  if (option.type === 'boolean') return input.checked
  if (option.type === 'integer' || option.type === 'number') {
    if (input.value.trim() === '') return null
    const number = Number(input.value.replace(',', '.'))
    return Number.isFinite(number) ? number : input.value
  }
  return input.value
}

async function siteOptionsTab(root, api) {
  const { body } = await api.get('/site-options')
  if (body.items.length === 0) {
    root.append(
      card(
        tr('Opcje strony', 'Site options'),
        h(
          'p',
          { class: 'muted', id: 'no-site-options' },
          tr(
            'Żadne rozszerzenie (DG_EXTENSIONS) nie definiuje opcji.',
            'No extension (DG_EXTENSIONS) defines any option.',
          ),
        ),
      ),
    )
    return
  }
  const inputs = new Map()
  const message = h('div', { 'aria-live': 'polite' })
  const save = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'save-site-options' },
    tr('Zapisz opcje', 'Save the options'),
  )
  const form = h(
    'form',
    { id: 'site-options-form', novalidate: true, class: 'stack' },
    body.items.map((option) => {
      const input = optionInput(option)
      inputs.set(option.name, { option, input, initial: optionValue(option, input) })
      return formField({
        label: option.type === 'boolean' ? ` ${option.label}` : option.label,
        input,
        names: option.name,
        hint: [
          option.description,
          option.description ? ' ' : '',
          tr(`Domyślnie: ${text(option.default) || '(puste)'}.`, `Default: ${text(option.default) || '(empty)'}.`),
          ' ',
          option.expose_in_catalog
            ? badge(tr('widoczna w API katalogu', 'shown in the catalog API'), 'info')
            : badge(tr('tylko wewnętrzna', 'internal only'), 'neutral'),
        ],
      })
    }),
    message,
    h('div', { class: 'actions' }, save),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearFieldErrors(form)
    replaceChildren(message)
    const issues = []
    let saved = 0
    await withBusy(save, tr('Zapisywanie…', 'Saving…'), async () => {
      for (const [name, entry] of inputs) {
        const value = optionValue(entry.option, entry.input)
        if (value === entry.initial) continue
        try {
          const { body: view } = await api.request('PUT', `/site-options/${encodeURIComponent(name)}`, {
            json: { value },
          })
          entry.initial = value
          if (entry.option.type !== 'boolean') entry.input.value = text(view.value)
          saved++
        } catch (error) {
          if (error.body?.issues) issues.push(...error.body.issues)
          else
            issues.push({
              field: name,
              code: error.code,
              message_pl: issueText({ message: error.message }),
              message_en: error.message,
            })
        }
      }
    })
    if (issues.length > 0) {
      showFieldErrors(form, issues)
      replaceChildren(
        message,
        alertBox(
          'error',
          tr(
            'Części opcji nie zapisano: popraw pola oznaczone na czerwono.',
            'Some options were not saved: correct the fields marked in red.',
          ),
        ),
      )
    } else
      replaceChildren(
        message,
        alertBox(
          'success',
          saved
            ? tr(`Zapisano opcje: ${saved}.`, `Options saved: ${saved}.`)
            : tr('Nic się nie zmieniło.', 'Nothing changed.'),
        ),
      )
  })
  root.append(
    card(
      tr('Opcje strony (z rozszerzeń)', 'Site options (from extensions)'),
      h(
        'p',
        {},
        tr(
          'Opcje zdefiniowane przez rozszerzenia tej instalacji. Oznaczone jako widoczne w API trafiają do extension_options odpowiedzi /catalog, z której korzysta strona WWW.',
          'Options defined by this installation’s extensions. Those shown in the API go into extension_options of the /catalog answer the website reads.',
        ),
      ),
      form,
    ),
  )
}

// ---------------------------------------------------------------------------------------------
// legacy generate's key parameter (docs/integration/publication.md)

async function legacyTab(root, api) {
  const { body: state } = await api.get('/legacy-generate/settings')
  const message = h('div', { 'aria-live': 'polite' })
  const toggle = h(
    'button',
    { type: 'button', class: state.enabled ? 'button button-primary' : 'button button-danger', id: 'toggle-key-param' },
    state.enabled
      ? tr('Wyłącz parametr key', 'Turn the key parameter off')
      : tr('Włącz tymczasowo parametr key', 'Turn the key parameter on temporarily'),
  )
  const reset = h(
    'button',
    { type: 'button', class: 'button button-quiet', id: 'reset-key-param' },
    tr('Przywróć ustawienie z konfiguracji usługi', 'Go back to the service configuration’s setting'),
  )
  const send = async (button, enabled) => {
    try {
      await withBusy(button, tr('Zapisywanie…', 'Saving…'), () =>
        api.request('PUT', '/legacy-generate/settings', { json: { enabled } }),
      )
      toast(tr('Zapisano.', 'Saved.'))
      replaceChildren(root)
      await legacyTab(root, api)
    } catch (error) {
      replaceChildren(message, errorBox(error))
    }
  }
  toggle.addEventListener('click', async () => {
    if (!state.enabled) {
      const confirmed = await confirmDialog({
        title: tr('Włączyć przestarzały parametr key?', 'Turn on the deprecated key parameter?'),
        body: [
          tr(
            'Klucz webhooka w adresie trafia do historii przeglądarek i logów serwerów pośredniczących. Włącz go tylko na czas przeniesienia starego klienta na nagłówek X-DG-Webhook-Key, a potem wyłącz i wygeneruj nowy klucz.',
            'A webhook key in the address ends up in browser histories and proxy logs. Turn it on only while an old client moves to the X-DG-Webhook-Key header, then turn it off and generate a new key.',
          ),
          tr(
            `Parametr zostanie usunięty w wersji ${state.removed_in}, nie wcześniej niż ${formatDate(state.sunset)}.`,
            `The parameter is removed in version ${state.removed_in}, not before ${formatDate(state.sunset)}.`,
          ),
        ],
        okLabel: tr('Włącz', 'Turn on'),
        danger: true,
      })
      if (!confirmed) return
    }
    await send(toggle, !state.enabled)
  })
  reset.addEventListener('click', () => void send(reset, null))
  root.append(
    card(
      tr('Dawny adres generowania pliku: klucz w adresie', 'Legacy file-generating address: the key in the address'),
      h(
        'p',
        {},
        tr(
          'Stare integracje wywołują /wp-json/dg/v1/generate z kluczem webhooka. Bezpiecznie: w nagłówku X-DG-Webhook-Key. Przestarzale: w adresie (?key=…), domyślnie odrzucane.',
          'Old integrations call /wp-json/dg/v1/generate with the webhook key. Safely: in the X-DG-Webhook-Key header. Deprecated: in the address (?key=…), refused by default.',
        ),
      ),
      h(
        'div',
        { id: 'key-param-state', dataset: { enabled: String(state.enabled) } },
        facts([
          [
            tr('Parametr key', 'Key parameter'),
            state.enabled ? badge(tr('włączony', 'on'), 'warn') : badge(tr('wyłączony', 'off'), 'ok'),
          ],
          [
            tr('Skąd to ustawienie', 'Where the setting comes from'),
            state.source === 'setting'
              ? tr('zmienione w panelu', 'changed in the panel')
              : tr(
                  `konfiguracja usługi (DG_LEGACY_KEY_PARAM: ${state.environment_default ? 'on' : 'off'})`,
                  `service configuration (DG_LEGACY_KEY_PARAM: ${state.environment_default ? 'on' : 'off'})`,
                ),
          ],
          [tr('Przestarzały od', 'Deprecated since'), formatDate(state.deprecated_since)],
          [
            tr('Usunięcie (najwcześniej)', 'Removal (at the earliest)'),
            `${formatDate(state.sunset)} (${tr('wersja', 'version')} ${state.removed_in})`,
          ],
        ]),
      ),
      state.enabled
        ? alertBox(
            'warning',
            tr(
              'Każda odpowiedź na żądanie z ?key= ma nagłówki Deprecation, Sunset i Warning, a każde użycie trafia do dziennika zdarzeń.',
              'Every answer to a request with ?key= carries the Deprecation, Sunset and Warning headers, and each use goes to the audit log.',
            ),
            technicalDetails(h('p', {}, mono(`Warning: ${state.warning}`))),
          )
        : null,
      message,
      h('div', { class: 'actions' }, toggle, state.source === 'setting' ? reset : null),
    ),
  )
}

export async function renderSettings(root, { api, user }) {
  const { segments } = hashRoute()
  // the e-mail settings are the administrator's (manage_options), like the API that answers them
  const tabs = TABS.filter(([name]) => name !== 'poczta' || user?.capabilities?.includes('manage_options'))
  const tab = tabs.some(([name]) => name === segments[1]) ? segments[1] : 'publikacja'
  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, tr('Ustawienia', 'Settings'))),
    h(
      'nav',
      { class: 'tabs', 'aria-label': tr('Części ustawień', 'Parts of the settings') },
      tabs.map(([name, title]) =>
        h(
          'a',
          { href: `#/ustawienia/${name}`, 'aria-current': name === tab ? 'page' : null, dataset: { tab: name } },
          tr(title[0], title[1]),
        ),
      ),
    ),
  )
  const body = h('div', { class: 'stack', dataset: { tab } })
  root.append(body)
  const render = {
    publikacja: publicationTab,
    deweloper: developersTab,
    lokalizacje: locationsTab,
    opcje: siteOptionsTab,
    generate: legacyTab,
    poczta: (element, client) => mailSettingsTab(element, client, user),
  }[tab]
  await render(body, api)
}
