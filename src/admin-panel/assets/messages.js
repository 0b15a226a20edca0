// What the operator reads for each stable error code of the API (docs/reference/error-codes.md), in Polish and
// English, and the words for the API's codes (triggers, statuses, channels, actions). The panel
// branches on the code, never on the server's message; the code and the server's message stay
// available beneath, as the technical detail for support.
import { language, tr } from './i18n.js'
import { entitlementLabel } from './operator/licence-gate.js'

/** code: [Polish, English]; `{feature}` and `{seconds}` are filled from the answer. */
const MESSAGES = {
  network_error: [
    'Brak połączenia z serwerem. Sprawdź, czy usługa działa, i spróbuj ponownie.',
    'The server cannot be reached. Check that the service runs and try again.',
  ],
  incorrect_password: ['Nieznany login lub błędne hasło.', 'Unknown login or wrong password.'],
  invalid_username: ['Nieznany login lub błędne hasło.', 'Unknown login or wrong password.'],
  too_many_login_attempts: [
    'Za dużo nieudanych prób logowania. Spróbuj ponownie za {seconds}\u00a0s.',
    'Too many failed sign-ins. Try again in {seconds}\u00a0s.',
  ],
  account_disabled: [
    'To konto jest wyłączone. Poproś administratora panelu o jego włączenie.',
    'This account is disabled. Ask an administrator of the panel to enable it.',
  ],
  rest_not_logged_in: ['Sesja wygasła. Zaloguj się ponownie.', 'The session has ended. Log in again.'],
  rest_forbidden: [
    'Twoje konto nie ma uprawnień do tej operacji. Jeśli jej potrzebujesz, poproś administratora panelu o odpowiednią rolę.',
    'Your account may not do this. If you need to, ask an administrator of the panel for a suitable role.',
  ],
  rest_cookie_invalid_nonce: [
    'Token sesji wygasł. Odśwież stronę i spróbuj ponownie.',
    'The session token has expired. Reload the page and try again.',
  ],
  rest_https_required: ['Panel działa tylko przez HTTPS.', 'The panel works over HTTPS only.'],
  rest_invalid_param: ['Nieprawidłowe dane w formularzu.', 'The form holds invalid data.'],
  rest_missing_callback_param: ['Brakuje wymaganego pola.', 'A required field is missing.'],
  rest_invalid_json: ['Serwer nie rozpoznał danych żądania.', 'The server could not read the request.'],
  rest_payload_too_large: ['Żądanie jest za duże.', 'The request is too large.'],
  rest_no_route: [
    'Serwer nie zna tej operacji (czy wersja usługi jest aktualna?).',
    'The server does not know this operation (is the service up to date?).',
  ],
  internal_error: [
    'Błąd serwera. Szczegóły zapisano w logu usługi.',
    'Server error. The details are in the service log.',
  ],
  database_unavailable: [
    'Baza danych jest chwilowo niedostępna. Spróbuj za chwilę.',
    'The database is unavailable for a moment. Try again shortly.',
  ],
  pro_feature_required: [
    'Licencja na to nie pozwala: potrzebna jest aktywna licencja PRO z uprawnieniem „{feature}” (Administracja › Licencja). Codzienna publikacja z harmonogramu działa także bez niej.',
    'The licence does not allow this: an active PRO licence with the entitlement “{feature}” is needed (Administration › Licence). The daily scheduled publication runs without one too.',
  ],
  alerts_not_configured: [
    'Nie ustawiono żadnego kanału alertów: zapisz e-mail albo adres powiadomień.',
    'No alert channel is set: save the e-mail or the notification address.',
  ],
  publication_in_progress: [
    'Trwa inna publikacja (harmonogram, API lub import raportu). Spróbuj za chwilę.',
    'Another publication is running (schedule, API or report import). Try again shortly.',
  ],
  publication_failed: [
    'Publikacja nie została wykonana. Poprzednia wersja plików jest nadal udostępniana bez zmian.',
    'The publication was not made. The previous version of the files is still served unchanged.',
  ],
  publication_day_closed: [
    'Ten dzień został już opublikowany; jego plik się nie zmienia.',
    'This day was already published; its file does not change.',
  ],
  publication_date_future: ['Nie można opublikować przyszłego dnia.', 'A future day cannot be published.'],
  publication_date_past: [
    'Pliku minionego dnia nie da się zbudować z dzisiejszych cen; użyj importu raportu tego dnia.',
    'A past day’s file cannot be built from today’s prices; use that day’s report import.',
  ],
  publication_not_found: ['Nie ma takiej publikacji.', 'There is no such publication.'],
  preflight_failed: [
    'Kontrola wykazała problemy blokujące publikację.',
    'The check found problems that would stop the publication.',
  ],
  invalid_date: [
    'Nieprawidłowa data (wymagany format RRRR-MM-DD i istniejący dzień).',
    'Invalid date (YYYY-MM-DD of a real day).',
  ],
  webhook_secret_missing: [
    'Klucz webhooka jeszcze nie istnieje. Wygeneruj go przyciskiem „Wygeneruj nowy klucz”.',
    'There is no webhook key yet. Generate one with “Generate a new key”.',
  ],
  import_invalid: [
    'Plik zawiera błędy. Nic nie zostało zapisane; popraw plik i wczytaj go ponownie.',
    'The file has errors. Nothing was saved; correct the file and load it again.',
  ],
  invalid_mapping: ['Nieprawidłowe przypisanie kolumn.', 'Invalid column assignment.'],
  invalid_mode: ['Nieznany tryb importu.', 'Unknown import mode.'],
  invalid_upload: ['Nie wybrano pliku.', 'No file was chosen.'],
  file_too_large: ['Plik jest za duży.', 'The file is too large.'],
  import_pending: [
    'Trwa inny import. Spróbuj ponownie za kilka sekund.',
    'Another import is running. Try again in a few seconds.',
  ],
  import_conflict: [
    'Katalog zmienił się od podglądu albo zadanie zostało już wykonane. Wczytaj plik ponownie.',
    'The catalog changed since the preview, or the job already ran. Load the file again.',
  ],
  import_recovery_required: [
    'Nie można potwierdzić wyniku poprzedniego wykonania. Sprawdź stan zadania.',
    'The outcome of the previous run cannot be confirmed. Check the job.',
  ],
  import_not_found: [
    'Zadanie importu nie istnieje albo wygasło (podgląd jest ważny 24 godziny).',
    'The import job does not exist or expired (a preview is kept 24 hours).',
  ],
  report_confirmation_required: [
    'Zaznacz potwierdzenie publikacji raportu.',
    'Tick the confirmation of the report’s publication.',
  ],
  archiving_confirmation_required: [
    'Import pełnego stanu archiwizuje oferty spoza pliku: potwierdź archiwizację.',
    'A full-state import archives the offers missing from the file: confirm the archiving.',
  ],
  invalid_job_id: ['Nieprawidłowy identyfikator zadania.', 'Invalid job id.'],
  invalid_idempotency_key: ['Nieprawidłowy klucz powtórzenia.', 'Invalid repeat key.'],
  import_failed: [
    'Import nie powiódł się i został wycofany w całości; można go wykonać ponownie.',
    'The import failed and was rolled back entirely; it can be run again.',
  ],
  validation_failed: [
    'Nic nie zapisano: popraw pola oznaczone na czerwono.',
    'Nothing was saved: correct the fields marked in red.',
  ],
  invalid_settings: [
    'Ustawienia nie zostały zapisane: popraw pola oznaczone na czerwono.',
    'The settings were not saved: correct the fields marked in red.',
  ],
  invalid_developer: [
    'Dane dewelopera nie zostały zapisane: popraw pola oznaczone na czerwono.',
    'The developer data was not saved: correct the fields marked in red.',
  ],
  invalid_location: [
    'Lokalizacja nie została zapisana: popraw pola oznaczone na czerwono.',
    'The location was not saved: correct the fields marked in red.',
  ],
  invalid_user: [
    'Użytkownik nie został zapisany: popraw pola oznaczone na czerwono.',
    'The user was not saved: correct the fields marked in red.',
  ],
  invalid_application_password: [
    'Hasło aplikacji nie zostało utworzone: popraw nazwę.',
    'The application password was not created: correct the name.',
  ],
  invalid_site_option_value: ['Wartość nie pasuje do typu opcji.', 'The value does not fit the option’s type.'],
  unknown_site_option: ['Żadne rozszerzenie nie definiuje tej opcji.', 'No extension defines this option.'],
  confirmation_required: [
    'Ta zmiana wymaga potwierdzenia (czytaj niżej).',
    'This change needs a confirmation (see below).',
  ],
  last_administrator: [
    'To jedyny aktywny administrator: najpierw nadaj rolę administratora komuś innemu.',
    'This is the only active administrator: make someone else an administrator first.',
  ],
  own_account: [
    'Nie można wyłączyć własnego konta; poproś o to innego administratora.',
    'You cannot disable your own account; ask another administrator.',
  ],
  user_not_found: ['Nie ma takiego użytkownika.', 'There is no such user.'],
  application_password_not_found: [
    'Tego hasła aplikacji już nie ma (mogło zostać unieważnione).',
    'This application password is gone (it may have been revoked).',
  ],
  developer_not_found: ['Nie ma takiego dewelopera.', 'There is no such developer.'],
  edit_conflict: [
    'Ktoś zmienił te dane w międzyczasie; nic nie zapisano.',
    'Someone changed this data meanwhile; nothing was saved.',
  ],
  precondition_required: [
    'Brak wersji edytowanych danych; wczytaj je ponownie.',
    'The version of the data edited is missing; load it again.',
  ],
  offer_not_found: [
    'Ta oferta nie istnieje (mogła zostać usunięta).',
    'This offer does not exist (it may have been deleted).',
  ],
  investment_not_found: [
    'Ta inwestycja nie istnieje (mogła zostać usunięta).',
    'This investment does not exist (it may have been deleted).',
  ],
  investment_has_offers: [
    'Nie można usunąć inwestycji, która ma oferty (także zarchiwizowane).',
    'An investment with offers (archived ones included) cannot be deleted.',
  ],
  tenant_suspended: [
    'Konto tej firmy na platformie jest zawieszone: panel i API są niedostępne, opublikowane pliki nadal są udostępniane. O wznowienie poproś operatora platformy.',
    'This company’s account on the platform is suspended: the panel and the API are unavailable, its published files are still served. Ask the platform’s operator to resume it.',
  ],
  tenant_not_found: [
    'Pod tym adresem nie ma żadnej firmy. Sprawdź adres panelu.',
    'No company is served at this address. Check the panel’s address.',
  ],
  rest_post_invalid_page_number: [
    'Nie ma już tej strony wyników; wróć do pierwszej.',
    'This page of results no longer exists; go back to the first.',
  ],
}

const fill = (text, values) => text.replace(/\{(\w+)\}/g, (whole, name) => String(values[name] ?? whole))

/**
 * @param {any} error an ApiError or anything thrown
 * @returns {{ text: string, code: string, detail: string }}
 */
export function describeError(error) {
  const code = error?.code ?? 'unknown'
  const status = error?.status ?? 0
  const body = error?.body ?? {}
  const pair = MESSAGES[code]
  let text = pair ? tr(pair[0], pair[1]) : null
  if (!text && language() === 'en' && typeof body.message_en === 'string') text = body.message_en
  if (!text) {
    if (status === 401) text = tr(...MESSAGES.rest_not_logged_in)
    else if (status === 403) text = tr(...MESSAGES.rest_forbidden)
    else if (status === 429) text = tr('Za dużo żądań. Odczekaj chwilę.', 'Too many requests. Wait a moment.')
    else if (status >= 500) text = tr(...MESSAGES.internal_error)
    else text = tr('Operacja nie powiodła się.', 'The operation failed.')
  }
  text = fill(text, {
    feature: body.feature ? entitlementLabel(body.feature) : '',
    seconds: body.data?.retry_after ?? '?',
  })
  const params = body?.data?.params
  const paramText =
    params && typeof params === 'object'
      ? Object.values(params)
          .filter((v) => typeof v === 'string')
          .join(' ')
      : ''
  const serverMessage =
    typeof body?.message === 'string' ? body.message : code === 'network_error' ? (error?.message ?? '') : ''
  const detail = [status ? `HTTP ${status}` : '', code, paramText || serverMessage].filter(Boolean).join(' · ')
  return { text, code, detail }
}

const pick = (table, code) => {
  const pair = table[code]
  return pair ? tr(pair[0], pair[1]) : (code ?? '—')
}

const TRIGGERS = {
  api: ['panel / API', 'panel / API'],
  admin: ['panel', 'panel'],
  schedule: ['harmonogram', 'schedule'],
  report_import: ['import raportu', 'report import'],
  legacy_generate: ['dawny adres generowania pliku', 'legacy file-generating address'],
  cli: ['polecenie dg', 'dg command'],
}
export const triggerLabel = (code) => pick(TRIGGERS, code)

/** Who ran something when it was not a person: the service's own parts, in words. */
const ACTORS = {
  scheduler: ['harmonogram', 'schedule'],
  cli: ['polecenie dg', 'dg command'],
  system: ['usługa', 'the service'],
  webhook: ['webhook z CRM', 'webhook from the CRM'],
}
/** A login as it is; the service's own parts in words. */
export const actorLabel = (name) => (Object.hasOwn(ACTORS, name) ? pick(ACTORS, name) : name)

/**
 * "harmonogram", "polecenie dg", "jan.kowalski (panel)": who ran a publication and how, each said
 * once (the schedule is both the actor and the way).
 */
export function runByLabel(actor, trigger) {
  if (Object.hasOwn(ACTORS, actor)) {
    const who = actorLabel(actor)
    const how = triggerLabel(trigger)
    return who === how ? who : `${who} (${how})`
  }
  return `${actor} (${triggerLabel(trigger)})`
}

const LICENSES = {
  active: ['aktywna', 'active'],
  expired: ['wygasła', 'expired'],
  suspended: ['zawieszona', 'suspended'],
  inactive: ['brak licencji', 'no licence'],
}
export const licenseLabel = (code) => pick(LICENSES, code)

const JOB_STATUSES = {
  previewing: ['wczytywanie pliku', 'reading the file'],
  previewed: ['podgląd gotowy', 'preview ready'],
  invalid: ['plik z błędami', 'file with errors'],
  running: ['w trakcie wykonywania', 'running'],
  completed: ['zakończony', 'completed'],
  failed: ['nieudany (wycofany)', 'failed (rolled back)'],
  stale: ['nieaktualny (katalog się zmienił)', 'stale (the catalog changed)'],
  recovery_required: ['wymaga sprawdzenia', 'needs checking'],
  expired: ['wygasł', 'expired'],
  validated: ['raport sprawdzony', 'report checked'],
}
export const jobStatusLabel = (code) => pick(JOB_STATUSES, code)

const ACTIONS = {
  create: ['nowa', 'new'],
  update: ['zmiana', 'change'],
  unchanged: ['bez zmian', 'unchanged'],
  archive: ['archiwizacja', 'archiving'],
}
export const importActionLabel = (code) => pick(ACTIONS, code)

const ROLES = {
  administrator: ['Administrator', 'Administrator'],
  dg_operator: ['Operator', 'Operator'],
  dg_auditor: ['Audytor', 'Auditor'],
  dg_catalog_reader: ['Odczyt katalogu przez API (strona WWW)', 'Catalog reading over the API (website)'],
}
export const roleLabel = (code) => pick(ROLES, code)
export const ROLE_CODES = Object.keys(ROLES)
