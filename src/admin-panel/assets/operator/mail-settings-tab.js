// Ustawienia → Poczta: the SMTP server the service sends e-mails with (a password reset, alert
// e-mails) and the panel's public address the e-mails link to. GET/PUT {base}/mail/settings; a
// save applies to the next e-mail at once. POST {base}/mail/test sends a test e-mail (to the
// outbox in a trial). What the server's environment sets wins and is shown read-only. The
// password is never shown: only whether one is set.
import { badge, facts, formatWhen, h, replaceChildren } from '../dom.js'
import { tr } from '../i18n.js'
import { alertBox, card, clearFieldErrors, errorBox, formField, showFieldErrors, toast, withBusy } from '../ui.js'

const TLS = {
  starttls: ['STARTTLS (port 587, zalecane)', 'STARTTLS (port 587, recommended)'],
  implicit: ['TLS od początku (port 465)', 'TLS from the start (port 465)'],
  none: ['bez szyfrowania (tylko serwer na tej maszynie)', 'no encryption (a server on this machine only)'],
}

function environmentNote(variables) {
  return alertBox(
    'info',
    tr(
      'Ustawione przez środowisko administratora serwera — nie można tego zmienić tutaj.',
      'Set by the server administrator’s environment — it cannot be changed here.',
    ),
    h(
      'p',
      {},
      tr(
        `Ustawiają to zmienne ${variables} serwera; mają pierwszeństwo przed panelem.`,
        `The server’s ${variables} variables set this; they take precedence over the panel.`,
      ),
    ),
  )
}

function deliveryNote(settings) {
  if (settings.delivery === 'smtp')
    return alertBox(
      'success',
      tr('E-maile wysyła serwer poczty wychodzącej (SMTP).', 'E-mails are sent by the outgoing mail server (SMTP).'),
    )
  if (settings.delivery === 'outbox')
    return alertBox(
      'info',
      tr(
        'Tryb próbny: bez serwera SMTP e-maile trafiają do Skrzynki nadawczej.',
        'Trial mode: without an SMTP server e-mails go to the Outbox.',
      ),
      h(
        'p',
        {},
        tr(
          'Nic nie wychodzi na zewnątrz. E-mail z odnośnikiem do nowego hasła i e-mail testowy zobaczysz w ',
          'Nothing leaves the service. The new-password e-mail and the test e-mail are shown in the ',
        ),
        h('a', { href: '#/skrzynka-nadawcza', id: 'outbox-link' }, tr('Skrzynce nadawczej', 'Outbox')),
        '.',
      ),
    )
  return alertBox(
    'warning',
    tr('Nie ustawiono serwera poczty wychodzącej.', 'No outgoing mail server is set.'),
    h(
      'p',
      {},
      tr(
        'Usługa nie wyśle żadnego e-maila: zapomniane hasło ustawia administrator w sekcji Użytkownicy. Podaj serwer SMTP poniżej.',
        'The service sends no e-mail: an administrator sets a forgotten password under Users. Give the SMTP server below.',
      ),
    ),
  )
}

export async function mailSettingsTab(root, api, user) {
  const { body: settings } = await api.get('/mail/settings')
  const smtp = settings.smtp
  const smtpLocked = smtp.source === 'environment'
  const urlLocked = settings.panel_url.source === 'environment'
  const input = (id, name, value, extra = {}) =>
    h('input', { id, name, value: value ?? '', disabled: smtpLocked, ...extra })
  const host = input('mail-smtp-host', 'smtp.host', smtp.host, { placeholder: 'smtp.example.pl' })
  const port = input('mail-smtp-port', 'smtp.port', smtp.port, { inputmode: 'numeric', placeholder: '587', size: 6 })
  const tls = h(
    'select',
    { id: 'mail-smtp-tls', name: 'smtp.tls', disabled: smtpLocked },
    Object.entries(TLS).map(([value, label]) =>
      h('option', { value, selected: (smtp.tls ?? 'starttls') === value }, tr(...label)),
    ),
  )
  const login = input('mail-smtp-user', 'smtp.user', smtp.user, { autocomplete: 'off' })
  const passwordSet = smtp.password === 'set'
  const password = input('mail-smtp-password', 'smtp.password', '', {
    type: 'password',
    autocomplete: 'new-password',
    placeholder: passwordSet ? tr('ustawione — puste pole nie zmienia', 'set — leave empty to keep') : '',
  })
  const from = input('mail-smtp-from', 'smtp.from', smtp.from, { placeholder: 'Ceny <ceny@example.pl>' })
  const panelUrl = h('input', {
    id: 'mail-panel-url',
    name: 'panel_url',
    type: 'url',
    value: settings.panel_url.source === 'default' ? '' : (settings.panel_url.value ?? ''),
    placeholder: settings.panel_url.source === 'default' ? settings.panel_url.value : 'https://ceny.example.pl',
    disabled: urlLocked,
  })
  const message = h('div', { 'aria-live': 'polite' })
  const save = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'save-mail-settings', disabled: smtpLocked && urlLocked },
    tr('Zapisz', 'Save'),
  )
  const removeSmtp = h(
    'button',
    { type: 'button', class: 'button button-quiet', id: 'remove-mail-smtp' },
    tr('Usuń serwer SMTP', 'Remove the SMTP server'),
  )

  const form = h(
    'form',
    { id: 'mail-settings-form', class: 'stack', novalidate: true },
    h('h3', {}, tr('Serwer poczty wychodzącej (SMTP)', 'Outgoing mail server (SMTP)')),
    smtpLocked ? environmentNote('DG_ALERT_SMTP_*') : null,
    h(
      'div',
      { class: 'form-row' },
      formField({ label: tr('Serwer SMTP', 'SMTP server'), input: host, names: 'smtp.host smtp' }),
      formField({
        label: tr('Port', 'Port'),
        input: port,
        names: 'smtp.port',
        hint: tr('Puste: 587 (albo 465 przy TLS od początku).', 'Empty: 587 (or 465 with TLS from the start).'),
      }),
      formField({ label: tr('Szyfrowanie', 'Encryption'), input: tls, names: 'smtp.tls' }),
    ),
    h(
      'div',
      { class: 'form-row' },
      formField({ label: tr('Login do serwera poczty', 'Mail server login'), input: login, names: 'smtp.user' }),
      formField({
        label: tr('Hasło do serwera poczty', 'Mail server password'),
        input: password,
        names: 'smtp.password',
        hint: h(
          'span',
          { id: 'mail-password-state' },
          tr('Hasło: ', 'Password: '),
          passwordSet ? badge(tr('ustawione', 'set'), 'ok') : badge(tr('nieustawione', 'not set')),
          tr(' — panel nigdy go nie pokazuje.', ' — the panel never shows it.'),
        ),
      }),
      formField({
        label: tr('Adres nadawcy', 'Sender address'),
        input: from,
        names: 'smtp.from',
        hint: tr('Puste: login, jeśli jest adresem e-mail.', 'Empty: the login, when it is an e-mail address.'),
      }),
    ),
    h('h3', {}, tr('Adres panelu', 'Panel address')),
    urlLocked ? environmentNote('DG_PANEL_URL') : null,
    formField({
      label: tr('Publiczny adres panelu', 'The panel’s public address'),
      input: panelUrl,
      names: 'panel_url',
      hint:
        settings.panel_url.source === 'default'
          ? tr(
              `Adres, pod którym operatorzy otwierają usługę (część przed /dg-admin/); do niego prowadzą odnośniki w e-mailach. Puste: ${settings.panel_url.value} (adres tej usługi, tylko poza produkcją).`,
              `The address the operators open the service at (the part before /dg-admin/); the e-mails link to it. Empty: ${settings.panel_url.value} (this service’s address, outside production only).`,
            )
          : tr(
              'Adres, pod którym operatorzy otwierają usługę (część przed /dg-admin/); do niego prowadzą odnośniki w e-mailach.',
              'The address the operators open the service at (the part before /dg-admin/); the e-mails link to it.',
            ),
    }),
    message,
    h('div', { class: 'actions' }, save, smtp.source === 'panel' ? removeSmtp : null),
  )

  async function put(button, payload) {
    clearFieldErrors(form)
    replaceChildren(message)
    try {
      await withBusy(button, tr('Zapisywanie…', 'Saving…'), () =>
        api.request('PUT', '/mail/settings', { json: payload }),
      )
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
                rest.map((i) => h('li', {}, tr(i.message_pl, i.message_en))),
              )
            : null,
        ),
      )
      return
    }
    toast(tr('Zapisano; działa od następnego e-maila.', 'Saved; it applies from the next e-mail.'))
    replaceChildren(root)
    await mailSettingsTab(root, api, user)
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault()
    /** @type {Record<string, unknown>} */
    const payload = {}
    if (!smtpLocked && (host.value.trim() || smtp.source === 'panel')) {
      const portText = port.value.trim()
      payload.smtp = host.value.trim()
        ? {
            host: host.value.trim(),
            port: portText === '' ? null : /^\d+$/.test(portText) ? Number(portText) : 0,
            tls: tls.value,
            user: login.value.trim() || null,
            ...(password.value ? { password: password.value } : {}),
            from: from.value.trim() || null,
          }
        : null
    }
    if (!urlLocked) payload.panel_url = panelUrl.value.trim() || null
    void put(save, payload)
  })
  removeSmtp.addEventListener('click', () => void put(removeSmtp, { smtp: null }))

  const testTo = h('input', {
    id: 'mail-test-to',
    name: 'to',
    type: 'email',
    value: user?.email ?? '',
    placeholder: 'anna.kowalska@example.pl',
  })
  const testButton = h(
    'button',
    { type: 'button', class: 'button', id: 'send-test-email' },
    tr('Wyślij testowy e-mail', 'Send a test e-mail'),
  )
  const testResult = h('div', { 'aria-live': 'polite', id: 'test-email-result' })
  testButton.addEventListener('click', async () => {
    replaceChildren(testResult)
    try {
      const { body } = await withBusy(testButton, tr('Wysyłanie…', 'Sending…'), () =>
        api.post('/mail/test', { json: { to: testTo.value.trim() } }),
      )
      replaceChildren(
        testResult,
        !body.sent
          ? alertBox(
              'error',
              tr('Serwer poczty nie przyjął e-maila.', 'The mail server did not accept the e-mail.'),
              h('p', { class: 'network-error' }, body.error ?? ''),
            )
          : body.via === 'outbox'
            ? alertBox(
                'success',
                tr('E-mail testowy jest w Skrzynce nadawczej.', 'The test e-mail is in the Outbox.'),
                h('p', {}, h('a', { href: '#/skrzynka-nadawcza' }, tr('Otwórz Skrzynkę nadawczą', 'Open the Outbox'))),
              )
            : alertBox(
                'success',
                tr(
                  'Serwer poczty przyjął e-mail testowy; sprawdź skrzynkę odbiorcy.',
                  'The mail server accepted the test e-mail; check the recipient’s mailbox.',
                ),
              ),
      )
    } catch (error) {
      replaceChildren(testResult, errorBox(error))
    }
  })

  root.append(
    card(
      tr('Poczta i adres panelu', 'E-mail and panel address'),
      h(
        'p',
        { class: 'lead' },
        tr(
          'Usługa wysyła e-maile z odnośnikiem do ustawienia nowego hasła (gdy ktoś zapomni hasła) i alerty. Zmiana działa od razu, bez ponownego uruchamiania usługi.',
          'The service sends e-mails with a link to set a new password (when someone forgets theirs) and the alerts. A change applies at once, without restarting the service.',
        ),
      ),
      h(
        'div',
        { class: 'stack' },
        h('div', { id: 'mail-delivery', dataset: { delivery: settings.delivery } }, deliveryNote(settings)),
        form,
      ),
      settings.updated_at
        ? h(
            'p',
            { class: 'hint' },
            tr(
              `Ostatnia zmiana w panelu: ${formatWhen(settings.updated_at)}.`,
              `Last changed in the panel: ${formatWhen(settings.updated_at)}.`,
            ),
          )
        : null,
    ),
    card(
      tr('E-mail testowy', 'Test e-mail'),
      h(
        'div',
        { class: 'stack' },
        facts([[tr('Wysyłka', 'Delivery'), deliveryLabel(settings.delivery)]]),
        formField({ label: tr('Adres odbiorcy', 'Recipient address'), input: testTo, names: 'to' }),
        h('div', { class: 'actions' }, testButton),
        testResult,
      ),
    ),
  )
}

function deliveryLabel(delivery) {
  if (delivery === 'smtp') return badge(tr('serwer SMTP', 'SMTP server'), 'ok')
  if (delivery === 'outbox') return badge(tr('Skrzynka nadawcza (tryb próbny)', 'Outbox (trial mode)'), 'warn')
  return badge(tr('wyłączona', 'off'), 'error')
}
