// Użytkownicy (users) and their application passwords, over {base}/users: the list, a new user (its
// generated login password shown once), a user's page (#/uzytkownicy/{id}) to change the role and
// the scope (the developer entities and investments the account works on), disable or enable the
// account, and issue (shown once, with a copy button) or revoke its application passwords.
// Passwords are never kept anywhere but on the screen that shows them.
import { badge, facts, formatWhen, h, mono, replaceChildren } from '../dom.js'
import { hashRoute } from '../editor/editor-labels.js'
import { tr } from '../i18n.js'
import { describeError, ROLE_CODES, roleLabel } from '../messages.js'
import {
  alertBox,
  card,
  clearFieldErrors,
  confirmDialog,
  copyButton,
  errorBox,
  formField,
  showFieldErrors,
  toast,
  withBusy,
} from '../ui.js'

function stateBadge(user) {
  const element = user.disabled ? badge(tr('wyłączone', 'disabled'), 'error') : badge(tr('aktywne', 'active'), 'ok')
  element.dataset.state = user.disabled ? 'disabled' : 'active'
  return element
}

/** Role names short enough for a form's select, with what each may do. */
const SHORT_ROLE_LABELS = {
  administrator: ['Administrator — wszystko', 'Administrator — everything'],
  dg_operator: ['Operator — katalog, importy, publikacja', 'Operator — catalog, imports, publication'],
  dg_auditor: ['Audytor — tylko odczyt', 'Auditor — read only'],
  dg_catalog_reader: ['Odczyt katalogu (API)', 'Catalog reading (API)'],
}
const shortRoleLabel = (code) =>
  Object.hasOwn(SHORT_ROLE_LABELS, code) ? tr(...SHORT_ROLE_LABELS[code]) : roleLabel(code)

/** Only an administrator changes accounts; an auditor reads the same pages without their forms. */
const canManage = (me) => me.capabilities.includes('manage_options')

const roleOptions = (selected) =>
  ROLE_CODES.map((code) => h('option', { value: code, selected: code === selected }, shortRoleLabel(code)))

/**
 * A password shown once: the text, a copy button and the warning that it will not be shown again.
 * @param {string} title
 * @param {string} password
 * @param {Node | null} [extra]
 */
function shownOnce(title, password, extra = null) {
  const value = h('code', { class: 'secret', id: 'shown-password' }, password)
  return alertBox(
    'success',
    title,
    h(
      'div',
      { class: 'secret-box' },
      value,
      copyButton(() => password, { target: value, id: 'copy-password' }),
    ),
    h(
      'p',
      { class: 'hint' },
      tr(
        'Skopiuj je teraz: nie zostanie pokazane ponownie (przechowywany jest tylko jego skrót).',
        'Copy it now: it is not shown again (only its hash is kept).',
      ),
    ),
    extra,
  )
}

/** A scope in a few words: the whole catalog, or how many developer entities and investments. */
function scopeSummary(scope) {
  if (!scope) return tr('cały katalog', 'the whole catalog')
  const parts = []
  if (scope.developers.length)
    parts.push(tr(`deweloperzy: ${scope.developers.length}`, `developer entities: ${scope.developers.length}`))
  if (scope.investments.length)
    parts.push(tr(`inwestycje: ${scope.investments.length}`, `investments: ${scope.investments.length}`))
  return parts.join(', ')
}

/** Every page of a list the API pages (investments), at most 20 pages of 100. */
async function allPages(api, path) {
  const items = []
  for (let page = 1; page <= 20; page++) {
    const { body, headers } = await api.get(`${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`)
    items.push(...body)
    if (page >= Number(headers.get('X-WP-TotalPages') ?? 1)) break
  }
  return items
}

/**
 * The scope of an account: what it works on, and for an administrator a form to choose developer
 * entities and investments from lists (or the whole catalog). An administrator's own is always
 * the whole catalog.
 */
async function scopeCard(api, user, me, onSaved) {
  const [{ body: developerList }, investments] = await Promise.all([
    api.get('/developers'),
    allPages(api, '/investments'),
  ])
  const developers = developerList.items
  const developerName = (id) => developers.find((d) => d.id === id)?.name ?? `#${id}`
  const investmentName = (id) => investments.find((i) => i.id === id)?.title ?? `#${id}`
  const current = user.scope
  // an administrator holds manage_options and is never scoped
  const administrator = user.capabilities.includes('manage_options')
  const describe = h(
    'div',
    { id: 'user-scope' },
    administrator
      ? h(
          'p',
          {},
          tr('Administrator zawsze pracuje na całym katalogu.', 'An administrator always works on the whole catalog.'),
        )
      : !current
        ? h(
            'p',
            {},
            tr(
              'Cały katalog: wszyscy deweloperzy i inwestycje.',
              'The whole catalog: every developer entity and investment.',
            ),
          )
        : facts([
            [
              tr('Deweloperzy (z ich wszystkimi inwestycjami)', 'Developer entities (with all their investments)'),
              current.developers.map(developerName).join(', ') || '—',
            ],
            [
              tr('Pojedyncze inwestycje', 'Single investments'),
              current.investments.map(investmentName).join(', ') || '—',
            ],
          ]),
  )
  if (!canManage(me) || administrator) return card(tr('Zakres', 'Scope'), describe)

  const whole = h('input', { type: 'checkbox', id: 'scope-whole', checked: !current })
  const box = (kind, id, label, checked) =>
    h(
      'label',
      { class: 'checkbox' },
      h('input', { type: 'checkbox', name: `scope-${kind}`, value: String(id), checked, dataset: { kind } }),
      ` ${label}`,
    )
  const developerBoxes = h(
    'fieldset',
    { id: 'scope-developers' },
    h(
      'legend',
      {},
      tr(
        'Deweloperzy (spółki) — z wszystkimi inwestycjami, także przyszłymi',
        'Developer entities — with all their investments, later ones too',
      ),
    ),
    developers.length
      ? developers.map((d) => box('developer', d.id, d.name, current?.developers.includes(d.id) ?? false))
      : h('p', { class: 'muted' }, tr('Brak deweloperów.', 'No developer entities.')),
  )
  const investmentBoxes = h(
    'fieldset',
    { id: 'scope-investments' },
    h('legend', {}, tr('Pojedyncze inwestycje', 'Single investments')),
    investments.length
      ? investments.map((i) => box('investment', i.id, i.title, current?.investments.includes(i.id) ?? false))
      : h('p', { class: 'muted' }, tr('Brak inwestycji.', 'No investments.')),
  )
  const choices = h('div', { class: 'scope-choices' }, developerBoxes, investmentBoxes)
  const sync = () => {
    choices.hidden = whole.checked
  }
  whole.addEventListener('change', sync)
  sync()
  const message = h('div', { 'aria-live': 'polite' })
  const save = h('button', { type: 'submit', class: 'button', id: 'save-scope' }, tr('Zapisz zakres', 'Save the scope'))
  const form = h(
    'form',
    { id: 'scope-form', novalidate: true },
    h(
      'label',
      { class: 'checkbox' },
      whole,
      ` ${tr('Cały katalog (bez ograniczenia)', 'The whole catalog (no limit)')}`,
    ),
    choices,
    h(
      'p',
      { class: 'hint' },
      tr(
        'Konto z zakresem widzi i zmienia tylko wybrane spółki i inwestycje. Publikuje tylko zbiory wybranych deweloperów; samymi inwestycjami nie publikuje.',
        'An account with a scope sees and changes only the chosen entities and investments. It publishes only the datasets of the chosen developer entities; with investments alone it does not publish.',
      ),
    ),
    message,
    h('div', { class: 'actions' }, save),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    replaceChildren(message)
    const chosen = (kind) =>
      [.../** @type {NodeListOf<HTMLInputElement>} */ (form.querySelectorAll(`input[data-kind="${kind}"]`))]
        .filter((input) => input.checked)
        .map((input) => Number(input.value))
    const scope = whole.checked ? null : { developers: chosen('developer'), investments: chosen('investment') }
    try {
      await withBusy(save, tr('Zapisywanie…', 'Saving…'), () =>
        api.request('PATCH', `/users/${user.id}`, { json: { scope } }),
      )
      toast(tr('Zapisano zakres.', 'The scope is saved.'))
      await onSaved()
    } catch (error) {
      replaceChildren(
        message,
        errorBox(
          error,
          error.body?.issues
            ? h(
                'ul',
                { class: 'issues' },
                error.body.issues.map((i) => h('li', {}, i.message)),
              )
            : null,
        ),
      )
    }
  })
  return card(tr('Zakres', 'Scope'), describe, form)
}

function usersTable(users) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table', id: 'users-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, tr('Login', 'Login')),
          h('th', {}, tr('Nazwa', 'Name')),
          h('th', {}, tr('Rola', 'Role')),
          h('th', {}, tr('Zakres', 'Scope')),
          h('th', {}, tr('Stan', 'State')),
          h('th', { class: 'number' }, tr('Hasła aplikacji', 'Application passwords')),
          h('th', {}, tr('Ostatnie użycie API', 'Last API use')),
        ),
      ),
      h(
        'tbody',
        {},
        users.map((user) =>
          h(
            'tr',
            { dataset: { login: user.login, role: user.role } },
            h('td', {}, h('a', { href: `#/uzytkownicy/${user.id}` }, user.login)),
            h('td', {}, user.display_name, h('br'), h('span', { class: 'muted' }, user.email)),
            h('td', {}, roleLabel(user.role)),
            h('td', { class: 'user-scope' }, scopeSummary(user.scope)),
            h('td', {}, stateBadge(user)),
            h('td', { class: 'number' }, String(user.application_passwords)),
            h('td', {}, user.last_api_use_at ? formatWhen(user.last_api_use_at) : '—'),
          ),
        ),
      ),
    ),
  )
}

function newUserForm(api, onCreated) {
  const login = h('input', { name: 'login', id: 'new-user-login', autocomplete: 'off', maxlength: 60 })
  const email = h('input', { name: 'email', id: 'new-user-email', type: 'email', autocomplete: 'off', maxlength: 254 })
  const displayName = h('input', { name: 'display_name', id: 'new-user-name', maxlength: 100 })
  const role = h('select', { name: 'role', id: 'new-user-role' }, roleOptions('dg_catalog_reader'))
  const password = h('input', {
    name: 'password',
    id: 'new-user-password',
    type: 'password',
    autocomplete: 'new-password',
  })
  const message = h('div', { 'aria-live': 'polite' })
  const submit = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'create-user' },
    tr('Dodaj użytkownika', 'Add the user'),
  )
  const form = h(
    'form',
    { id: 'new-user-form', novalidate: true },
    h(
      'div',
      { class: 'form-grid' },
      formField({ label: tr('Login', 'Login'), input: login, names: 'login', required: true }),
      formField({ label: tr('E-mail', 'E-mail'), input: email, names: 'email', required: true }),
      formField({ label: tr('Nazwa wyświetlana', 'Display name'), input: displayName, names: 'display_name' }),
      formField({ label: tr('Rola', 'Role'), input: role, names: 'role' }),
      formField({
        label: tr('Hasło logowania (opcjonalnie)', 'Login password (optional)'),
        input: password,
        names: 'password',
        hint: tr('Puste: zostanie wygenerowane i pokazane raz.', 'Empty: one is generated and shown once.'),
      }),
    ),
    h(
      'p',
      { class: 'hint' },
      tr(
        'Strona WWW dostaje konto „odczyt katalogu przez API” z własnym hasłem aplikacji; administrator pracuje w panelu.',
        'The website gets a “catalog reading over the API” account with its own application password; an administrator works in the panel.',
      ),
    ),
    message,
    h('div', { class: 'actions' }, submit),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearFieldErrors(form)
    replaceChildren(message)
    const payload = { login: login.value.trim(), email: email.value.trim(), role: role.value }
    if (displayName.value.trim()) payload.display_name = displayName.value.trim()
    if (password.value) payload.password = password.value
    try {
      const { body } = await withBusy(submit, tr('Zapisywanie…', 'Saving…'), () =>
        api.post('/users', { json: payload }),
      )
      form.reset()
      onCreated(body)
    } catch (error) {
      const rest = error.body?.issues ? showFieldErrors(form, error.body.issues) : []
      replaceChildren(
        message,
        errorBox(
          error,
          rest.length
            ? h(
                'ul',
                { class: 'issues' },
                rest.map((i) => h('li', {}, i.message)),
              )
            : null,
        ),
      )
    }
  })
  return form
}

async function renderUserList(root, api, me) {
  const list = h('div', {})
  const created = h('div', { 'aria-live': 'polite' })
  async function load() {
    const { body } = await api.get('/users')
    replaceChildren(list, usersTable(body.items))
  }
  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, tr('Użytkownicy', 'Users'))),
    card(
      null,
      h(
        'p',
        { class: 'lead' },
        tr(
          'Do panelu logują się administratorzy (wszystko), operatorzy (katalog, importy, źródła, publikacja — bez użytkowników, sekretów i ustawień) i audytorzy (tylko odczyt). Strona WWW i inne systemy korzystają z API przez hasła aplikacji, które można unieważniać pojedynczo. Kliknij login, aby zmienić rolę, wyłączyć konto lub zarządzać hasłami aplikacji.',
          'Administrators (everything), operators (catalog, imports, sources, publication — no users, secrets or settings) and auditors (read only) log in to the panel. The website and other systems use the API with application passwords, revocable one by one. Click a login to change the role, disable the account or manage its application passwords.',
        ),
      ),
      list,
    ),
  )
  if (!canManage(me)) return load()
  root.append(
    card(
      tr('Nowy użytkownik', 'New user'),
      newUserForm(api, (body) => {
        replaceChildren(
          created,
          body.password
            ? shownOnce(
                tr(
                  `Utworzono użytkownika ${body.user.login}. Jego hasło logowania:`,
                  `User ${body.user.login} is created. Their login password:`,
                ),
                body.password,
              )
            : alertBox(
                'success',
                tr(`Utworzono użytkownika ${body.user.login}.`, `User ${body.user.login} is created.`),
              ),
        )
        void load()
      }),
      created,
    ),
  )
  await load()
}

function appPasswordsTable(api, user, items, reload, manage) {
  if (items.length === 0)
    return h('p', { class: 'muted', id: 'no-app-passwords' }, tr('Brak haseł aplikacji.', 'No application passwords.'))
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table', id: 'app-passwords-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, tr('Nazwa', 'Name')),
          h('th', {}, tr('Utworzone', 'Created')),
          h('th', {}, tr('Ostatnie użycie', 'Last used')),
          h('th', {}, tr('Z adresu', 'From address')),
          h('th', {}, ''),
        ),
      ),
      h(
        'tbody',
        {},
        items.map((item) => {
          const revoke = !manage
            ? null
            : h(
                'button',
                { type: 'button', class: 'button button-danger button-small', dataset: { uuid: item.uuid } },
                tr('Unieważnij', 'Revoke'),
              )
          revoke?.addEventListener('click', async () => {
            const confirmed = await confirmDialog({
              title: tr(`Unieważnić hasło „${item.name}”?`, `Revoke the password “${item.name}”?`),
              body: [
                tr(
                  `Od następnego żądania hasło nie zadziała (401). Pozostałe hasła użytkownika ${user.login} działają dalej.`,
                  `From the next request on it no longer works (401). The other passwords of ${user.login} keep working.`,
                ),
              ],
              okLabel: tr('Unieważnij', 'Revoke'),
              danger: true,
            })
            if (!confirmed) return
            try {
              await withBusy(/** @type {HTMLButtonElement} */ (revoke), '…', () =>
                api.request('DELETE', `/users/${user.id}/application-passwords/${encodeURIComponent(item.uuid)}`),
              )
              toast(tr(`Unieważniono hasło „${item.name}”.`, `Revoked the password “${item.name}”.`))
              await reload()
            } catch (error) {
              toast(describeError(error).text, 'error')
            }
          })
          return h(
            'tr',
            { dataset: { name: item.name, uuid: item.uuid } },
            h('td', {}, item.name),
            h('td', {}, formatWhen(item.created_at)),
            h('td', {}, item.last_used_at ? formatWhen(item.last_used_at) : tr('nigdy', 'never')),
            h('td', {}, item.last_ip ? mono(item.last_ip) : '—'),
            h('td', { class: 'actions-cell' }, revoke),
          )
        }),
      ),
    ),
    h(
      'p',
      { class: 'hint' },
      tr(
        'Ostatnie użycie zapisuje się najwyżej raz na dobę dla każdego hasła.',
        'The last use is recorded at most once a day per password.',
      ),
    ),
  )
}

async function renderUser(root, api, id, me) {
  const { body: user } = await api.get(`/users/${id}`)
  const message = h('div', { 'aria-live': 'polite' })
  const role = h('select', { id: 'user-role', name: 'role' }, roleOptions(user.role))
  const saveRole = h(
    'button',
    { type: 'submit', class: 'button', id: 'save-role' },
    tr('Zmień rolę', 'Change the role'),
  )
  const roleForm = h(
    'form',
    { class: 'form-row', id: 'role-form', novalidate: true },
    formField({ label: tr('Rola', 'Role'), input: role, names: 'role' }),
    h('div', { class: 'actions' }, saveRole),
  )
  const patch = async (button, payload) => {
    replaceChildren(message)
    clearFieldErrors(roleForm)
    try {
      await withBusy(button, tr('Zapisywanie…', 'Saving…'), () =>
        api.request('PATCH', `/users/${id}`, { json: payload }),
      )
      toast(tr('Zapisano.', 'Saved.'))
      replaceChildren(root)
      await renderUser(root, api, id, me)
    } catch (error) {
      if (error.body?.issues) showFieldErrors(roleForm, error.body.issues)
      replaceChildren(message, errorBox(error))
    }
  }
  roleForm.addEventListener('submit', (event) => {
    event.preventDefault()
    if (role.value !== user.role) void patch(saveRole, { role: role.value })
  })
  const toggle = h(
    'button',
    { type: 'button', class: user.disabled ? 'button' : 'button button-danger', id: 'toggle-disabled' },
    user.disabled ? tr('Włącz konto', 'Enable the account') : tr('Wyłącz konto', 'Disable the account'),
  )
  toggle.addEventListener('click', async () => {
    if (!user.disabled) {
      const confirmed = await confirmDialog({
        title: tr(`Wyłączyć konto ${user.login}?`, `Disable the account ${user.login}?`),
        body: [
          tr(
            'Sesje w panelu kończą się od razu, a hasła aplikacji przestają działać (403), dopóki konto nie zostanie włączone. Historia w dzienniku zostaje.',
            'Its panel sessions end at once and its application passwords stop working (403) until the account is enabled again. Its audit trail stays.',
          ),
        ],
        okLabel: tr('Wyłącz', 'Disable'),
        danger: true,
      })
      if (!confirmed) return
    }
    await patch(toggle, { disabled: !user.disabled })
  })

  const passwordsArea = h('div', {})
  const shown = h('div', { 'aria-live': 'polite' })
  async function loadPasswords() {
    const { body } = await api.get(`/users/${id}/application-passwords`)
    replaceChildren(passwordsArea, appPasswordsTable(api, user, body.items, loadPasswords, canManage(me)))
  }
  const name = h('input', {
    id: 'app-password-name',
    name: 'name',
    maxlength: 100,
    placeholder: tr('np. strona WWW', 'e.g. website'),
  })
  const create = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'create-app-password' },
    tr('Utwórz hasło aplikacji', 'Create an application password'),
  )
  const createForm = h(
    'form',
    { class: 'form-row', id: 'app-password-form', novalidate: true },
    formField({
      label: tr('Nazwa (do czego służy)', 'Name (what it is for)'),
      input: name,
      names: 'name',
      required: true,
    }),
    h('div', { class: 'actions' }, create),
  )
  createForm.addEventListener('submit', async (event) => {
    event.preventDefault()
    clearFieldErrors(createForm)
    replaceChildren(shown)
    try {
      const { body } = await withBusy(create, tr('Tworzenie…', 'Creating…'), () =>
        api.post(`/users/${id}/application-passwords`, { json: { name: name.value } }),
      )
      name.value = ''
      // the REST base is relative (../wp-json/dg/v2) so a company under /t/{slug}/ reaches its own API
      const base = new URL(api.url(''), location.href).href.replace(/\/+$/, '')
      replaceChildren(
        shown,
        shownOnce(
          tr(
            `Hasło aplikacji „${body.name}” dla ${body.user}:`,
            `Application password “${body.name}” of ${body.user}:`,
          ),
          body.password,
          h(
            'p',
            { class: 'hint' },
            tr(
              'Użycie (HTTP Basic, login i hasło; spacje są opcjonalne):',
              'Use (HTTP Basic, login and password; spaces are optional):',
            ),
            h('br'),
            mono(`curl -u '${body.user}:${tr('HASŁO', 'PASSWORD')}' ${base}/catalog`),
          ),
        ),
      )
      await loadPasswords()
    } catch (error) {
      if (error.body?.issues) showFieldErrors(createForm, error.body.issues)
      else replaceChildren(shown, errorBox(error))
    }
  })

  root.append(
    h(
      'div',
      { class: 'page-header' },
      h('h1', {}, user.display_name || user.login),
      h('a', { href: '#/uzytkownicy', class: 'button button-quiet' }, tr('← Wszyscy użytkownicy', '← All users')),
    ),
    card(
      tr('Konto', 'Account'),
      h(
        'div',
        { id: 'user-facts' },
        facts([
          [tr('Login', 'Login'), user.login],
          [tr('E-mail', 'E-mail'), user.email],
          [tr('Rola', 'Role'), roleLabel(user.role)],
          [tr('Stan', 'State'), stateBadge(user)],
          [tr('Utworzone', 'Created'), formatWhen(user.created_at)],
          user.disabled_at ? [tr('Wyłączone od', 'Disabled since'), formatWhen(user.disabled_at)] : null,
        ]),
      ),
      canManage(me) ? roleForm : null,
      h('div', { class: 'actions' }, me.id === user.id || !canManage(me) ? null : toggle),
      message,
    ),
    await scopeCard(api, user, me, async () => {
      replaceChildren(root)
      await renderUser(root, api, id, me)
    }),
    card(
      tr('Hasła aplikacji', 'Application passwords'),
      h(
        'p',
        {},
        tr(
          'Hasło aplikacji pozwala systemowi (np. stronie WWW) korzystać z API bez hasła logowania. Każde ma nazwę i można je unieważnić osobno.',
          'An application password lets a system (such as the website) use the API without the login password. Each has a name and can be revoked on its own.',
        ),
      ),
      passwordsArea,
      canManage(me) ? createForm : null,
      shown,
    ),
  )
  await loadPasswords()
}

export async function renderUsers(root, { api, user: me }) {
  const [, id] = hashRoute().segments
  if (id && /^\d+$/.test(id)) return renderUser(root, api, Number(id), me)
  return renderUserList(root, api, me)
}
