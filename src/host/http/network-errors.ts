/*
 * A failed connection, as an operator reads it. Node reports network failures as codes
 * (`getaddrinfo ENOTFOUND api.dane.gov.pl`, `connect ECONNREFUSED 10.0.0.5:587`, a certificate
 * code): this is the one place that turns them into a sentence in Polish and English with a
 * stable code, for every place such an error reaches the panel (the dane.gov.pl portal and
 * delivery checks, an offer source's fetch, an alert channel's test). The raw text stays
 * available as technical detail.
 */

export type NetworkErrorCode =
  | 'network_host_not_found'
  | 'network_connection_refused'
  | 'network_timeout'
  | 'network_connection_reset'
  | 'network_unreachable'
  | 'network_certificate'
  | 'network_error'

export interface NetworkErrorExplanation {
  code: NetworkErrorCode
  message_pl: string
  message_en: string
}

const SENTENCES: Record<NetworkErrorCode, { pl: string; en: string }> = {
  network_host_not_found: {
    pl: 'Nie znaleziono serwera o tej nazwie (DNS). Sprawdź pisownię adresu i połączenie serwera usługi z internetem.',
    en: 'No server has this name (DNS). Check the spelling of the address and the service host’s internet connection.',
  },
  network_connection_refused: {
    pl: 'Serwer odrzucił połączenie: pod tym adresem i portem nic nie nasłuchuje. Sprawdź port i czy serwer działa.',
    en: 'The server refused the connection: nothing listens at this address and port. Check the port and that the server is running.',
  },
  network_timeout: {
    pl: 'Serwer nie odpowiedział na czas. Może być przeciążony albo zapora sieciowa blokuje połączenie; spróbuj ponownie później.',
    en: 'The server did not answer in time. It may be overloaded or a firewall blocks the connection; try again later.',
  },
  network_connection_reset: {
    pl: 'Serwer przerwał połączenie w trakcie wymiany danych. Spróbuj ponownie; gdy błąd się powtarza, sprawdź serwer lub serwer pośredniczący (proxy).',
    en: 'The server cut the connection during the exchange. Try again; if it keeps happening, check the server or the proxy in front of it.',
  },
  network_unreachable: {
    pl: 'Sieć serwera jest nieosiągalna z serwera usługi. Sprawdź połączenie sieciowe i trasę do tego adresu.',
    en: 'The server’s network cannot be reached from the service host. Check the network connection and the route to this address.',
  },
  network_certificate: {
    pl: 'Certyfikat TLS serwera jest nieważny lub niezaufany (wygasł, jest wystawiony na inną nazwę albo przez nieznany urząd). Sprawdź adres; prywatny urząd certyfikacji dodaje administrator (NODE_EXTRA_CA_CERTS).',
    en: 'The server’s TLS certificate is invalid or untrusted (expired, issued for another name or by an unknown authority). Check the address; an administrator adds a private certificate authority (NODE_EXTRA_CA_CERTS).',
  },
  network_error: {
    pl: 'Połączenie z serwerem nie powiodło się.',
    en: 'The connection to the server failed.',
  },
}

const CODES: ReadonlyArray<[RegExp, NetworkErrorCode]> = [
  [/\b(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)\b/, 'network_host_not_found'],
  [/\bECONNREFUSED\b/, 'network_connection_refused'],
  [/\b(ETIMEDOUT|ESOCKETTIMEDOUT|ETIMEOUT|UND_ERR_CONNECT_TIMEOUT|TimeoutError)\b|\btimeout\b/i, 'network_timeout'],
  [/\b(ECONNRESET|EPIPE|ECONNABORTED|UND_ERR_SOCKET)\b|socket hang up|connection was cut/i, 'network_connection_reset'],
  [/\b(ENETUNREACH|EHOSTUNREACH|EHOSTDOWN|ENETDOWN)\b/, 'network_unreachable'],
  [
    /\b(CERT_[A-Z_]+|ERR_TLS_CERT_ALTNAME_INVALID|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_SSL_[A-Z_]+)\b|certificate/i,
    'network_certificate',
  ],
]

/** The texts an error carries: its code, its message and those of its causes (fetch wraps the socket's). */
function textsOf(error: unknown, depth = 0): string[] {
  if (error === null || error === undefined || depth > 3) return []
  if (typeof error === 'string') return [error]
  if (typeof error !== 'object') return [String(error as string | number | boolean)]
  const e = error as { code?: unknown; message?: unknown; name?: unknown; cause?: unknown }
  return [
    typeof e.code === 'string' ? e.code : '',
    typeof e.name === 'string' && e.name !== 'Error' ? e.name : '',
    typeof e.message === 'string' ? e.message : '',
    ...textsOf(e.cause, depth + 1),
  ].filter(Boolean)
}

/**
 * The network failure an error (or its stored text) describes, or null when it names none. A
 * generic `network_error` is answered only when `assumeNetwork` says the error came from a
 * connection (so that an unrelated text is never dressed up as a network failure).
 */
export function explainNetworkError(
  error: unknown,
  options: { assumeNetwork?: boolean } = {},
): NetworkErrorExplanation | null {
  const text = textsOf(error).join(' ')
  let code: NetworkErrorCode | undefined
  for (const [pattern, name] of CODES)
    if (pattern.test(text)) {
      code = name
      break
    }
  if (!code) {
    if (!options.assumeNetwork) return null
    code = 'network_error'
  }
  const sentence = SENTENCES[code]
  return { code, message_pl: sentence.pl, message_en: sentence.en }
}

/** Every code explainNetworkError answers, for the error-code reference. */
export const NETWORK_ERROR_CODES = Object.keys(SENTENCES) as NetworkErrorCode[]
