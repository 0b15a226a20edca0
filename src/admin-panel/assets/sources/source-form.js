// The form that adds or changes a source: its address and headers, the columns assigned from the
// header row of its file (fetched once by the server), its schedule, and a self-signed server's
// certificate trusted for it alone.
import { formatDate, h, mono, replaceChildren } from '../dom.js'
import { tr } from '../i18n.js'
import { alertBox, errorBox, formField, toast } from '../ui.js'
import { columnAssignment } from '../fields/column-assignment.js'
import { scheduleField } from '../fields/schedule-field.js'
import { lastMapping, mappingForShape } from '../operator/import-mapping-memory.js'

/** The assignment the offer import last used in this browser, offered to a new source. */
function lastImportMapping() {
  const last = lastMapping()
  return Object.keys(last).length > 0 ? last : null
}

/** The form's labels of the fields the server names in a refusal. */
const FORM_LABELS = {
  name: ['Nazwa', 'Name'],
  url: ['Adres pliku', 'File address'],
  headers: ['Nagłówki', 'Headers'],
  mapping: ['Przypisanie kolumn', 'Column assignment'],
  mode: ['Tryb importu', 'Import mode'],
  sheet: ['Arkusz', 'Sheet'],
  schedule: ['Harmonogram', 'Schedule'],
  private_hosts: ['Hosty w sieci wewnętrznej', 'Internal-network hosts'],
  stale_after_days: ['Alarm po dniach bez zmian', 'Alert after days unchanged'],
  ca_certificate: ['Zaufany certyfikat serwera', 'Trusted server certificate'],
  'guards.max_archived_pct': ['Archiwizowane lub wycofane oferty', 'Offers archived or withdrawn'],
  'guards.max_price_change_pct': ['Zmiana ceny lokalu', 'Unit price change'],
  'guards.max_invalid_pct': ['Błędne wiersze', 'Invalid rows'],
  'guards.max_shrink_pct': ['Zmniejszenie pliku', 'File shrinking'],
}
const issueLine = (i) =>
  `${FORM_LABELS[i.field] ? tr(...FORM_LABELS[i.field]) : i.field}: ${
    i.message_pl ? tr(i.message_pl, i.message_en ?? i.message_pl) : i.message
  }`

/** The certificates a source trusts, as its form names them. */
function certificatesText(certificates) {
  return certificates
    .map((c) =>
      tr(`${c.subject} (ważny do ${formatDate(c.valid_to)})`, `${c.subject} (valid until ${formatDate(c.valid_to)})`),
    )
    .join('; ')
}

/**
 * The add form, or the edit form of `source` (#edit-source): a saved header value is never sent to
 * the page, so an empty header box keeps the stored ones and a filled one replaces them all; the
 * same holds for the trusted certificate. The columns are assigned with the offer import's fields,
 * from the header row of the source's own file (fetched once by the server), and the schedule with
 * the publication's day and time picker.
 * @param {{ api: import('../api.js').Api, reload: (warnings?: any[]) => unknown, source?: any }} options
 */
export function sourceForm({ api, reload, source = null }) {
  const formId = source ? 'edit-source' : 'add-source'
  const initialMapping = source ? source.mapping : lastImportMapping()
  const input = (attributes) => h('input', { class: 'input', ...attributes })
  const name = input({ name: 'name', required: true, maxlength: 120, value: source?.name ?? '' })
  const url = input({
    name: 'url',
    type: 'url',
    required: true,
    placeholder: 'https://docs.google.com/spreadsheets/d/e/…/pub?output=csv',
    value: source?.url ?? '',
  })
  const headers = h('textarea', { class: 'input', name: 'headers', rows: 2, placeholder: 'Authorization: Bearer …' })
  const mode = h(
    'select',
    { class: 'input', name: 'mode' },
    h('option', { value: 'patch' }, tr('tylko zmiany', 'changes only')),
    h(
      'option',
      { value: 'snapshot' },
      tr('pełny stan inwestycji (brakujące oferty są archiwizowane)', 'full state (missing offers are archived)'),
    ),
  )
  if (source) mode.value = source.mode
  const clearHeaders = h('input', { type: 'checkbox', name: 'clear_headers' })

  // the column assignment, the import's own fields, fed by the header row of the source's file
  let fileHeaders = []
  const headerListId = `${formId}-file-headers`
  const headerList = h('datalist', { id: headerListId })
  const assignment = columnAssignment({
    initial: initialMapping ?? {},
    listId: headerListId,
    idPrefix: `${formId}-map-`,
    present: () => fileHeaders,
  })
  const readHeaders = h(
    'button',
    { class: 'button', type: 'button', id: `${formId}-read-headers` },
    tr('Odczytaj kolumny z pliku', 'Read the columns from the file'),
  )
  const headerPreview = h('div', {
    class: 'source-header-preview',
    id: `${formId}-header-preview`,
    'aria-live': 'polite',
  })

  // the schedule: before the publication, or the publication's own day and time picker
  const beforePublication = h('input', {
    type: 'radio',
    name: `${formId}-schedule-kind`,
    value: 'publication',
    id: `${formId}-schedule-publication`,
    checked: !source?.schedule,
  })
  const ownSchedule = h('input', {
    type: 'radio',
    name: `${formId}-schedule-kind`,
    value: 'own',
    id: `${formId}-schedule-own`,
    checked: Boolean(source?.schedule),
  })
  const picker = scheduleField(
    { schedule: source?.schedule ?? '0 6 * * *' },
    {
      idPrefix: `${formId}-schedule`,
      legend: tr('Godzina pobierania pliku', 'When the file is fetched'),
      dailyDuty: false,
    },
  )
  const showPicker = () => {
    picker.element.hidden = !ownSchedule.checked
  }
  beforePublication.addEventListener('change', showPicker)
  ownSchedule.addEventListener('change', showPicker)
  showPicker()

  const privateHosts = input({
    name: 'private_hosts',
    value: source?.private_hosts.join(', ') ?? '',
    placeholder: tr('puste: tylko adresy publiczne', 'empty: public addresses only'),
  })
  const trusted = source?.trusted_certificates ?? []
  const certificate = h('textarea', {
    class: 'input mono',
    name: 'ca_certificate',
    rows: 3,
    placeholder: '-----BEGIN CERTIFICATE-----\n…\n-----END CERTIFICATE-----',
  })
  const clearCertificate = h('input', { type: 'checkbox', name: 'clear_ca_certificate' })
  const guard = (key, value) => input({ name: key, type: 'number', min: 0, max: 100, step: 1, value })
  const limits = { max_archived_pct: 30, max_price_change_pct: 20, max_invalid_pct: 10, max_shrink_pct: 30 }
  const guards = Object.fromEntries(
    Object.entries(limits).map(([key, value]) => [key, guard(key, source?.guards[key] ?? value)]),
  )
  const staleDays = input({
    name: 'stale_after_days',
    type: 'number',
    min: 1,
    max: 90,
    value: source?.stale_after_days ?? 3,
  })
  const problems = h('div', {})

  const headerPairs = () => {
    const pairs = {}
    for (const line of headers.value.split('\n')) {
      const at = line.indexOf(':')
      if (at > 0) pairs[line.slice(0, at).trim()] = line.slice(at + 1).trim()
    }
    return pairs
  }
  const hostList = () =>
    privateHosts.value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)

  readHeaders.addEventListener('click', async () => {
    readHeaders.disabled = true
    replaceChildren(headerPreview, h('p', { class: 'muted' }, tr('Pobieranie pliku…', 'Fetching the file…')))
    const typed = headerPairs()
    try {
      const { body } = await api.post('/sources/preview-headers', {
        json: {
          url: url.value.trim(),
          ...(source ? { source_id: source.id } : {}),
          ...(Object.keys(typed).length > 0 ? { headers: typed } : {}),
          private_hosts: hostList(),
          ...(certificate.value.trim() ? { ca_certificate: certificate.value } : {}),
        },
      })
      fileHeaders = body.headers
      replaceChildren(
        headerList,
        fileHeaders.map((header) => h('option', { value: header })),
      )
      // a new source's file of a shape the import has seen gets the assignment used for it there
      const remembered = source ? null : mappingForShape(fileHeaders)
      if (remembered && Object.values(remembered).every((header) => fileHeaders.includes(header)))
        assignment.setMapping(remembered)
      const guessed = assignment.matchEmpty(fileHeaders)
      replaceChildren(
        headerPreview,
        h(
          'p',
          { dataset: { format: body.format } },
          tr(
            `Plik ${body.format.toUpperCase()}, kolumny (${fileHeaders.length}):`,
            `${body.format.toUpperCase()} file, columns (${fileHeaders.length}):`,
          ),
        ),
        h(
          'ul',
          { class: 'header-chips', id: `${formId}-file-columns` },
          fileHeaders.map((header) => h('li', {}, mono(header))),
        ),
        h(
          'p',
          { class: 'muted' },
          guessed > 0
            ? tr(
                `Dopasowano automatycznie: ${guessed}. Sprawdź przypisanie poniżej.`,
                `Matched automatically: ${guessed}. Check the assignment below.`,
              )
            : tr(
                'Wybierz kolumnę pliku przy każdym polu oferty (podpowiedzi pojawiają się w polach).',
                'Choose the file’s column for each offer field (the fields suggest them).',
              ),
        ),
      )
    } catch (error) {
      const issues = error.body?.issues
      replaceChildren(
        headerPreview,
        alertBox(
          'error',
          tr('Nie udało się odczytać kolumn pliku.', 'The file’s columns could not be read.'),
          Array.isArray(issues)
            ? h(
                'ul',
                {},
                issues.map((i) => h('li', {}, issueLine(i))),
              )
            : h('p', {}, error.message || String(error)),
        ),
      )
    } finally {
      readHeaders.disabled = false
    }
  })

  const form = h(
    'form',
    { id: formId, novalidate: true },
    h(
      'div',
      { class: 'form-grid' },
      formField({ label: tr('Nazwa', 'Name'), input: name, required: true }),
      formField({
        label: tr('Adres pliku (https)', 'File address (https)'),
        input: url,
        required: true,
        className: 'field-wide',
        hint: tr(
          'Arkusze Google: Plik → Udostępnij → Opublikuj w internecie → CSV. OneDrive: link bezpośredniego pobierania.',
          'Google Sheets: File → Share → Publish to the web → CSV. OneDrive: a direct download link.',
        ),
      }),
      formField({
        label: tr('Nagłówki (np. token), jeden w wierszu', 'Headers (a token, say), one a line'),
        input: headers,
        hint:
          source && source.header_names.length > 0
            ? tr(
                `Zapisane: ${source.header_names.join(', ')} (wartości nie są pokazywane). Zostaw puste, aby je zachować; wpisane zastąpią wszystkie zapisane. Adres na innym serwerze (inny protokół, host lub port) usuwa zapisane nagłówki, chyba że wpiszesz je tu ponownie.`,
                `Saved: ${source.header_names.join(', ')} (values are not shown). Leave empty to keep them; what you type replaces them all. An address on another server (scheme, host or port) removes the saved headers unless you type them here again.`,
              )
            : tr('Zapisywane bezpiecznie i nigdy więcej niepokazywane.', 'Stored safely and never shown again.'),
      }),
      source && source.header_names.length > 0
        ? h('label', { class: 'checkbox' }, clearHeaders, ' ', tr('Usuń zapisane nagłówki', 'Remove the saved headers'))
        : null,
      formField({ label: tr('Tryb importu', 'Import mode'), input: mode }),
      formField({
        label: tr('Hosty w sieci wewnętrznej, na które zezwalasz', 'Internal-network hosts you allow'),
        input: privateHosts,
        hint: tr(
          'Np. crm.firma.local:8443; oddziel przecinkami.',
          'E.g. crm.company.local:8443; separate with commas.',
        ),
      }),
      formField({
        label: tr('Zaufany certyfikat serwera (PEM)', 'Trusted server certificate (PEM)'),
        input: certificate,
        className: 'field-wide',
        hint:
          trusted.length > 0
            ? tr(
                `Zapisany: ${certificatesText(trusted)}. Zostaw puste, aby go zachować; wklejony zastąpi zapisany.`,
                `Saved: ${certificatesText(trusted)}. Leave empty to keep it; a pasted one replaces it.`,
              )
            : tr(
                'Tylko gdy serwer źródła ma certyfikat z podpisem własnym lub firmowego urzędu certyfikacji: wklej go tutaj (tekst od „-----BEGIN CERTIFICATE-----”). Będzie zaufany wyłącznie dla tego źródła.',
                'Only when the source’s server has a self-signed certificate or one from a company’s own authority: paste it here (the text from "-----BEGIN CERTIFICATE-----"). It is trusted for this source only.',
              ),
      }),
      trusted.length > 0
        ? h(
            'label',
            { class: 'checkbox' },
            clearCertificate,
            ' ',
            tr('Usuń zaufany certyfikat', 'Remove the trusted certificate'),
          )
        : null,
    ),
    h(
      'fieldset',
      { class: 'source-mapping', id: `${formId}-mapping` },
      h(
        'legend',
        {},
        tr(
          'Przypisanie kolumn (pole oferty → kolumna w pliku)',
          'Column assignment (offer field → column in the file)',
        ),
      ),
      h(
        'p',
        { class: 'hint' },
        source
          ? tr(
              'Przypisanie zapisane w tym źródle. „Odczytaj kolumny z pliku” pobiera plik raz i podpowiada jego kolumny.',
              'The assignment saved in this source. “Read the columns from the file” fetches the file once and suggests its columns.',
            )
          : initialMapping
            ? tr(
                'Wstawiono przypisanie zapisane przy ostatnim imporcie ofert. „Odczytaj kolumny z pliku” pobiera plik raz i podpowiada jego kolumny.',
                'The assignment saved by the last offer import was filled in. “Read the columns from the file” fetches the file once and suggests its columns.',
              )
            : tr(
                'Podaj adres pliku i wybierz „Odczytaj kolumny z pliku”: plik zostanie pobrany raz, a jego kolumny pojawią się jako podpowiedzi.',
                'Give the file’s address and choose “Read the columns from the file”: the file is fetched once and its columns appear as suggestions.',
              ),
      ),
      h('div', { class: 'actions' }, readHeaders),
      headerPreview,
      assignment.grid,
      headerList,
    ),
    h(
      'fieldset',
      { class: 'source-schedule', id: `${formId}-schedule` },
      h('legend', {}, tr('Harmonogram', 'Schedule')),
      h(
        'label',
        { class: 'radio', for: beforePublication.id },
        beforePublication,
        ' ',
        tr('Codziennie, 30 minut przed publikacją', 'Daily, 30 minutes before the publication'),
      ),
      h(
        'label',
        { class: 'radio', for: ownSchedule.id },
        ownSchedule,
        ' ',
        tr('O wybranej godzinie', 'At a time of my choice'),
      ),
      picker.element,
    ),
    h(
      'h3',
      {},
      tr('Limity (w %) — powyżej nich przebieg czeka na decyzję', 'Limits (%) — above them a run waits for a decision'),
    ),
    h(
      'div',
      { class: 'form-grid' },
      formField({
        label: tr('Archiwizowane lub wycofane oferty', 'Offers archived or withdrawn'),
        input: guards.max_archived_pct,
      }),
      formField({ label: tr('Zmiana ceny lokalu', 'Unit price change'), input: guards.max_price_change_pct }),
      formField({ label: tr('Błędne wiersze', 'Invalid rows'), input: guards.max_invalid_pct }),
      formField({ label: tr('Zmniejszenie pliku', 'File shrinking'), input: guards.max_shrink_pct }),
      formField({
        label: tr('Alarm, gdy plik nie zmienia się przez (dni)', 'Alert when the file is unchanged for (days)'),
        input: staleDays,
      }),
    ),
    h(
      'p',
      { class: 'muted' },
      tr(
        'Bez względu na limity przebieg czeka na decyzję, gdy plik cofnąłby decyzję podjętą w panelu: przywróciłby do sprzedaży lokal sprzedany lub zarezerwowany, zastąpiłby cenę zapowiedzianą od późniejszego dnia albo nadpisałby wartość zmienioną w edytorze lub zmianą cen wielu ofert po poprzednim przebiegu źródła.',
        "Whatever the limits, a run waits for a decision when the file would undo a decision made in the panel: put a sold or reserved unit back on sale, replace a price announced for a later day, or overwrite a value changed in the editor or by a bulk price change after the source's previous run.",
      ),
    ),
    problems,
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { class: 'button button-primary', type: 'submit' },
        source ? tr('Zapisz zmiany', 'Save the changes') : tr('Dodaj źródło', 'Add the source'),
      ),
    ),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    replaceChildren(problems)
    const missing = assignment.missingRequired()
    const scheduleProblem = ownSchedule.checked ? picker.problem() : null
    if (missing.length > 0 || scheduleProblem) {
      replaceChildren(
        problems,
        alertBox(
          'error',
          tr('Popraw ustawienia źródła:', 'Correct the source settings:'),
          h(
            'ul',
            {},
            missing.length > 0
              ? h(
                  'li',
                  {},
                  tr(
                    `Przypisz kolumny wymaganych pól: ${missing.join(', ')}.`,
                    `Assign the columns of the required fields: ${missing.join(', ')}.`,
                  ),
                )
              : null,
            scheduleProblem ? h('li', {}, scheduleProblem) : null,
          ),
        ),
      )
      return
    }
    const pairs = headerPairs()
    const body = {
      name: name.value,
      url: url.value.trim(),
      ...(Object.keys(pairs).length > 0 || !source ? { headers: pairs } : {}),
      ...(source && clearHeaders.checked && Object.keys(pairs).length === 0 ? { headers: {} } : {}),
      mapping: assignment.currentMapping(),
      mode: mode.value,
      schedule: ownSchedule.checked ? picker.value() || null : null,
      private_hosts: hostList(),
      ...(certificate.value.trim()
        ? { ca_certificate: certificate.value }
        : source && clearCertificate.checked
          ? { ca_certificate: null }
          : {}),
      guards: Object.fromEntries(Object.entries(guards).map(([key, el]) => [key, Number(el.value)])),
      stale_after_days: Number(staleDays.value),
    }
    try {
      const saved = source
        ? await api.request('PATCH', `/sources/${source.id}`, { json: body })
        : await api.post('/sources', { json: body })
      headers.value = ''
      certificate.value = ''
      toast(
        source ? tr('Zapisano zmiany źródła.', 'The source was saved.') : tr('Dodano źródło.', 'The source was added.'),
      )
      await reload(saved?.body?.warnings ?? [])
    } catch (error) {
      const issues = error.body?.issues
      replaceChildren(
        problems,
        Array.isArray(issues)
          ? alertBox(
              'error',
              tr('Popraw ustawienia źródła:', 'Correct the source settings:'),
              h(
                'ul',
                { id: `${formId}-issues` },
                issues.map((i) => h('li', { dataset: { code: i.code ?? '' } }, issueLine(i))),
              ),
            )
          : errorBox(error),
      )
    }
  })
  return form
}
