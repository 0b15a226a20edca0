// Alerty: who is told when the legal duty is at risk (a failed or missed publication, files not
// served, a lapsed licence) and how — e-mail over SMTP and the notification webhook (Slack, Teams
// or any receiver). GET/PUT {base}/alerts/settings; a change applies to the next alert on every
// instance. POST {base}/alerts/test sends a test alert through every channel and shows how each
// did. A channel the server's DG_ALERT_* variables set wins and is shown read-only.
import { badge, facts, formatWhen, h, replaceChildren } from '../dom.js'
import { tr } from '../i18n.js'
import {
  alertBox,
  card,
  clearFieldErrors,
  errorBox,
  formField,
  showFieldErrors,
  technicalDetails,
  toast,
  withBusy,
} from '../ui.js'
import { helpLink } from './help-links.js'

const TLS = {
  starttls: ['STARTTLS (port 587, zalecane)', 'STARTTLS (port 587, recommended)'],
  implicit: ['TLS od początku (port 465)', 'TLS from the start (port 465)'],
  none: ['bez szyfrowania (tylko serwer na tej maszynie)', 'no encryption (a server on this machine only)'],
}

function sourceNote(source) {
  if (source === 'environment')
    return alertBox(
      'info',
      tr('Ustawione w konfiguracji serwera.', 'Set in the server’s configuration.'),
      h(
        'p',
        {},
        tr(
          'Ten kanał ustawiają zmienne środowiskowe DG_ALERT_* serwera; mają pierwszeństwo przed panelem. Zmienia je administrator serwera.',
          'The server’s DG_ALERT_* environment variables set this channel; they take precedence over the panel. The server’s administrator changes them.',
        ),
      ),
    )
  return null
}

const CHANNEL_NAMES = { email: ['e-mail', 'e-mail'], webhook: ['powiadomienie (webhook)', 'notification (webhook)'] }
const CHANNEL_STATUS = {
  sent: ['dostarczono', 'delivered'],
  failed: ['nie dostarczono', 'not delivered'],
  pending: ['w toku', 'pending'],
}

function testOutcome(alert) {
  return h(
    'div',
    { id: 'test-alert-result', class: 'stack' },
    alert.state === 'delivered'
      ? alertBox('success', tr('Alert testowy dotarł każdym kanałem.', 'The test alert went through every channel.'))
      : alertBox(
          'error',
          tr('Alert testowy nie dotarł którymś kanałem.', 'The test alert did not go through a channel.'),
        ),
    facts(
      alert.channels.map((c) => [
        tr(...(CHANNEL_NAMES[c.channel] ?? [c.channel, c.channel])),
        h(
          'span',
          {},
          badge(tr(...(CHANNEL_STATUS[c.status] ?? [c.status, c.status])), c.status === 'sent' ? 'ok' : 'error'),
          c.error_pl ? h('span', { class: 'network-error' }, ` ${tr(c.error_pl, c.error_en)}`) : '',
          c.error && c.error_pl ? technicalDetails(h('p', {}, c.error)) : c.error ? ` ${c.error}` : '',
        ),
      ]),
    ),
  )
}

export async function renderAlerts(root, { api }) {
  const { body: settings } = await api.get('/alerts/settings')
  const email = settings.email
  const emailLocked = email.source === 'environment'
  const to = h(
    'textarea',
    { id: 'alert-email-to', name: 'email.to', rows: 2, disabled: emailLocked },
    email.to.join(', '),
  )
  const host = h('input', {
    id: 'alert-smtp-host',
    name: 'email.host',
    value: email.host ?? '',
    placeholder: 'smtp.example.pl',
    disabled: emailLocked,
  })
  const port = h('input', {
    id: 'alert-smtp-port',
    name: 'email.port',
    value: email.port ?? '',
    inputmode: 'numeric',
    placeholder: '587',
    disabled: emailLocked,
    size: 6,
  })
  const tls = h(
    'select',
    { id: 'alert-smtp-tls', name: 'email.tls', disabled: emailLocked },
    Object.entries(TLS).map(([value, label]) =>
      h('option', { value, selected: (email.tls ?? 'starttls') === value }, tr(...label)),
    ),
  )
  const user = h('input', {
    id: 'alert-smtp-user',
    name: 'email.user',
    value: email.user ?? '',
    autocomplete: 'off',
    disabled: emailLocked,
  })
  const password = h('input', {
    id: 'alert-smtp-password',
    name: 'email.password',
    type: 'password',
    autocomplete: 'new-password',
    placeholder: email.password_set ? tr('zapisane — puste pole nie zmienia', 'saved — leave empty to keep') : '',
    disabled: emailLocked,
  })
  const from = h('input', {
    id: 'alert-smtp-from',
    name: 'email.from',
    value: email.from ?? '',
    placeholder: 'Ceny <ceny@example.pl>',
    disabled: emailLocked,
  })
  const emailMessage = h('div', { 'aria-live': 'polite' })
  const saveEmail = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'save-alert-email', disabled: emailLocked },
    tr('Zapisz e-mail', 'Save the e-mail'),
  )
  const offEmail = h(
    'button',
    {
      type: 'button',
      class: 'button button-quiet',
      id: 'off-alert-email',
      disabled: emailLocked || email.source !== 'panel',
    },
    tr('Wyłącz e-mail', 'Turn e-mail off'),
  )
  const emailForm = h(
    'form',
    { id: 'alert-email-form', class: 'stack', novalidate: true },
    sourceNote(email.source),
    formField({
      label: tr('Odbiorcy alertów', 'Alert recipients'),
      input: to,
      names: 'email.to',
      hint: tr('Adresy e-mail oddzielone przecinkami.', 'E-mail addresses separated by commas.'),
    }),
    h(
      'div',
      { class: 'form-row' },
      formField({
        label: tr('Serwer poczty wychodzącej (SMTP)', 'Outgoing mail server (SMTP)'),
        input: host,
        names: 'email.host',
      }),
      formField({
        label: tr('Port', 'Port'),
        input: port,
        names: 'email.port',
        hint: tr('Puste: 587 (albo 465 przy TLS od początku).', 'Empty: 587 (or 465 with TLS from the start).'),
      }),
      formField({ label: tr('Szyfrowanie', 'Encryption'), input: tls, names: 'email.tls' }),
    ),
    h(
      'div',
      { class: 'form-row' },
      formField({ label: tr('Login do serwera poczty', 'Mail server login'), input: user, names: 'email.user' }),
      formField({
        label: tr('Hasło do serwera poczty', 'Mail server password'),
        input: password,
        names: 'email.password',
      }),
      formField({
        label: tr('Nadawca', 'Sender'),
        input: from,
        names: 'email.from',
        hint: tr('Puste: login, jeśli jest adresem e-mail.', 'Empty: the login, when it is an e-mail address.'),
      }),
    ),
    emailMessage,
    h('div', { class: 'actions' }, saveEmail, offEmail),
  )

  const webhook = settings.webhook
  const webhookLocked = webhook.source === 'environment'
  const url = h('input', {
    id: 'alert-webhook-url',
    name: 'webhook.url',
    type: 'url',
    placeholder: webhook.origin
      ? `${webhook.origin}/… ${tr('(zapisany — puste pole nie zmienia)', '(saved — leave empty to keep)')}`
      : 'https://hooks.slack.com/services/…',
    disabled: webhookLocked,
  })
  const secret = h('input', {
    id: 'alert-webhook-secret',
    name: 'webhook.secret',
    type: 'password',
    autocomplete: 'new-password',
    placeholder: webhook.secret_set ? tr('zapisany — puste pole nie zmienia', 'saved — leave empty to keep') : '',
    disabled: webhookLocked,
  })
  const webhookMessage = h('div', { 'aria-live': 'polite' })
  const saveWebhook = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'save-alert-webhook', disabled: webhookLocked },
    tr('Zapisz powiadomienie', 'Save the notification'),
  )
  const offWebhook = h(
    'button',
    {
      type: 'button',
      class: 'button button-quiet',
      id: 'off-alert-webhook',
      disabled: webhookLocked || webhook.source !== 'panel',
    },
    tr('Wyłącz powiadomienie', 'Turn the notification off'),
  )
  const webhookForm = h(
    'form',
    { id: 'alert-webhook-form', class: 'stack', novalidate: true },
    sourceNote(webhook.source),
    formField({
      label: tr('Adres powiadomień', 'Notification address'),
      input: url,
      names: 'webhook.url',
      hint: tr(
        'Np. adres „Incoming Webhook” kanału w Slacku lub Teams. Adres bywa tajny, więc panel pokazuje tylko jego początek.',
        'E.g. the “Incoming Webhook” address of a Slack or Teams channel. Such an address can be secret, so the panel shows only its beginning.',
      ),
    }),
    formField({
      label: tr('Sekret podpisu', 'Signing secret'),
      input: secret,
      names: 'webhook.secret',
      hint: tr(
        'Co najmniej 32 znaki; odbiorca sprawdza nim podpis (nagłówek X-DG-Signature) każdego powiadomienia.',
        'At least 32 characters; the receiver checks each notification’s signature (the X-DG-Signature header) with it.',
      ),
    }),
    webhookMessage,
    h('div', { class: 'actions' }, saveWebhook, offWebhook),
  )

  const testResult = h('div', { 'aria-live': 'polite' })
  const testButton = h(
    'button',
    { type: 'button', class: 'button', id: 'send-test-alert' },
    tr('Wyślij alert testowy', 'Send a test alert'),
  )

  async function put(form, message, button, payload, done) {
    clearFieldErrors(form)
    replaceChildren(message)
    try {
      await withBusy(button, tr('Zapisywanie…', 'Saving…'), () =>
        api.request('PUT', '/alerts/settings', { json: payload }),
      )
    } catch (error) {
      const rest = error.body?.issues ? showFieldErrors(root, error.body.issues) : []
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
    toast(done)
    replaceChildren(message, alertBox('success', done))
  }

  emailForm.addEventListener('submit', (event) => {
    event.preventDefault()
    const portText = port.value.trim()
    void put(
      emailForm,
      emailMessage,
      saveEmail,
      {
        email: {
          to: to.value.split(/[,;\s]+/).filter(Boolean),
          host: host.value.trim(),
          port: portText === '' ? null : /^\d+$/.test(portText) ? Number(portText) : 0,
          tls: tls.value,
          user: user.value.trim() || null,
          ...(password.value ? { password: password.value } : {}),
          from: from.value.trim() || null,
        },
      },
      tr(
        'Zapisano ustawienia e-maila; działają od następnego alertu.',
        'The e-mail settings are saved; they apply from the next alert.',
      ),
    )
  })
  offEmail.addEventListener(
    'click',
    () =>
      void put(
        emailForm,
        emailMessage,
        offEmail,
        { email: null },
        tr('Wyłączono alerty e-mailem.', 'E-mail alerts are off.'),
      ),
  )
  webhookForm.addEventListener('submit', (event) => {
    event.preventDefault()
    void put(
      webhookForm,
      webhookMessage,
      saveWebhook,
      {
        webhook: {
          ...(url.value.trim() ? { url: url.value.trim() } : {}),
          ...(secret.value ? { secret: secret.value } : {}),
        },
      },
      tr(
        'Zapisano adres powiadomień; działa od następnego alertu.',
        'The notification address is saved; it applies from the next alert.',
      ),
    )
  })
  offWebhook.addEventListener(
    'click',
    () =>
      void put(
        webhookForm,
        webhookMessage,
        offWebhook,
        { webhook: null },
        tr('Wyłączono powiadomienia.', 'Notifications are off.'),
      ),
  )
  testButton.addEventListener('click', async () => {
    replaceChildren(testResult)
    try {
      const { body } = await withBusy(testButton, tr('Wysyłanie…', 'Sending…'), () =>
        api.post('/alerts/test', { json: {} }),
      )
      replaceChildren(testResult, testOutcome(body))
    } catch (error) {
      replaceChildren(
        testResult,
        error.code === 'alerts_not_configured'
          ? alertBox(
              'warning',
              tr(
                'Nie ustawiono żadnego kanału: zapisz najpierw e-mail albo adres powiadomień.',
                'No channel is set: save the e-mail or the notification address first.',
              ),
            )
          : errorBox(error),
      )
    }
  })

  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, tr('Alerty', 'Alerts')), helpLink('alerty')),
    card(
      null,
      h(
        'p',
        { class: 'lead' },
        tr(
          'Usługa powiadamia, gdy obowiązek publikacji jest zagrożony: publikacja się nie udała lub nie odbyła, pliki nie są udostępniane, w pliku nagle ubyło ofert albo wygasła licencja. Każdy alert widać też na Pulpicie.',
          'The service tells you when the duty to publish is at risk: a publication failed or did not happen, the files are not served, the day’s file suddenly lost offers, or the licence lapsed. Every alert is also shown on the Dashboard.',
        ),
      ),
      h('div', { class: 'actions' }, testButton),
      testResult,
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
    card(tr('E-mail', 'E-mail'), emailForm),
    card(tr('Powiadomienie (webhook)', 'Notification (webhook)'), webhookForm),
  )
}
