// Skrzynka nadawcza (outbox): in a trial (outside production, no SMTP server) the service keeps the
// e-mails it would have sent, so that a password reset can be tried without a mail server. GET
// {base}/mail/outbox, newest first, the latest hundred; the links in an e-mail open as in a mail
// program.
import { formatWhen, h } from '../dom.js'
import { tr } from '../i18n.js'
import { alertBox, card } from '../ui.js'
import { helpLink } from './help-links.js'

const LINK = /(https?:\/\/[^\s<>"]+)/g

/** The e-mail's plain text with its http(s) addresses as links. */
function bodyWithLinks(text) {
  return h(
    'pre',
    { class: 'outbox-body' },
    text
      .split(LINK)
      .map((part, index) => (index % 2 === 1 ? h('a', { href: part, rel: 'noopener noreferrer' }, part) : part)),
  )
}

function emailCard(email) {
  return h(
    'article',
    { class: 'card outbox-email', dataset: { id: String(email.id) } },
    h('h2', { class: 'outbox-subject' }, email.subject),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, tr('Do', 'To')),
      h('dd', { class: 'outbox-to' }, email.to.join(', ')),
      h('dt', {}, tr('Od', 'From')),
      h('dd', {}, email.from),
      h('dt', {}, tr('Data', 'Date')),
      h('dd', {}, formatWhen(email.created_at, { seconds: true })),
    ),
    bodyWithLinks(email.body),
  )
}

export async function renderOutbox(root, { api }) {
  const { body } = await api.get('/mail/outbox')
  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, tr('Skrzynka nadawcza', 'Outbox')), helpLink('skrzynka-nadawcza')),
    card(
      null,
      body.active
        ? alertBox(
            'info',
            tr(
              'Tryb próbny: usługa nie ma serwera poczty, więc e-maile, które by wysłała, pokazuje tutaj.',
              'Trial mode: the service has no mail server, so the e-mails it would have sent are shown here.',
            ),
            h(
              'p',
              {},
              tr(
                `Widać ostatnie ${body.kept} wiadomości, najnowsze na górze. Serwer poczty ustawisz w `,
                `The latest ${body.kept} messages are shown, newest first. Set the mail server under `,
              ),
              h('a', { href: '#/ustawienia/poczta' }, tr('Ustawienia → Poczta', 'Settings → E-mail')),
              '.',
            ),
          )
        : alertBox(
            'info',
            tr(
              'E-maile wysyła teraz serwer poczty; tutaj zostały tylko te z trybu próbnego.',
              'E-mails are now sent by the mail server; only those of the trial mode are left here.',
            ),
          ),
    ),
    body.emails.length === 0
      ? h(
          'p',
          { class: 'hint', id: 'outbox-empty' },
          tr(
            'Brak wiadomości. Wyślij e-mail testowy w Ustawieniach albo poproś o nowe hasło na stronie logowania.',
            'No messages. Send a test e-mail under Settings, or ask for a new password on the sign-in page.',
          ),
        )
      : h('div', { class: 'stack', id: 'outbox-list' }, body.emails.map(emailCard)),
  )
}
