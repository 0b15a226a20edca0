// Platforma — firmy (#/platforma): the companies this deployment serves besides its own, over
// {base}/platform/tenants, which only the first company's app has. Each company with its addresses
// and health (counts and dates, never its data); creating one (its administrator's passwords are
// in the creation answer only, so they are shown here once); suspending, resuming, changing its
// name, host names or website, exporting it into a folder on the server, and deleting it after an
// export. A platform administrator never sees a company's users, passwords or secrets.
import { badge, facts, formatDate, formatNumber, formatWhen, h, mono, replaceChildren } from '../dom.js'
import { language, tr } from '../i18n.js'
import {
  alertBox,
  card,
  clearFieldErrors,
  confirmDialog,
  copyButton,
  errorBox,
  formField,
  showFieldErrors,
  technicalDetails,
  toast,
  withBusy,
} from '../ui.js'

/**
 * The platform's refusals, by code: [Polish, English, the form field they belong to]. The server's
 * own message is shown in English and kept on the line (title) in Polish: it names the taken host.
 */
const REFUSALS = {
  invalid_tenant_slug: [
    'Nieprawidłowy identyfikator: 3–40 znaków, małe litery bez polskich znaków, cyfry i myślniki; zaczyna się literą.',
    'Invalid slug: 3–40 characters, lower-case letters, digits and hyphens, starting with a letter.',
    'slug',
  ],
  tenant_exists: ['Firma o tym identyfikatorze już istnieje.', 'A company with this slug exists already.', 'slug'],
  invalid_tenant_name: ['Podaj nazwę firmy (1–200 znaków).', 'Give the company a name of 1 to 200 characters.', 'name'],
  invalid_tenant_host: [
    'Nieprawidłowa nazwa hosta: sama nazwa, bez https:// i ścieżki, np. ceny.firma.pl.',
    'Invalid host name: the name only, without https:// or a path, e.g. ceny.firma.pl.',
    'hosts',
  ],
  tenant_host_taken: [
    'Ta nazwa hosta należy już do innej firmy albo jest adresem samej platformy.',
    'This host name belongs to another company already, or is the platform’s own address.',
    'hosts',
  ],
  invalid_site_url: [
    'Strona WWW musi być adresem http(s), np. https://firma.pl.',
    'The website must be an http(s) address, e.g. https://firma.pl.',
    'site_url',
  ],
  tenant_not_exported: [
    'Najpierw wyeksportuj firmę: usunięcia nie da się cofnąć.',
    'Export the company first: deleting it cannot be undone.',
    'confirm',
  ],
  tenant_delete_unconfirmed: [
    'Wpisany identyfikator nie zgadza się z identyfikatorem firmy; nic nie usunięto.',
    'The slug typed does not match the company’s; nothing was deleted.',
    'confirm',
  ],
  tenant_not_found: ['Tej firmy już nie ma na platformie.', 'This company is no longer on the platform.', null],
}

/** Fields of the request schema (400 rest_invalid_param names them in data.params). */
const SCHEMA_FIELDS = { slug: 'slug', name: 'name', hosts: 'hosts', site_url: 'site_url', admin_email: 'admin_email' }

/**
 * Shows a refusal beneath its field of `form`; true when a field took it (else the caller shows
 * an error box).
 */
function showRefusal(form, error) {
  const known = REFUSALS[error?.code]
  const serverMessage = typeof error?.body?.message === 'string' ? error.body.message : ''
  if (known && known[2]) {
    const unplaced = showFieldErrors(form, [
      { field: known[2], code: error.code, message_pl: known[0], message_en: serverMessage || known[1] },
    ])
    if (unplaced.length === 0) {
      // the server's own words (e.g. which host is taken), for the operator who reads Polish too
      const line = form.querySelector(`.field-error-line[data-code="${error.code}"]`)
      if (line && serverMessage && language() !== 'en') line.title = serverMessage
      return true
    }
  }
  const params = error?.body?.data?.params
  if (error?.code === 'rest_invalid_param' && params && typeof params === 'object') {
    const issues = Object.keys(params)
      .map((param) => param.replace(/^body\.?|^\//, '').split(/[./[]/)[0])
      .filter((name) => Object.hasOwn(SCHEMA_FIELDS, name))
      .map((name) => ({
        field: SCHEMA_FIELDS[name],
        code: 'rest_invalid_param',
        message_pl: 'Nieprawidłowa wartość (za długa albo w złym formacie).',
        message_en: String(params[Object.keys(params).find((p) => p.includes(name)) ?? ''] || 'Invalid value.'),
      }))
    if (issues.length > 0 && showFieldErrors(form, issues).length === 0) return true
  }
  return false
}

/** An error box for a refusal no field takes, in the panel's words when the platform has them. */
function refusalBox(error) {
  const known = REFUSALS[error?.code]
  if (!known) return errorBox(error)
  const serverMessage = typeof error?.body?.message === 'string' ? error.body.message : ''
  return h(
    'div',
    { class: 'alert alert-error', role: 'alert', dataset: { code: error.code } },
    h('p', { class: 'alert-title' }, tr(known[0], serverMessage || known[1])),
    technicalDetails(h('p', { class: 'alert-detail' }, `HTTP ${error.status} · ${error.code} · ${serverMessage}`)),
  )
}

const STATUS = {
  active: ['aktywna', 'active', 'ok'],
  suspended: ['zawieszona', 'suspended', 'error'],
}

function statusBadge(status) {
  const [pl, en, tone] = STATUS[status] ?? ['nieznany stan', 'unknown state', 'neutral']
  const element = badge(tr(pl, en), tone)
  element.dataset.status = status
  return element
}

const PUBLICATION = {
  published: ['opublikowano', 'published'],
  failed: ['nie powiodła się', 'failed'],
  running: ['w toku', 'running'],
}

function publicationText(last) {
  if (!last) return tr('jeszcze żadnej', 'none yet')
  const pair = PUBLICATION[last.status]
  const status = pair ? tr(...pair) : tr('inny stan', 'another state')
  return `${formatDate(last.day)} — ${status}`
}

/** Host names from a text field: one per line or separated by commas or spaces. */
const hostList = (text) =>
  text
    .split(/[\s,;]+/)
    .map((host) => host.trim())
    .filter(Boolean)

const withCopy = (text, id) => {
  const value = mono(text)
  return h(
    'span',
    { class: 'platform-address' },
    value,
    ' ',
    copyButton(() => text, { target: value, id }),
  )
}

function addressFacts(tenant) {
  return facts(
    [
      [tr('Adres API (base_url)', 'API address (base_url)'), mono(tenant.base_url)],
      [tr('Panel', 'Panel'), h('a', { href: tenant.panel_url, target: '_blank', rel: 'noopener' }, tenant.panel_url)],
      [tr('Pliki urzędowe', 'Official files'), mono(tenant.files_url)],
      [
        tr('Własne nazwy hosta', 'Own host names'),
        tenant.hosts.length > 0
          ? tenant.hosts.join(', ')
          : tr('brak (tylko adres /t/…)', 'none (the /t/… address only)'),
      ],
      [tr('Strona WWW', 'Website'), tenant.site_url ?? '—'],
    ],
    'facts platform-addresses',
  )
}

function healthFacts(tenant) {
  const health = tenant.health
  if (!health) return h('p', { class: 'muted' }, tr('Stan firmy niedostępny.', 'The company’s health is unavailable.'))
  return facts(
    [
      [tr('Oferty w sprzedaży', 'Offers on sale'), formatNumber(health.offers_on_sale)],
      [tr('Użytkownicy', 'Users'), formatNumber(health.users)],
      [tr('Ostatnia publikacja', 'Last publication'), publicationText(health.last_publication)],
      [tr('Alerty (7 dni)', 'Alerts (7 days)'), formatNumber(health.recent_alerts)],
    ],
    'facts platform-health',
  )
}

/** The form that renames a company or changes its host names or website. */
function editForm(api, tenant, onSaved) {
  const name = h('input', { name: 'name', value: tenant.name, maxlength: 200 })
  const hosts = h('textarea', { name: 'hosts', rows: 2 }, tenant.hosts.join('\n'))
  const siteUrl = h('input', { name: 'site_url', type: 'url', value: tenant.site_url ?? '', maxlength: 500 })
  const message = h('div', { 'aria-live': 'polite' })
  const save = h('button', { type: 'submit', class: 'button button-primary' }, tr('Zapisz zmiany', 'Save the changes'))
  const form = h(
    'form',
    { class: 'platform-edit', novalidate: true },
    h(
      'div',
      { class: 'form-grid' },
      formField({ label: tr('Nazwa firmy', 'Company name'), input: name, names: 'name', required: true }),
      formField({
        label: tr('Własne nazwy hosta', 'Own host names'),
        input: hosts,
        names: 'hosts',
        hint: tr(
          'Jedna w wierszu, np. ceny.firma.pl; puste: tylko adres /t/…',
          'One a line; empty: the /t/… address only',
        ),
      }),
      formField({
        label: tr('Strona WWW (opcjonalnie)', 'Website (optional)'),
        input: siteUrl,
        names: 'site_url',
        hint: tr(
          'Do odnośników ofert; puste: adres firmy na platformie.',
          'For offer links; empty: its platform address.',
        ),
      }),
    ),
    message,
    h('div', { class: 'actions' }, save),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearFieldErrors(form)
    replaceChildren(message)
    const payload = { name: name.value.trim(), hosts: hostList(hosts.value), site_url: siteUrl.value.trim() || null }
    try {
      await withBusy(save, tr('Zapisywanie…', 'Saving…'), () =>
        api.request('PATCH', `/platform/tenants/${tenant.slug}`, { json: payload }),
      )
      toast(tr(`Zapisano zmiany firmy ${tenant.name}.`, `The changes of ${tenant.name} are saved.`))
      onSaved()
    } catch (error) {
      if (!showRefusal(form, error)) replaceChildren(message, refusalBox(error))
    }
  })
  return form
}

/** One company: its state, addresses, health and what the platform may do with it. */
function tenantCard(api, tenant, reload, note = null) {
  const suspended = tenant.status === 'suspended'
  const message = h('div', { class: 'platform-message', 'aria-live': 'polite' })
  const toggle = h(
    'button',
    { type: 'button', class: suspended ? 'button' : 'button button-danger', dataset: { action: 'toggle' } },
    suspended ? tr('Wznów', 'Resume') : tr('Zawieś', 'Suspend'),
  )
  toggle.addEventListener('click', async () => {
    const ok = await confirmDialog(
      suspended
        ? {
            title: tr(`Wznowić firmę ${tenant.name}?`, `Resume ${tenant.name}?`),
            body: [
              tr(
                'Panel i API firmy znów zaczną odpowiadać, a jej harmonogramy (codzienna publikacja, konserwacja) ruszą od najbliższego terminu.',
                'Its panel and API answer again and its schedules (daily publication, maintenance) run from their next time.',
              ),
            ],
            okLabel: tr('Wznów', 'Resume'),
          }
        : {
            title: tr(`Zawiesić firmę ${tenant.name}?`, `Suspend ${tenant.name}?`),
            body: [
              tr(
                'API i panel firmy będą odpowiadać błędem 403 (konto zawieszone): nikt z firmy się nie zaloguje, a jej CRM nie zapisze cen.',
                'Its API and panel answer 403 (account suspended): nobody of the company signs in, its CRM saves no prices.',
              ),
              tr(
                'Harmonogramy firmy się zatrzymają — także codzienna publikacja na dane.gov.pl.',
                'Its schedules stop — the daily publication on dane.gov.pl too.',
              ),
              tr(
                'Opublikowane pliki (/dane-gov/) pozostaną dostępne dla portalu. Dane firmy zostają bez zmian; wznowienie przywraca wszystko.',
                'Its published files (/dane-gov/) stay served to the portal. Its data stays; resuming restores everything.',
              ),
            ],
            okLabel: tr('Zawieś', 'Suspend'),
            danger: true,
          },
    )
    if (!ok) return
    try {
      await withBusy(toggle, tr('Chwileczkę…', 'One moment…'), () =>
        api.post(`/platform/tenants/${tenant.slug}/${suspended ? 'resume' : 'suspend'}`),
      )
      toast(
        suspended
          ? tr(`Wznowiono firmę ${tenant.name}.`, `${tenant.name} is resumed.`)
          : tr(`Zawieszono firmę ${tenant.name}.`, `${tenant.name} is suspended.`),
      )
      reload()
    } catch (error) {
      replaceChildren(message, refusalBox(error))
    }
  })

  const exportButton = h(
    'button',
    { type: 'button', class: 'button', dataset: { action: 'export' } },
    tr('Eksportuj', 'Export'),
  )
  exportButton.addEventListener('click', async () => {
    replaceChildren(message)
    try {
      const { body } = await withBusy(exportButton, tr('Eksportowanie…', 'Exporting…'), () =>
        api.post(`/platform/tenants/${tenant.slug}/export`),
      )
      reload({
        [tenant.slug]: alertBox(
          'success',
          tr(
            'Wyeksportowano firmę. Folder eksportu na serwerze:',
            'The company is exported. The export’s folder on the server:',
          ),
          h('div', { class: 'secret-box' }, withCopy(body.folder, `export-folder-${tenant.slug}`)),
          h(
            'p',
            { class: 'hint' },
            tr(
              'Folder zawiera wszystkie dane i pliki firmy (z sumami kontrolnymi); odtwarza go polecenie dg tenant import na tej lub innej instalacji.',
              'The folder holds all the company’s data and files (with checksums); dg tenant import restores it on this or another deployment.',
            ),
          ),
        ),
      })
    } catch (error) {
      replaceChildren(message, refusalBox(error))
    }
  })

  const canDelete = tenant.exported_at !== null
  const typed = h('input', {
    name: 'confirm',
    id: `delete-confirm-${tenant.slug}`,
    autocomplete: 'off',
    spellcheck: false,
    disabled: !canDelete,
  })
  const deleteButton = h(
    'button',
    { type: 'submit', class: 'button button-danger', dataset: { action: 'delete' }, disabled: !canDelete },
    tr('Usuń firmę na zawsze', 'Delete the company for good'),
  )
  const deleteForm = h(
    'form',
    { class: 'platform-delete', novalidate: true },
    h(
      'p',
      { class: 'hint' },
      canDelete
        ? tr(
            `Usunięcie skasuje bazę danych firmy, jej użytkowników, opublikowane pliki i folder danych; odtworzyć ją można tylko z eksportu. Ostatni eksport: ${formatWhen(tenant.exported_at)}.`,
            `Deleting removes its database, users, published files and data folder; only an export restores it. Last export: ${formatWhen(tenant.exported_at)}.`,
          )
        : tr(
            'Usunięcie jest możliwe dopiero po eksporcie firmy (przycisk „Eksportuj”).',
            'Deleting is possible after an export only (the “Export” button).',
          ),
    ),
    formField({
      label: tr(
        `Wpisz identyfikator firmy (${tenant.slug}), aby potwierdzić`,
        `Type the slug (${tenant.slug}) to confirm`,
      ),
      input: typed,
      names: 'confirm',
    }),
    h('div', { class: 'actions' }, deleteButton),
  )
  deleteForm.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearFieldErrors(deleteForm)
    replaceChildren(message)
    const ok = await confirmDialog({
      title: tr(`Usunąć firmę ${tenant.name}?`, `Delete ${tenant.name}?`),
      body: [
        tr(
          'Tego nie da się cofnąć. Panel, API i pliki urzędowe firmy przestaną istnieć; portal dane.gov.pl nie pobierze już jej plików.',
          'This cannot be undone. Its panel, API and official files cease to exist; dane.gov.pl harvests its files no more.',
        ),
      ],
      okLabel: tr('Usuń na zawsze', 'Delete for good'),
      danger: true,
    })
    if (!ok) return
    try {
      await withBusy(deleteButton, tr('Usuwanie…', 'Deleting…'), () =>
        api.request('DELETE', `/platform/tenants/${tenant.slug}?confirm=${encodeURIComponent(typed.value.trim())}`),
      )
      toast(tr(`Usunięto firmę ${tenant.name}.`, `${tenant.name} is deleted.`))
      reload()
    } catch (error) {
      if (!showRefusal(deleteForm, error)) replaceChildren(message, refusalBox(error))
    }
  })

  const edit = h(
    'details',
    { class: 'platform-edit-details' },
    h('summary', {}, tr('Zmień nazwę, nazwy hosta lub stronę WWW', 'Change the name, host names or website')),
    editForm(api, tenant, () => reload()),
  )

  return h(
    'section',
    { class: 'card platform-tenant', dataset: { slug: tenant.slug, status: tenant.status } },
    h('h2', {}, tenant.name, ' ', statusBadge(tenant.status)),
    h(
      'p',
      { class: 'muted' },
      tr(
        `Identyfikator: ${tenant.slug} · utworzona ${formatWhen(tenant.created_at)}`,
        `Slug: ${tenant.slug} · created ${formatWhen(tenant.created_at)}`,
      ),
      suspended && tenant.suspended_at
        ? tr(` · zawieszona ${formatWhen(tenant.suspended_at)}`, ` · suspended ${formatWhen(tenant.suspended_at)}`)
        : '',
    ),
    h(
      'div',
      { class: 'platform-columns' },
      h('div', {}, h('h3', {}, tr('Adresy', 'Addresses')), addressFacts(tenant)),
      h('div', {}, h('h3', {}, tr('Kondycja', 'Health')), healthFacts(tenant)),
    ),
    h('div', { class: 'actions' }, toggle, exportButton),
    message,
    note,
    edit,
    h(
      'details',
      { class: 'platform-delete-details', dataset: { slug: tenant.slug } },
      h('summary', {}, tr('Usunięcie firmy', 'Deleting the company')),
      deleteForm,
    ),
  )
}

/** The one-time answer of a creation: what to hand over to the company. */
function createdBox(created) {
  const secret = (text, id) => {
    const value = h('code', { class: 'secret', id }, text)
    return h(
      'div',
      { class: 'secret-box' },
      value,
      copyButton(() => text, { target: value, id: `copy-${id}` }),
    )
  }
  const webhook = `${created.base_url}/webhooks/properties`
  const handover = [
    `${tr('Firma', 'Company')}: ${created.name}`,
    `${tr('Panel', 'Panel')}: ${created.panel_url}`,
    `${tr('Login', 'Login')}: ${created.admin.login}`,
    `${tr('Hasło administratora', 'Administrator’s password')}: ${created.admin.password}`,
    `${tr('Hasło aplikacji (dla CRM)', 'Application password (for the CRM)')}: ${created.admin.application_password}`,
    `${tr('Adres API (base_url)', 'API address (base_url)')}: ${created.base_url}`,
    `${tr('Adres webhooka', 'Webhook address')}: ${webhook}`,
    `${tr('Pliki urzędowe', 'Official files')}: ${created.files_url}`,
  ].join('\n')
  const box = alertBox(
    'success',
    tr(`Utworzono firmę „${created.name}”.`, `“${created.name}” is created.`),
    h(
      'div',
      { class: 'alert alert-warning', role: 'alert', id: 'created-warning' },
      h(
        'p',
        { class: 'alert-title' },
        tr(
          'Hasła poniżej są widoczne tylko teraz — nie zostaną pokazane ponownie.',
          'The passwords below are shown now only — they are not shown again.',
        ),
      ),
      h(
        'p',
        {},
        tr(
          'Platforma przechowuje wyłącznie ich skróty. Skopiuj je teraz i przekaż administratorowi firmy bezpiecznym kanałem; zgubionych haseł nie da się odczytać, firma może je tylko zmienić u siebie.',
          'The platform keeps their hashes only. Copy them now and hand them to the company’s administrator over a safe channel; a lost password cannot be read back, the company can only change it.',
        ),
      ),
    ),
    facts([
      [
        tr('Panel firmy', 'Company panel'),
        h('a', { href: created.panel_url, target: '_blank', rel: 'noopener' }, created.panel_url),
      ],
      [tr('Login', 'Login'), mono(created.admin.login)],
      [tr('Hasło administratora', 'Administrator’s password'), secret(created.admin.password, 'created-password')],
      [
        tr('Hasło aplikacji (dla CRM)', 'Application password (for the CRM)'),
        secret(created.admin.application_password, 'created-application-password'),
      ],
      [tr('Adres API (base_url)', 'API address (base_url)'), mono(created.base_url)],
      [tr('Adres webhooka', 'Webhook address'), mono(webhook)],
      [tr('Pliki urzędowe', 'Official files'), mono(created.files_url)],
    ]),
    h(
      'div',
      { class: 'actions' },
      copyButton(() => handover, {
        label: tr('Kopiuj wszystko do przekazania', 'Copy everything to hand over'),
        id: 'copy-handover',
      }),
      h(
        'button',
        { type: 'button', class: 'button button-quiet', id: 'created-done', onclick: () => box.remove() },
        tr('Przekazane — ukryj hasła', 'Handed over — hide the passwords'),
      ),
    ),
  )
  box.id = 'created-tenant'
  return box
}

function createForm(api, onCreated) {
  const slug = h('input', { name: 'slug', id: 'tenant-slug', autocomplete: 'off', maxlength: 60, spellcheck: false })
  const name = h('input', { name: 'name', id: 'tenant-name', autocomplete: 'off', maxlength: 200 })
  const hosts = h('textarea', { name: 'hosts', id: 'tenant-hosts', rows: 2, spellcheck: false })
  const siteUrl = h('input', { name: 'site_url', id: 'tenant-site-url', type: 'url', maxlength: 500 })
  const email = h('input', { name: 'admin_email', id: 'tenant-admin-email', type: 'email', maxlength: 200 })
  const message = h('div', { 'aria-live': 'polite' })
  const submit = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'create-tenant' },
    tr('Utwórz firmę', 'Create the company'),
  )
  const form = h(
    'form',
    { id: 'new-tenant-form', novalidate: true },
    h(
      'div',
      { class: 'form-grid' },
      formField({
        label: tr('Identyfikator (slug)', 'Slug'),
        input: slug,
        names: 'slug',
        required: true,
        hint: tr(
          'Część adresu /t/identyfikator/, np. alfa; nie zmienia się później.',
          'The part of the /t/slug/ address, e.g. alfa; never changes.',
        ),
      }),
      formField({ label: tr('Nazwa firmy', 'Company name'), input: name, names: 'name', required: true }),
      formField({
        label: tr('Własne nazwy hosta (opcjonalnie)', 'Own host names (optional)'),
        input: hosts,
        names: 'hosts',
        hint: tr(
          'Np. ceny.firma.pl, jedna w wierszu; DNS i certyfikat ustawia administrator serwera.',
          'E.g. ceny.firma.pl, one a line; the server’s administrator sets DNS and the certificate.',
        ),
      }),
      formField({
        label: tr('Strona WWW (opcjonalnie)', 'Website (optional)'),
        input: siteUrl,
        names: 'site_url',
        hint: tr('Np. https://firma.pl — do odnośników ofert.', 'E.g. https://firma.pl — for offer links.'),
      }),
      formField({
        label: tr('E-mail administratora (opcjonalnie)', 'Administrator’s e-mail (optional)'),
        input: email,
        names: 'admin_email',
        hint: tr('Do resetu hasła przez e-mail.', 'For password resets by e-mail.'),
      }),
    ),
    message,
    h('div', { class: 'actions' }, submit),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearFieldErrors(form)
    replaceChildren(message)
    const payload = { slug: slug.value.trim(), name: name.value.trim() }
    const hostNames = hostList(hosts.value)
    if (hostNames.length > 0) payload.hosts = hostNames
    if (siteUrl.value.trim()) payload.site_url = siteUrl.value.trim()
    if (email.value.trim()) payload.admin_email = email.value.trim()
    try {
      const { body } = await withBusy(submit, tr('Tworzenie firmy…', 'Creating the company…'), () =>
        api.post('/platform/tenants', { json: payload }),
      )
      form.reset()
      onCreated(body)
    } catch (error) {
      if (!showRefusal(form, error)) replaceChildren(message, refusalBox(error))
    }
  })
  return form
}

export async function renderPlatform(page, { api, signal }) {
  const list = h('div', { id: 'platform-tenants', 'aria-live': 'polite' })
  const created = h('div', { id: 'created-slot', 'aria-live': 'polite' })
  /** Notes kept above a company's card across a reload (its export's folder). */
  let notes = {}

  async function load(keep = {}) {
    notes = { ...notes, ...keep }
    const { body: tenants } = await api.get('/platform/tenants', { signal })
    // a body read cut short by leaving the view comes back empty: nothing to draw then
    signal.throwIfAborted()
    // health is read from each company's own database, one request per company
    const detailed = await Promise.all(
      tenants.map(async (tenant) => {
        try {
          const { body } = await api.get(`/platform/tenants/${tenant.slug}`, { signal })
          return body ?? { ...tenant, health: null }
        } catch (error) {
          if (error?.name === 'AbortError') throw error
          return { ...tenant, health: null }
        }
      }),
    )
    signal.throwIfAborted()
    replaceChildren(
      list,
      detailed.length === 0
        ? h(
            'p',
            { class: 'muted', id: 'platform-empty' },
            tr('Platforma nie obsługuje jeszcze innych firm.', 'The platform serves no other company yet.'),
          )
        : detailed.map((tenant) => tenantCard(api, tenant, reload, notes[tenant.slug] ?? null)),
    )
  }
  const reload = (keep) =>
    void load(keep).catch((error) => {
      if (error?.name !== 'AbortError') replaceChildren(list, errorBox(error))
    })

  page.append(
    h('div', { class: 'page-header' }, h('h1', {}, tr('Platforma — firmy', 'Platform — companies'))),
    card(
      null,
      h(
        'p',
        { class: 'lead' },
        tr(
          'Ta instalacja obsługuje także inne firmy deweloperskie: każda ma własną bazę danych, panel, API i pliki urzędowe, pod adresem /t/identyfikator/ albo pod własną nazwą hosta. Tu je tworzysz, zawieszasz, eksportujesz i usuwasz. Danych firm, ich użytkowników, haseł i kluczy platforma nie pokazuje.',
          'This deployment serves other developer companies too: each has its own database, panel, API and official files, at /t/slug/ or at its own host name. Here you create, suspend, export and delete them. The platform shows none of their data, users, passwords or keys.',
        ),
      ),
    ),
  )
  try {
    await load()
  } catch (error) {
    if (error?.status === 404) {
      page.append(
        alertBox(
          'warning',
          tr(
            'Strona platformy jest dostępna tylko w panelu pierwszej firmy tej instalacji.',
            'The platform page is available in the panel of the deployment’s first company only.',
          ),
        ),
      )
      return
    }
    throw error
  }
  page.append(
    card(tr('Firmy', 'Companies'), list),
    card(
      tr('Nowa firma', 'New company'),
      created,
      createForm(api, (body) => {
        replaceChildren(created, createdBox(body))
        created.scrollIntoView({ block: 'start' })
        reload()
      }),
    ),
  )
}
