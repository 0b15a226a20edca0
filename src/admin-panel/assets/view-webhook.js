// The webhook key (contract 5.1.4): the secret that signs X-DG-Signature, used exactly as shown.
// It is fetched only when the operator asks to see it (each view is audited) and never kept
// anywhere but in this page's memory.
import { formatDateTime, h, replaceChildren } from './dom.js'
import { alertBox, card, confirmDialog, errorBox, toast, withBusy } from './ui.js'

const MASK = 'dgwh_' + '•'.repeat(32)

export async function renderWebhook(root, { api }) {
  const value = h('code', { id: 'webhook-secret', class: 'secret masked' }, MASK)
  const created = h('span', { id: 'webhook-secret-created' }, '—')
  const message = h('div', { 'aria-live': 'polite' })
  const showButton = h('button', { class: 'button', type: 'button', id: 'show-secret' }, 'Pokaż klucz')
  const copyButton = h(
    'button',
    { class: 'button button-quiet', type: 'button', id: 'copy-secret', disabled: true },
    'Kopiuj',
  )
  const rotateButton = h(
    'button',
    { class: 'button button-danger', type: 'button', id: 'rotate-secret' },
    'Wygeneruj nowy klucz',
  )
  let secret = null

  function reveal(stored) {
    secret = stored.secret
    value.textContent = stored.secret
    value.classList.remove('masked')
    created.textContent = formatDateTime(stored.created_at)
    copyButton.disabled = false
    showButton.textContent = 'Ukryj'
  }

  function hide() {
    secret = null
    value.textContent = MASK
    value.classList.add('masked')
    copyButton.disabled = true
    showButton.textContent = 'Pokaż klucz'
  }

  showButton.addEventListener('click', async () => {
    replaceChildren(message)
    if (secret) return hide()
    try {
      const { body } = await withBusy(showButton, 'Pobieranie…', () => api.get('/webhook-secret'))
      reveal(body)
    } catch (error) {
      replaceChildren(message, errorBox(error))
    }
  })

  copyButton.addEventListener('click', async () => {
    if (!secret) return
    try {
      await navigator.clipboard.writeText(secret)
      toast('Skopiowano klucz do schowka.')
    } catch {
      // no clipboard permission: select the text so Ctrl+C works
      getSelection().selectAllChildren(value)
      toast('Zaznaczono klucz: skopiuj go skrótem Ctrl+C.', 'info')
    }
  })

  rotateButton.addEventListener('click', async () => {
    replaceChildren(message)
    const confirmed = await confirmDialog({
      title: 'Wygenerować nowy klucz webhooka?',
      body: [
        'Obecny klucz przestanie działać natychmiast, na wszystkich instancjach: każde zdarzenie podpisane starym kluczem dostanie 401 invalid_signature.',
        'Kolejność: wstrzymaj nadawcę (CRM), poczekaj na zakończenie prób, wygeneruj klucz, wpisz go u nadawcy, wyślij zdarzenie kontrolne, wznów wysyłkę.',
      ],
      okLabel: 'Wygeneruj nowy klucz',
      danger: true,
    })
    if (!confirmed) return
    try {
      const { body } = await withBusy(rotateButton, 'Generowanie…', () => api.post('/webhook-secret/rotate'))
      reveal(body)
      replaceChildren(
        message,
        alertBox('success', 'Nowy klucz obowiązuje od teraz. Poprzedni już nie weryfikuje podpisów.'),
      )
      toast('Wygenerowano nowy klucz webhooka.')
    } catch (error) {
      replaceChildren(message, errorBox(error))
    }
  })

  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, 'Klucz webhooka')),
    card(
      null,
      h(
        'p',
        { class: 'lead' },
        'Tym kluczem nadawca (np. CRM) podpisuje zdarzenia POST /webhooks/properties: X-DG-Signature to HMAC-SHA256 z „timestamp.nonce.klucz_idempotencji.treść”. ',
        'Klucz wpisuje się u nadawcy dokładnie tak, jak go pokazano. Ten sam klucz sprawdza nagłówek X-DG-Webhook-Key starego endpointu generate.',
      ),
      h('div', { class: 'secret-box' }, value, h('div', { class: 'actions' }, showButton, copyButton)),
      h(
        'p',
        { class: 'muted' },
        'Utworzony: ',
        created,
        '. Każde wyświetlenie klucza jest zapisywane w dzienniku audytu.',
      ),
      message,
    ),
    card(
      'Rotacja klucza',
      h(
        'p',
        {},
        'Nowy klucz działa od razu, a poprzedni przestaje działać w tej samej chwili (nie ma okresu przejściowego).',
      ),
      h('div', { class: 'actions' }, rotateButton),
    ),
  )
}
