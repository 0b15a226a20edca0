// Investments: GET {base}/investments as a searched, paged table; one investment created
// (POST {base}/investments) or changed (PATCH {base}/investments/{id}, with the version shown in
// If-Match): name, texts, publication status and visibility, developer entity, location (official
// columns 29–35), prospectus address (58) and registered custom fields; deleted only without offers.
import { externalLink, facts, formatNumber, formatWhen, h, mono, replaceChildren } from '../dom.js'
import {
  fieldLabel,
  INVESTMENT_HOST_STATUSES,
  hashRoute,
  hostStatusBadge,
  optionsOf,
  replaceHashQuery,
  VISIBILITIES,
  visibilityLabel,
  VOIVODESHIPS,
} from './editor-labels.js'
import { customMetaEditor, issueLines, sendVersioned } from './editor-forms.js'
import { mediaCard } from './editor-media.js'
import { tr } from '../i18n.js'
import {
  alertBox,
  card,
  confirmDialog,
  errorBox,
  formField,
  pagedTable,
  showFieldErrors,
  toast,
  withBusy,
} from '../ui.js'

const SECTION = 'inwestycje'
const LOCATION_FIELDS = ['voivodeship', 'powiat', 'gmina', 'city', 'street', 'building_no', 'postal_code']
/** Fields a stale edit compares between the investment as shown and as stored now. */
const WATCHED = [
  'title',
  'slug',
  'excerpt',
  'host_status',
  'visibility',
  'developer_id',
  'source_id',
  'prospectus_url',
  ...LOCATION_FIELDS.map((name) => `location.${name}`),
]

export async function renderInvestments(page, context) {
  const { segments } = hashRoute()
  if (segments[1] === 'nowa') return renderInvestmentForm(page, { ...context, investment: null })
  if (segments[1] !== undefined) {
    const id = Number(segments[1])
    if (!Number.isSafeInteger(id) || id < 1) {
      page.append(alertBox('error', tr('Nieprawidłowy adres inwestycji.', 'Invalid investment address.')))
      return
    }
    const { body } = await context.api.get(`/investments/${id}`, { signal: context.signal })
    return renderInvestmentForm(page, { ...context, investment: body })
  }
  return renderInvestmentList(page, context)
}

async function renderInvestmentList(page, { api, signal }) {
  const { params } = hashRoute()
  const search = h('input', {
    id: 'investment-search',
    name: 'search',
    type: 'search',
    autocomplete: 'off',
    value: params.get('search') ?? '',
    placeholder: tr('nazwa, miejscowość lub identyfikator', 'name, city or id'),
  })
  const hostStatus = h(
    'select',
    { id: 'investment-host-status', name: 'host_status' },
    optionsOf(INVESTMENT_HOST_STATUSES, { blank: tr('każdy', 'any'), selected: params.get('host_status') ?? '' }),
  )
  const filterQuery = () => {
    const query = new URLSearchParams()
    if (search.value.trim()) query.set('search', search.value.trim())
    if (hostStatus.value) query.set('host_status', hostStatus.value)
    return query
  }
  let filters = filterQuery()
  const table = pagedTable({
    id: 'investments-table',
    state: { page: Number(params.get('page')) || 1, perPage: Number(params.get('per_page')) || 20 },
    columns: [
      {
        label: tr('Nazwa', 'Name'),
        render: (i) =>
          h('a', { href: `#/${SECTION}/${i.id}`, class: 'investment-link', dataset: { id: String(i.id) } }, i.title),
      },
      { label: tr('Miejscowość', 'City'), render: (i) => i.location.city ?? '—' },
      { label: tr('Status publikacji', 'Publication status'), render: (i) => hostStatusBadge(i.host_status) },
      { label: tr('Widoczność', 'Visibility'), render: (i) => visibilityLabel(i.visibility) },
      {
        label: tr('Oferty (opublikowane)', 'Offers (published)'),
        className: 'num',
        render: (i) =>
          h(
            'a',
            { href: `#/oferty?investment=${i.id}` },
            `${formatNumber(i.offers_count)} (${formatNumber(i.published_offers_count)})`,
          ),
      },
      { label: tr('Zmieniono', 'Changed'), render: (i) => formatWhen(i.modified_at) },
    ],
    empty: tr('Żadna inwestycja nie spełnia tych warunków.', 'No investment matches.'),
    load: async (state) => {
      const query = new URLSearchParams(filters)
      query.set('page', String(state.page))
      query.set('per_page', String(state.perPage))
      const { body, headers } = await api.get(`/investments?${query}`, { signal })
      return {
        items: body,
        total: Number(headers.get('X-WP-Total') ?? body.length),
        totalPages: Number(headers.get('X-WP-TotalPages') ?? 1),
      }
    },
    onState: (state) => {
      const query = new URLSearchParams(filters)
      if (state.page > 1) query.set('page', String(state.page))
      if (state.perPage !== 20) query.set('per_page', String(state.perPage))
      replaceHashQuery(SECTION, query)
    },
  })
  const refresh = () => {
    filters = filterQuery()
    void table.reload({ page: 1 })
  }
  let typing = null
  search.addEventListener('input', () => {
    clearTimeout(typing)
    typing = setTimeout(refresh, 350)
  })
  hostStatus.addEventListener('change', refresh)

  page.append(
    h(
      'div',
      { class: 'page-header' },
      h('h1', {}, tr('Inwestycje', 'Investments')),
      h(
        'a',
        { class: 'button button-primary', href: `#/${SECTION}/nowa`, id: 'new-investment' },
        tr('Nowa inwestycja', 'New investment'),
      ),
    ),
    card(
      null,
      h(
        'form',
        { class: 'filters', role: 'search', onsubmit: (event) => event.preventDefault() },
        h(
          'div',
          { class: 'form-row' },
          formField({ label: tr('Szukaj', 'Search'), input: search, className: 'field-wide' }),
          formField({ label: tr('Status publikacji', 'Publication status'), input: hostStatus }),
        ),
      ),
    ),
    card(null, table.element),
  )
  await table.reload()
}

async function renderInvestmentForm(page, { api, signal, investment: initial }) {
  let investment = initial
  const body = h('div', { class: 'stack' })
  // the developer entities for the select (a deployment has one or a few)
  const developers = (await api.get('/developers', { signal })).body.items
  const customFields = (await api.get('/custom-fields', { signal })).body.dg_investment
  page.append(body)

  // one media card for the page (a new investment has none until it is created)
  const media = investment
    ? mediaCard({
        api,
        signal,
        owner: 'investments',
        entity: investment,
        onSaved: (saved) => draw(saved),
        onCurrent: (current) => draw(current),
      })
    : null

  function draw(current) {
    investment = current
    replaceChildren(body, formFor())
    media?.update(investment)
  }

  function formFor() {
    const value = (name) => investment?.[name] ?? ''
    const text = (name, attributes = {}) =>
      h('input', { id: `investment-${name}`, name, autocomplete: 'off', value: value(name), ...attributes })
    const inputs = {
      title: text('title', { maxlength: 255, required: true }),
      slug: text('slug', { maxlength: 200 }),
      source_id: text('source_id', { maxlength: 100 }),
      excerpt: h('textarea', { id: 'investment-excerpt', name: 'excerpt', rows: 2, maxlength: 2000 }, value('excerpt')),
      content: h('textarea', { id: 'investment-content', name: 'content', rows: 6 }, value('content')),
      prospectus_url: text('prospectus_url', { type: 'url', placeholder: 'https://…' }),
      developer_id: developerSelect(developers, investment?.developer_id ?? null),
    }
    const selects = {
      host_status: h(
        'select',
        { id: 'investment-host_status', name: 'host_status' },
        optionsOf(INVESTMENT_HOST_STATUSES, { selected: investment?.host_status ?? 'publish' }),
      ),
      visibility: h(
        'select',
        { id: 'investment-visibility', name: 'visibility' },
        optionsOf(VISIBILITIES, { selected: investment?.visibility ?? 'public' }),
      ),
    }
    const locationInputs = {}
    for (const name of LOCATION_FIELDS) {
      const stored = investment?.location?.[name] ?? ''
      locationInputs[name] =
        name === 'voivodeship'
          ? h(
              'select',
              { id: 'investment-voivodeship', name },
              h('option', { value: '' }, '—'),
              VOIVODESHIPS.map((v) => h('option', { value: v }, v)),
              // a stored value outside the list stays visible and selected
              stored && !VOIVODESHIPS.includes(stored) ? h('option', { value: stored }, stored) : null,
            )
          : h('input', {
              id: `investment-${name}`,
              name,
              autocomplete: 'off',
              value: stored,
              ...(name === 'postal_code' ? { placeholder: '00-000', maxlength: 6 } : {}),
            })
      if (name === 'voivodeship') locationInputs[name].value = stored
    }
    const meta = customMetaEditor(investment?.custom_meta ?? {}, customFields, 'investment')
    const message = h('div', { class: 'form-message', 'aria-live': 'assertive' })
    const button = h(
      'button',
      { type: 'submit', class: 'button button-primary', id: 'save-investment' },
      investment ? tr('Zapisz inwestycję', 'Save the investment') : tr('Utwórz inwestycję', 'Create the investment'),
    )
    const field = (name, input, extra = {}) => formField({ label: fieldLabel(name), input, names: name, ...extra })
    const form = h(
      'form',
      { id: 'investment-form', novalidate: true, class: 'stack' },
      card(
        tr('Inwestycja', 'Investment'),
        h(
          'div',
          { class: 'form-row' },
          field('title', inputs.title, {
            label: tr('Nazwa inwestycji', 'Name of the investment'),
            required: true,
            className: 'field-wide',
          }),
        ),
        h(
          'div',
          { class: 'form-row' },
          field('host_status', selects.host_status, {
            hint: tr(
              'Katalog i plik urzędowy pokazują tylko opublikowane.',
              'The catalog and the official file show published ones only.',
            ),
          }),
          field('visibility', selects.visibility),
          field('slug', inputs.slug, { hint: tr('Puste: z nazwy.', 'Empty: from the name.') }),
        ),
        field('excerpt', inputs.excerpt),
        field('content', inputs.content),
      ),
      card(
        tr('Lokalizacja i dokumenty (plik urzędowy)', 'Location and documents (official file)'),
        h(
          'div',
          { class: 'form-row' },
          LOCATION_FIELDS.slice(0, 4).map((name) => field(`location.${name}`, locationInputs[name])),
        ),
        h(
          'div',
          { class: 'form-row' },
          LOCATION_FIELDS.slice(4).map((name) => field(`location.${name}`, locationInputs[name])),
        ),
        h(
          'div',
          { class: 'form-row' },
          field('prospectus_url', inputs.prospectus_url, { className: 'field-wide' }),
          field('developer_id', inputs.developer_id, {
            hint: tr(
              'Podmiot, w którego pliku urzędowym są oferty tej inwestycji. Dewelopera dodaje się w ustawieniach publikacji.',
              'The entity whose official file lists this investment’s offers. Developers are added in the publication settings.',
            ),
          }),
          field('source_id', inputs.source_id, {
            hint: tr('Kolumna „Inwestycja” w imporcie cennika.', 'The "investment" column of price-list imports.'),
          }),
        ),
      ),
      card(tr('Pola dodatkowe', 'Custom fields'), meta.element),
      message,
      h(
        'div',
        { class: 'actions' },
        button,
        h('a', { class: 'button button-quiet', href: `#/${SECTION}` }, tr('Anuluj', 'Cancel')),
      ),
    )
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      const sent = {}
      for (const [name, input] of Object.entries(inputs)) {
        const typed = input.value.trim()
        const was = investment ? String(investment[name] ?? '') : ''
        if (typed === was) continue
        if (name === 'developer_id') sent[name] = typed === '' ? null : /^\d+$/.test(typed) ? Number(typed) : typed
        else if (name === 'title' || name === 'slug') sent[name] = typed
        else sent[name] = typed === '' ? null : typed
      }
      for (const [name, select] of Object.entries(selects))
        if (!investment || select.value !== investment[name]) sent[name] = select.value
      const locationChanges = {}
      for (const name of LOCATION_FIELDS) {
        const typed = locationInputs[name].value.trim()
        if (typed !== (investment?.location?.[name] ?? '')) locationChanges[name] = typed === '' ? null : typed
      }
      if (Object.keys(locationChanges).length > 0) sent.location = locationChanges
      const metaChanges = meta.changes()
      if (metaChanges) sent.custom_meta = metaChanges
      if (investment && Object.keys(sent).length === 0) {
        toast(tr('Nic nie zmieniono.', 'Nothing changed.'), 'info')
        return
      }
      if (!investment) {
        replaceChildren(message)
        try {
          const { body: created } = await withBusy(button, tr('Zapisywanie…', 'Saving…'), () =>
            api.post('/investments', { json: sent }),
          )
          toast(tr(`Utworzono inwestycję ${created.title}.`, `Investment ${created.title} created.`))
          location.hash = `#/${SECTION}/${created.id}`
        } catch (error) {
          const unplaced = showFieldErrors(form, error?.body?.issues)
          replaceChildren(message, errorBox(error, issueLines(unplaced)))
        }
        return
      }
      await sendVersioned({
        api,
        method: 'PATCH',
        path: `/investments/${investment.id}`,
        body: sent,
        version: investment.version,
        before: investment,
        watch: WATCHED,
        form,
        message,
        button,
        onSaved: (saved) => {
          draw(saved)
          toast(tr('Zapisano inwestycję.', 'The investment is saved.'))
        },
        onCurrent: draw,
      })
    })

    const header = h(
      'div',
      { class: 'page-header' },
      h(
        'div',
        { class: 'stack-tight' },
        h('a', { href: `#/${SECTION}`, class: 'back-link' }, tr('← Wszystkie inwestycje', '← All investments')),
        h('h1', { id: 'investment-heading' }, investment ? investment.title : tr('Nowa inwestycja', 'New investment')),
      ),
      investment
        ? h(
            'div',
            { class: 'actions' },
            h(
              'a',
              { class: 'button', href: `#/oferty?investment=${investment.id}` },
              tr(
                `Oferty (${formatNumber(investment.offers_count)})`,
                `Offers (${formatNumber(investment.offers_count)})`,
              ),
            ),
            h(
              'a',
              { class: 'button', href: `#/oferty/nowa?investment=${investment.id}` },
              tr('+ Nowa oferta', '+ New offer'),
            ),
            h(
              'a',
              { class: 'button', href: `#/ceny-na-stronie/${investment.id}`, id: 'investment-website-prices' },
              tr('Ceny na stronie WWW', 'Prices on the website'),
            ),
          )
        : null,
    )
    return [header, form, media ? media.element : null, investment ? aboutCard() : null]
  }

  function aboutCard() {
    const message = h('div', { class: 'form-message', 'aria-live': 'assertive' })
    const remove = h(
      'button',
      { type: 'button', class: 'button button-danger', id: 'delete-investment' },
      tr('Usuń inwestycję', 'Delete the investment'),
    )
    remove.disabled = investment.offers_count > 0
    remove.addEventListener('click', async () => {
      const ok = await confirmDialog({
        title: tr(`Usunąć inwestycję ${investment.title}?`, `Delete investment ${investment.title}?`),
        body: [
          tr(
            'Inwestycja bez ofert zostanie usunięta na stałe.',
            'The investment, which has no offers, is deleted for good.',
          ),
        ],
        okLabel: tr('Usuń', 'Delete'),
        danger: true,
      })
      if (!ok) return
      const done = await sendVersioned({
        api,
        method: 'DELETE',
        path: `/investments/${investment.id}`,
        version: investment.version,
        before: investment,
        watch: WATCHED,
        form: body,
        message,
        button: remove,
        onSaved: () => {
          toast(tr('Usunięto inwestycję.', 'The investment is deleted.'))
          location.hash = `#/${SECTION}`
        },
        onCurrent: draw,
      })
      return done
    })
    return h(
      'div',
      { class: 'grid' },
      card(
        tr('Szczegóły techniczne', 'Technical details'),
        facts([
          [tr('Identyfikator', 'Id'), mono(String(investment.id))],
          [
            tr('Oferty', 'Offers'),
            `${formatNumber(investment.offers_count)} (${tr('opublikowane', 'published')}: ${formatNumber(investment.published_offers_count)})`,
          ],
          [
            fieldLabel('prospectus_url'),
            investment.prospectus_url && /^https?:\/\//i.test(investment.prospectus_url)
              ? externalLink(investment.prospectus_url)
              : '—',
          ],
          [tr('Utworzono', 'Created'), formatWhen(investment.created_at)],
          [tr('Zmieniono', 'Changed'), formatWhen(investment.modified_at)],
          [tr('Wersja', 'Version'), mono(investment.version)],
        ]),
      ),
      card(
        tr('Usuwanie', 'Deleting'),
        h(
          'p',
          {},
          investment.offers_count > 0
            ? tr(
                'Inwestycji z ofertami (także zarchiwizowanymi) nie można usunąć: ich historia cen musi zachować inwestycję. Ukryj ją statusem publikacji „prywatna”.',
                'An investment with offers (archived ones too) cannot be deleted: their price history keeps it. Hide it with the publication status "private".',
              )
            : tr('Inwestycja nie ma ofert i można ją usunąć.', 'The investment has no offers and can be deleted.'),
        ),
        message,
        h('div', { class: 'actions' }, remove),
      ),
    )
  }

  draw(investment)
}

function developerSelect(developers, selected) {
  const select = h(
    'select',
    { id: 'investment-developer_id', name: 'developer_id' },
    h('option', { value: '' }, tr('— domyślny z ustawień publikacji —', '— default of the settings —')),
    developers.map((developer) =>
      h(
        'option',
        { value: String(developer.id), title: developer.nip ? `NIP ${developer.nip}` : null },
        // the NIP tells apart entities of one name; otherwise it only widens the choice
        developer.nip && developers.some((other) => other !== developer && other.name === developer.name)
          ? `${developer.name} (NIP ${developer.nip})`
          : developer.name,
      ),
    ),
  )
  select.value = selected === null ? '' : String(selected)
  return select
}
