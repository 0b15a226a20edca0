// What the operator reads for each stable error code of the API (contract section 7). The panel
// branches on the code, never on the server's message; the message and the code are shown beneath
// as the technical detail.
import { language } from './i18n.js'

const MESSAGES = {
  network_error: 'Brak połączenia z serwerem. Sprawdź, czy usługa działa, i spróbuj ponownie.',
  incorrect_password: 'Nieznany login lub błędne hasło.',
  invalid_username: 'Nieznany login lub błędne hasło.',
  rest_not_logged_in: 'Sesja wygasła. Zaloguj się ponownie.',
  rest_forbidden: 'Twoje konto nie ma uprawnień do tej operacji (wymagane: administrator, manage_options).',
  rest_cookie_invalid_nonce: 'Token sesji (nonce) wygasł. Odśwież stronę i spróbuj ponownie.',
  rest_https_required: 'Panel działa tylko przez HTTPS.',
  rest_invalid_param: 'Nieprawidłowe dane w formularzu.',
  rest_missing_callback_param: 'Brakuje wymaganego pola.',
  rest_invalid_json: 'Serwer nie rozpoznał danych żądania.',
  rest_payload_too_large: 'Żądanie jest za duże.',
  rest_no_route: 'Serwer nie zna tej operacji (czy wersja usługi jest aktualna?).',
  internal_error: 'Błąd serwera. Szczegóły zapisano w logu usługi.',
  database_unavailable: 'Baza danych jest chwilowo niedostępna. Spróbuj za chwilę.',
  pro_feature_required: 'Ta funkcja wymaga aktywnej licencji PRO z uprawnieniem „{feature}”.',
  publication_in_progress: 'Trwa inna publikacja (harmonogram, API lub import raportu). Spróbuj za chwilę.',
  publication_failed: 'Publikacja nie została wykonana. Poprzednia wersja plików jest nadal udostępniana bez zmian.',
  preflight_failed: 'Kontrola wykazała problemy blokujące publikację.',
  invalid_date: 'Nieprawidłowa data (wymagany format RRRR-MM-DD i istniejący dzień).',
  webhook_secret_missing: 'Klucz webhooka jeszcze nie istnieje. Wygeneruj go przyciskiem „Wygeneruj nowy klucz”.',
  import_invalid: 'Plik zawiera błędy. Nic nie zostało zapisane; popraw plik i wczytaj go ponownie.',
  invalid_mapping: 'Nieprawidłowe mapowanie kolumn.',
  invalid_mode: 'Nieznany tryb importu.',
  invalid_upload: 'Nie wybrano pliku.',
  file_too_large: 'Plik jest za duży.',
  import_pending: 'Trwa inny import. Spróbuj ponownie za kilka sekund.',
  import_conflict: 'Katalog zmienił się od podglądu albo zadanie zostało już wykonane. Wczytaj plik ponownie.',
  import_recovery_required: 'Nie można potwierdzić wyniku poprzedniego wykonania. Sprawdź status zadania.',
  import_not_found: 'Zadanie importu nie istnieje albo wygasło (podgląd jest ważny 24 godziny).',
  archiving_confirmation_required: 'Import w trybie snapshot archiwizuje oferty: potwierdź archiwizację.',
  invalid_job_id: 'Nieprawidłowy identyfikator zadania.',
  invalid_idempotency_key: 'Nieprawidłowy klucz idempotencji.',
  import_failed: 'Import nie powiódł się i został wycofany w całości; można go wykonać ponownie.',
  validation_failed: 'Nic nie zapisano: popraw pola oznaczone na czerwono.',
  edit_conflict: 'Ktoś zmienił te dane w międzyczasie; nic nie zapisano.',
  precondition_required: 'Brak wersji edytowanych danych; wczytaj je ponownie.',
  offer_not_found: 'Ta oferta nie istnieje (mogła zostać usunięta).',
  investment_not_found: 'Ta inwestycja nie istnieje (mogła zostać usunięta).',
  investment_has_offers: 'Nie można usunąć inwestycji, która ma oferty (także zarchiwizowane).',
  rest_post_invalid_page_number: 'Nie ma już tej strony wyników; wróć do pierwszej.',
}

/** English for the panel in English; a code without one shows the server's English message. */
const MESSAGES_EN = {
  network_error: 'The server cannot be reached. Check that the service runs and try again.',
  incorrect_password: 'Unknown login or wrong password.',
  invalid_username: 'Unknown login or wrong password.',
  rest_not_logged_in: 'The session has ended. Log in again.',
  rest_forbidden: 'Your account may not do this (an administrator, manage_options, is needed).',
  rest_cookie_invalid_nonce: 'The session token (nonce) has expired. Reload the page and try again.',
  rest_invalid_param: 'The form holds invalid data.',
  internal_error: 'Server error. The details are in the service log.',
  database_unavailable: 'The database is unavailable for a moment. Try again shortly.',
  validation_failed: 'Nothing was saved: correct the fields marked in red.',
  edit_conflict: 'Someone changed this data meanwhile; nothing was saved.',
  precondition_required: 'The version of the data edited is missing; load it again.',
  offer_not_found: 'This offer does not exist (it may have been deleted).',
  investment_not_found: 'This investment does not exist (it may have been deleted).',
  investment_has_offers: 'An investment with offers (archived ones included) cannot be deleted.',
  rest_post_invalid_page_number: 'This page of results no longer exists; go back to the first.',
}

function englishText(code, status, body) {
  if (MESSAGES_EN[code]) return MESSAGES_EN[code]
  if (typeof body?.message_en === 'string') return body.message_en
  if (status === 401) return MESSAGES_EN.rest_not_logged_in
  if (status === 403) return MESSAGES_EN.rest_forbidden
  if (status === 429) return 'Too many requests. Wait a moment.'
  if (status >= 500) return MESSAGES_EN.internal_error
  return typeof body?.message === 'string' ? body.message : 'The operation failed.'
}

/**
 * @param {unknown} error an ApiError or anything thrown
 * @returns {{ text: string, code: string, detail: string }}
 */
export function describeError(error) {
  const code = error?.code ?? 'unknown'
  const status = error?.status ?? 0
  let text = language() === 'en' ? englishText(code, status, error?.body) : MESSAGES[code]
  if (text && error?.body?.feature) text = text.replace('{feature}', error.body.feature)
  if (!text) {
    if (status === 401) text = MESSAGES.rest_not_logged_in
    else if (status === 403) text = MESSAGES.rest_forbidden
    else if (status === 429) text = 'Za dużo żądań. Odczekaj chwilę.'
    else if (status >= 500) text = MESSAGES.internal_error
    else text = 'Operacja nie powiodła się.'
  }
  const params = error?.body?.data?.params
  const paramText =
    params && typeof params === 'object'
      ? Object.values(params)
          .filter((v) => typeof v === 'string')
          .join(' ')
      : ''
  const serverMessage =
    typeof error?.body?.message === 'string'
      ? error.body.message
      : code === 'network_error'
        ? (error?.message ?? '')
        : ''
  const detail = [status ? `HTTP ${status}` : '', code, paramText || serverMessage].filter(Boolean).join(' · ')
  return { text, code, detail }
}

export const TRIGGER_LABELS = {
  api: 'API / panel',
  schedule: 'harmonogram',
  report_import: 'import raportu',
  legacy_generate: 'legacy generate',
}

export const LICENSE_LABELS = {
  active: 'aktywna',
  expired: 'wygasła',
  suspended: 'zawieszona',
  inactive: 'brak licencji',
}

export const JOB_STATUS_LABELS = {
  previewed: 'podgląd gotowy',
  invalid: 'plik z błędami',
  running: 'w trakcie wykonywania',
  completed: 'zakończony',
  failed: 'nieudany (wycofany)',
  stale: 'nieaktualny (katalog się zmienił)',
  recovery_required: 'wymaga sprawdzenia',
  expired: 'wygasł',
  validated: 'raport sprawdzony',
}

export const ACTION_LABELS = {
  create: 'nowa',
  update: 'zmiana',
  unchanged: 'bez zmian',
  archive: 'archiwizacja',
}
