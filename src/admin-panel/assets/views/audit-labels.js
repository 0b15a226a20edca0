// The audit log's words: every recorded action and object type in Polish and English, and an
// entry's object as an operator names it ("Import pliku ceny.csv", "plik z dnia 20.11.2026") rather
// than by its stored id (a job's hex id, an ISO date). No DOM here, so a unit test can read it.
import { tr } from '../i18n.js'

/**
 * Every action the service records, by its code: [Polish, English]. A unit test reads the code for the
 * actions it records (recordAudit, recordAnonymousRefusal) and asks each for a label here.
 */
export const ACTIONS = {
  'session.login': ['Logowanie do panelu', 'Panel sign-in'],
  'session.logout': ['Wylogowanie', 'Sign-out'],
  'user.create': ['Dodanie użytkownika', 'User added'],
  'user.role': ['Zmiana roli', 'Role changed'],
  'user.update': ['Zmiana danych użytkownika', 'User data changed'],
  'user.scope': ['Zmiana zakresu użytkownika', 'User scope changed'],
  'user.disable': ['Wyłączenie konta', 'Account disabled'],
  'user.enable': ['Włączenie konta', 'Account enabled'],
  'user.password_set': ['Nowe hasło logowania', 'New login password'],
  'app_password.create': ['Utworzenie hasła aplikacji', 'Application password created'],
  'app_password.revoke': ['Unieważnienie hasła aplikacji', 'Application password revoked'],
  'publication.publish': ['Publikacja pliku dnia', 'Day’s file publication'],
  'publication.settings': ['Zmiana ustawień publikacji', 'Publication settings changed'],
  'developer.create': ['Dodanie dewelopera', 'Developer added'],
  'developer.update': ['Zmiana danych dewelopera', 'Developer data changed'],
  'investment.location': ['Zmiana lokalizacji inwestycji', 'Investment location changed'],
  'import.preview': ['Podgląd importu ofert', 'Offer import preview'],
  'import.execute': ['Import ofert', 'Offer import'],
  'import.recovered': ['Przywrócenie przerwanego importu', 'Interrupted import recovered'],
  'report_import.preview': ['Sprawdzenie raportu', 'Report checked'],
  'report_import.confirm': ['Publikacja raportu', 'Report published'],
  'webhook.execute': ['Zdarzenie z CRM (webhook)', 'CRM event (webhook)'],
  'webhook_secret.view': ['Wyświetlenie klucza webhooka', 'Webhook key viewed'],
  'tenant.create': ['Utworzenie firmy na platformie', 'Company created on the platform'],
  'tenant.import': ['Przeniesienie firmy z eksportu', 'Company imported from an export'],
  'tenant.update': ['Zmiana danych firmy na platformie', 'Company changed on the platform'],
  'tenant.suspend': ['Zawieszenie firmy', 'Company suspended'],
  'tenant.resume': ['Przywrócenie firmy', 'Company resumed'],
  'tenant.export': ['Eksport danych firmy', 'Company exported'],
  'tenant.delete': ['Usunięcie firmy z platformy', 'Company deleted from the platform'],
  'webhook_secret.rotate': ['Nowy klucz webhooka', 'New webhook key'],
  'legacy_generate.key_param': ['Użycie przestarzałego parametru key', 'Deprecated key parameter used'],
  'legacy_generate.key_param_setting': ['Przełączenie parametru key', 'Key parameter switched'],
  'site_option.set': ['Zmiana opcji strony', 'Site option changed'],
  'license.set': ['Instalacja licencji', 'Licence installed'],
  'alert.raise': ['Alert dla operatorów', 'Alert to the operators'],
  'alert.deliver': ['Wysłanie alertu', 'Alert sent'],
  'editor.investment.create': ['Dodanie inwestycji', 'Investment added'],
  'editor.investment.update': ['Zmiana inwestycji', 'Investment changed'],
  'editor.investment.delete': ['Usunięcie inwestycji', 'Investment deleted'],
  'editor.offer.create': ['Dodanie oferty', 'Offer added'],
  'editor.offer.update': ['Zmiana oferty', 'Offer changed'],
  'editor.offer.archive': ['Archiwizacja oferty', 'Offer archived'],
  'editor.offer.restore': ['Przywrócenie oferty', 'Offer restored'],
  'editor.offer.component.create': ['Dodanie elementu oferty', 'Offer component added'],
  'editor.offer.component.update': ['Zmiana elementu oferty', 'Offer component changed'],
  'editor.offer.component.delete': ['Usunięcie elementu oferty', 'Offer component deleted'],
  'editor.media.upload': ['Dodanie pliku multimedialnego', 'Media file added'],
  'editor.media.update': ['Zmiana pliku multimedialnego', 'Media file changed'],
  'editor.media.delete': ['Usunięcie pliku multimedialnego', 'Media file deleted'],
  'demo.seed': ['Dane demonstracyjne', 'Demo data'],
  'alerts.settings': ['Zmiana ustawień alertów', 'Alert settings changed'],
  'mail.settings': ['Zmiana ustawień poczty i adresu panelu', 'E-mail and panel address settings changed'],
  'mail.test': ['Testowy e-mail', 'Test e-mail'],
  'offers.price_change': ['Zmiana cen wielu ofert', 'Bulk price change'],
  'public_prices.update': ['Zmiana cen na stronie WWW', 'Website prices changed'],
  'session.password_reset_request': ['Prośba o reset hasła', 'Password reset requested'],
  'session.password_reset': ['Reset hasła', 'Password reset'],
  'source.create': ['Dodanie źródła ofert', 'Offer source added'],
  'source.update': ['Zmiana źródła ofert', 'Offer source changed'],
  'source.delete': ['Usunięcie źródła ofert', 'Offer source removed'],
  'source.run': ['Przebieg źródła ofert', 'Offer source run'],
  'source.run.apply': ['Zastosowanie wstrzymanego przebiegu', 'Held run applied'],
  'source.run.reject': ['Odrzucenie wstrzymanego przebiegu', 'Held run rejected'],
  'schedule.retention': ['Nieudane sprzątanie starych danych (harmonogram)', 'Scheduled clean-up failed'],
  'schedule.alerts': ['Nieudane sprawdzenie alertów (harmonogram)', 'Scheduled alert check failed'],
  'schedule.sources': ['Nieudane wczytanie źródeł ofert (harmonogram)', 'Scheduled offer source runs failed'],
}

/** An action in words; an unknown code (an extension's) as it is. */
export const actionLabel = (action) => (ACTIONS[action] ? tr(...ACTIONS[action]) : action)

export const OBJECTS = {
  user: ['użytkownik', 'user'],
  publication: ['publikacja', 'publication'],
  developer: ['deweloper', 'developer'],
  investment: ['inwestycja', 'investment'],
  offer: ['oferta', 'offer'],
  import_job: ['zadanie importu', 'import job'],
  webhook_event: ['zdarzenie webhooka', 'webhook event'],
  site_option: ['opcja strony', 'site option'],
  setting: ['ustawienie', 'setting'],
  alert: ['alert', 'alert'],
  license: ['licencja', 'licence'],
  option: ['opcja usługi', 'service option'],
  attachment: ['plik multimedialny', 'media file'],
  alerts: ['ustawienia alertów', 'alert settings'],
  source: ['źródło ofert', 'offer source'],
  source_run: ['przebieg źródła', 'source run'],
}
export const objectLabel = (code) => (OBJECTS[code] ? tr(...OBJECTS[code]) : code)

/** The alerts' titles, as their e-mails and the handbook (docs/operator/alerty.md) name them. */
const ALERT_CAUSES = {
  publication_failed: ['Publikacja z harmonogramu nie powiodła się', 'The scheduled publication failed'],
  missed_days: ['Brak opublikowanego pliku za miniony dzień', 'A past day has no published file'],
  delivery_failed: [
    'Pliki nie są poprawnie udostępniane portalowi',
    'The files are not served correctly to the portal',
  ],
  row_drop: ['Dzisiejszy plik ma znacznie mniej wierszy', 'Today’s file has far fewer rows'],
  license_continuity: ['Licencja wygasła: tryb ciągłości', 'The licence lapsed: continuity mode'],
  publication_gaps: ['Dzisiejszy plik pokazuje ofertę niepełnie', 'Today’s file shows the offer incompletely'],
  source_held: ['Zmiany ze źródła czekają na decyzję', 'Changes from a source await a decision'],
  source_failed: ['Źródło ofert nie zostało wczytane', 'An offer source could not be read'],
  source_stale: ['Plik źródła od dawna się nie zmienił', 'A source’s file has not changed for days'],
  publication_audit: ['Audyt opublikowanych plików znalazł błędy', 'The audit of the published files found errors'],
  test: ['Alert testowy', 'Test alert'],
}
export const alertCauseLabel = (cause) => (ALERT_CAUSES[cause] ? tr(...ALERT_CAUSES[cause]) : cause)

/** 2026-11-20 (or an ISO instant's day) → 20.11.2026; anything else as it is. */
export function polishDate(value) {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(String(value))
  return match ? `${match[3]}.${match[2]}.${match[1]}` : String(value)
}

/** What an import run is, in words: by the action that ran it and the file it read. */
function importRunText(action, file) {
  if (action.startsWith('report_import.')) return tr(`Raport z pliku ${file}`, `Report from the file ${file}`)
  if (action === 'offers.price_change') return tr(`Zmiana cen (${file})`, `Price change (${file})`)
  if (action === 'source.run' || action.startsWith('source.run.'))
    return tr(`Przebieg źródła (${file})`, `Source run (${file})`)
  return tr(`Import pliku ${file}`, `Import of the file ${file}`)
}

/**
 * The entry's object in words, or null when it has none: a named file, a day, an alert's title, a
 * short id where nothing better is known (a job's 32-digit hex id as its first 8 digits).
 * `knownFiles` names the file of a job whose entry does not (another entry of the same job does).
 * @param {{ action: string, object_type: string | null, object_id: string | null, details?: Record<string, unknown> }} entry
 * @param {Map<string, string>} [knownFiles]
 */
export function objectText(entry, knownFiles = new Map()) {
  const { object_type: type, object_id: id } = entry
  const details = entry.details ?? {}
  if (!type) return null
  const file =
    typeof details.file === 'string' && details.file ? details.file : (knownFiles.get(String(id ?? '')) ?? null)
  const name = typeof details.name === 'string' && details.name ? details.name : null
  switch (type) {
    case 'import_job':
      if (file) return importRunText(entry.action, file)
      return tr(`Zadanie importu nr ${shortId(id)}`, `Import job no. ${shortId(id)}`)
    case 'publication':
      return id ? tr(`Plik z dnia ${polishDate(id)}`, `File of ${polishDate(id)}`) : objectLabel(type)
    case 'alert':
      return typeof details.cause === 'string'
        ? tr(`Alert nr ${id}: ${alertCauseLabel(details.cause)}`, `Alert no. ${id}: ${alertCauseLabel(details.cause)}`)
        : tr(`Alert nr ${id}`, `Alert no. ${id}`)
    case 'option':
    case 'setting':
      // the service's own options (the webhook key, the key parameter): the event already names which
      return objectLabel(type)
    case 'webhook_event':
      return tr(`Zdarzenie z CRM ${shortId(id)}`, `CRM event ${shortId(id)}`)
    default: {
      const label = objectLabel(type)
      const what =
        name ??
        (typeof details.login === 'string' ? details.login : null) ??
        (typeof details.title === 'string' ? details.title : null)
      if (what) return `${label} ${what}`
      if (!id) return label
      return /^\d+$/.test(id) ? `${label} nr ${id}` : `${label} ${shortId(id)}`
    }
  }
}

/** A long generated id (a 32-digit job id, an idempotency key) by its beginning; any other id whole. */
function shortId(id) {
  const text = String(id ?? '')
  return text.length > 12 && /^[0-9a-f-]+$/i.test(text) ? `${text.slice(0, 8)}…` : text
}

/** Details' keys in words (the others are shown by their key). */
const DETAIL_KEYS = {
  file: ['Plik', 'File'],
  mode: ['Tryb', 'Mode'],
  trigger: ['Uruchomienie', 'Started by'],
  reason: ['Powód', 'Reason'],
  cause: ['Przyczyna', 'Cause'],
  day: ['Dzień', 'Day'],
  date: ['Dzień', 'Day'],
  severity: ['Waga', 'Severity'],
  channels: ['Kanały', 'Channels'],
  issues: ['Problemy', 'Issues'],
  count: ['Liczba', 'Count'],
  ip: ['Adres IP', 'IP address'],
  address: ['Adres', 'Address'],
  window_from: ['Od', 'From'],
  window_until: ['Do', 'Until'],
  login: ['Login', 'Login'],
  name: ['Nazwa', 'Name'],
  title: ['Tytuł', 'Title'],
  role: ['Rola', 'Role'],
  fields: ['Zmienione pola', 'Changed fields'],
  create: ['Nowe', 'Created'],
  update: ['Zmienione', 'Updated'],
  unchanged: ['Bez zmian', 'Unchanged'],
  archive: ['Zarchiwizowane', 'Archived'],
  errors: ['Błędy', 'Errors'],
  rows: ['Wiersze', 'Rows'],
  valid_rows: ['Poprawne wiersze', 'Valid rows'],
  records: ['Wiersze', 'Rows'],
  record_count: ['Wiersze', 'Rows'],
  source_id: ['Źródło', 'Source'],
  run_id: ['Przebieg', 'Run'],
  valid_until: ['Ważna do', 'Valid until'],
  valid_from: ['Obowiązuje od', 'Valid from'],
  percent: ['Procent', 'Percent'],
  sessions_ended: ['Zakończone sesje', 'Sessions ended'],
  developer_id: ['Deweloper', 'Developer'],
  url: ['Adres', 'Address'],
}
export const detailKeyLabel = (key) => (DETAIL_KEYS[key] ? tr(...DETAIL_KEYS[key]) : key)

const IMPORT_MODES = {
  patch: ['tylko zmiany', 'changes only'],
  snapshot: ['pełny stan inwestycji', 'full state of the investments'],
}
/** An import's mode in words (as the import view says it). */
export const importModeLabel = (mode) => (IMPORT_MODES[mode] ? tr(...IMPORT_MODES[mode]) : mode)

/** The file of each import job that an entry names, so that the job's other entries are named by it too. */
export function filesOfJobs(entries) {
  const files = new Map()
  for (const entry of entries)
    if (entry.object_type === 'import_job' && typeof entry.details?.file === 'string' && entry.details.file)
      files.set(String(entry.object_id), entry.details.file)
  return files
}
