// The webhook key: the secret that signs X-DG-Signature, used exactly as shown.
// It is fetched only when the operator asks to see it (each view is audited) and never kept
// anywhere but in this page's memory. Rotation follows docs/integration/webhook.md (Rotating the
// secret), whose steps the confirmation lists.
import { formatWhen, h, replaceChildren } from '../dom.js'
import { tr } from '../i18n.js'
import { alertBox, card, confirmDialog, copyButton, errorBox, technicalDetails, toast, withBusy } from '../ui.js'

const MASK = 'dgwh_' + '•'.repeat(32)

/** The steps of a rotation, in the order the operator does it. */
function rotationSteps(id) {
  return h(
    'ol',
    { class: 'steps', id },
    h('li', {}, tr('Wstrzymaj wysyłanie zdarzeń w CRM (nadawcy).', 'Pause sending events in the CRM (the sender).')),
    h('li', {}, tr('Poczekaj, aż trwające próby się zakończą.', 'Wait for the attempts under way to finish.')),
    h('li', {}, tr('Wygeneruj tutaj nowy klucz.', 'Generate the new key here.')),
    h(
      'li',
      {},
      tr(
        'Wpisz nowy klucz u nadawcy (dokładnie tak, jak go pokazano).',
        'Enter the new key at the sender (exactly as shown).',
      ),
    ),
    h(
      'li',
      {},
      tr(
        'Wyślij zdarzenie kontrolne z nowym kluczem powtórzenia (Idempotency-Key).',
        'Send a control event with a new repeat key (Idempotency-Key).',
      ),
    ),
    h('li', {}, tr('Wznów wysyłanie.', 'Resume sending.')),
    h(
      'li',
      {},
      tr('Usuń stary klucz u nadawcy i ze wszystkich notatek.', 'Delete the old key at the sender and from any notes.'),
    ),
  )
}

export async function renderWebhook(root, { api }) {
  const value = h('code', { id: 'webhook-secret', class: 'secret masked' }, MASK)
  const created = h('span', { id: 'webhook-secret-created' }, '—')
  const message = h('div', { 'aria-live': 'polite' })
  const showButton = h(
    'button',
    { class: 'button', type: 'button', id: 'show-secret' },
    tr('Pokaż klucz', 'Show the key'),
  )
  let secret = null
  const copy = copyButton(() => secret ?? '', { target: value, id: 'copy-secret' })
  copy.disabled = true
  const rotateButton = h(
    'button',
    { class: 'button button-danger', type: 'button', id: 'rotate-secret' },
    tr('Wygeneruj nowy klucz', 'Generate a new key'),
  )

  function reveal(stored) {
    secret = stored.secret
    value.textContent = stored.secret
    value.classList.remove('masked')
    created.textContent = formatWhen(stored.created_at)
    copy.disabled = false
    showButton.textContent = tr('Ukryj', 'Hide')
  }

  function hide() {
    secret = null
    value.textContent = MASK
    value.classList.add('masked')
    copy.disabled = true
    showButton.textContent = tr('Pokaż klucz', 'Show the key')
  }

  showButton.addEventListener('click', async () => {
    replaceChildren(message)
    if (secret) return hide()
    try {
      const { body } = await withBusy(showButton, tr('Pobieranie…', 'Fetching…'), () => api.get('/webhook-secret'))
      reveal(body)
    } catch (error) {
      replaceChildren(message, errorBox(error))
    }
  })

  rotateButton.addEventListener('click', async () => {
    replaceChildren(message)
    const confirmed = await confirmDialog({
      title: tr('Wygenerować nowy klucz webhooka?', 'Generate a new webhook key?'),
      body: [
        tr(
          'Obecny klucz przestanie działać natychmiast, na wszystkich instancjach: każde zdarzenie podpisane starym kluczem zostanie odrzucone (401 invalid_signature).',
          'The current key stops working at once, on every instance: each event signed with it is refused (401 invalid_signature).',
        ),
        tr('Kolejność kroków:', 'The steps, in order:'),
        rotationSteps('rotation-steps-confirm'),
      ],
      okLabel: tr('Wygeneruj nowy klucz', 'Generate a new key'),
      danger: true,
    })
    if (!confirmed) return
    try {
      const { body } = await withBusy(rotateButton, tr('Generowanie…', 'Generating…'), () =>
        api.post('/webhook-secret/rotate'),
      )
      reveal(body)
      replaceChildren(
        message,
        alertBox(
          'success',
          tr(
            'Nowy klucz obowiązuje od teraz. Poprzedni już nie weryfikuje podpisów.',
            'The new key applies from now on. The previous one no longer verifies signatures.',
          ),
          h(
            'p',
            {},
            tr(
              'Dalej: wpisz go u nadawcy, wyślij zdarzenie kontrolne i wznów wysyłanie.',
              'Next: enter it at the sender, send a control event and resume sending.',
            ),
          ),
        ),
      )
      toast(tr('Wygenerowano nowy klucz webhooka.', 'A new webhook key is generated.'))
    } catch (error) {
      replaceChildren(message, errorBox(error))
    }
  })

  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, tr('Klucz webhooka', 'Webhook key'))),
    card(
      null,
      h(
        'p',
        { class: 'lead' },
        tr(
          'Tym kluczem CRM podpisuje zdarzenia o zmianach ofert wysyłane do usługi. Klucz wpisuje się u nadawcy dokładnie tak, jak go pokazano. Ten sam klucz obsługuje też stary adres generate (nagłówek X-DG-Webhook-Key).',
          'The CRM signs the offer-change events it sends to the service with this key. Enter it at the sender exactly as shown. The same key also serves the legacy generate address (X-DG-Webhook-Key header).',
        ),
      ),
      h('div', { class: 'secret-box' }, value, h('div', { class: 'actions' }, showButton, copy)),
      h(
        'p',
        { class: 'muted' },
        tr('Utworzony: ', 'Created: '),
        created,
        tr(
          '. Każde wyświetlenie klucza jest zapisywane w dzienniku zdarzeń.',
          '. Every view of the key is recorded in the audit log.',
        ),
      ),
      technicalDetails(
        h(
          'p',
          {},
          tr(
            'Podpis X-DG-Signature to HMAC-SHA256 z „znacznik_czasu.nonce.klucz_powtórzenia.treść” (POST /webhooks/properties).',
            'The X-DG-Signature is HMAC-SHA256 of “timestamp.nonce.idempotency_key.body” (POST /webhooks/properties).',
          ),
        ),
      ),
      message,
    ),
    card(
      tr('Zmiana klucza', 'Changing the key'),
      h(
        'p',
        {},
        tr(
          'Nowy klucz działa od razu, a poprzedni przestaje działać w tej samej chwili (nie ma okresu przejściowego). Dlatego najpierw wstrzymaj nadawcę:',
          'The new key works at once and the previous one stops in the same moment (there is no transition period). So pause the sender first:',
        ),
      ),
      rotationSteps('rotation-steps'),
      h('div', { class: 'actions' }, rotateButton),
    ),
  )
}
