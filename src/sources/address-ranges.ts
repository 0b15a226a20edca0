/*
 * Which addresses a source may be fetched from: public unicast only. The ranges are ipaddr.js's
 * (the IANA special-purpose registries, kept by its maintainers) rather than a list of our own,
 * so that a notation nobody thought of does not slip through. An IPv6 address that carries an
 * IPv4 one (mapped, compatible, SIIT, NAT64, 6to4) is judged by the IPv4 address it leads to:
 * `::ffff:7f00:1` is the loopback. Address literals in a URL are read with WHATWG URL first, which
 * already turns `127.1`, `0x7f.1`, `0177.0.0.1` and `2130706433` into `127.0.0.1`.
 */
import ipaddr from 'ipaddr.js'

export interface AddressClass {
  /** The address as judged: the embedded IPv4 address for a transition form. */
  address: string
  /** ipaddr.js's range name (`unicast` for a public address), or `nat64LocalUse`, `ipv4Compatible`. */
  range: string
  /** Public unicast: a source may be fetched from it without an allowance. */
  public: boolean
  /** The IPv6 form it was read from, when it carried an IPv4 address. */
  embeddedIn?: string
}

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function lastIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const parts = address.parts
  return new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff])
}

/** The IPv4 address an IPv6 transition form leads to, or null. */
function embeddedIPv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const parts = address.parts
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return lastIPv4(address)
    case 'rfc6052':
      // 64:ff9b::/96 carries the IPv4 address in its last 32 bits; 64:ff9b:1::/48 is local use only
      return parts[2] === 0 && parts[3] === 0 && parts[4] === 0 && parts[5] === 0 ? lastIPv4(address) : null
    case '6to4':
      return new ipaddr.IPv4([parts[1]! >> 8, parts[1]! & 0xff, parts[2]! >> 8, parts[2]! & 0xff])
    default:
      return null
  }
}

function ipv4Class(address: ipaddr.IPv4, embeddedIn?: string): AddressClass {
  const range = address.range()
  return { address: address.toString(), range, public: range === 'unicast', ...(embeddedIn ? { embeddedIn } : {}) }
}

/** The class of an IP address written in any notation ipaddr.js reads; null when it is no address. */
export function classifyAddress(literal: string): AddressClass | null {
  const text = literal.replace(/^\[(.*)\]$/, '$1')
  if (!ipaddr.isValid(text)) return null
  const address = ipaddr.parse(text)
  if (address.kind() === 'ipv4') return ipv4Class(address as ipaddr.IPv4)
  const ipv6 = address as ipaddr.IPv6
  const written = ipv6.toString()
  const range = ipv6.range()
  const embedded = embeddedIPv4(ipv6, range)
  if (embedded) return ipv4Class(embedded, written)
  if (range === 'rfc6052') return { address: written, range: 'nat64LocalUse', public: false }
  // ::a.b.c.d, the deprecated IPv4-compatible form (RFC 4291 2.5.5.1): ipaddr.js calls it unicast
  if (range === 'unicast' && ipv6.parts.slice(0, 6).every((p) => p === 0))
    return { ...ipv4Class(lastIPv4(ipv6), written), range: 'ipv4Compatible', public: false }
  return { address: written, range, public: range === 'unicast' }
}

/** Whether a source may not be fetched from this address without an allowance (anything not an address included). */
export function isPrivateAddress(address: string): boolean {
  return !(classifyAddress(address)?.public ?? false)
}

/** The host of a URL without the brackets of an IPv6 literal, lower case. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase()
}

/** An allowance entry (`host`, `host:port`, `[v6]`, `[v6]:port`, bare v6) as URL reads it; null when unreadable. */
function allowanceOf(entry: string): { host: string; port: string | null } | null {
  const text = entry.trim()
  const bracketed = ipaddr.IPv6.isValid(text) ? `[${text}]` : text
  try {
    const url = new URL(`https://${bracketed}`)
    if (url.pathname !== '/' || url.username || url.search || url.hash) return null
    return { host: bareHost(url), port: /:\d+$/.test(bracketed) ? url.port || '443' : null }
  } catch {
    return null
  }
}

/**
 * Whether an administrator allowed this URL's host to be a private address: an entry of
 * private_hosts names its host, with its port or without one. Both sides are read by URL, so
 * `127.1` and `[::ffff:127.0.0.1]` name what they are.
 */
export function privateAllowed(url: URL, privateHosts: readonly string[]): boolean {
  const host = bareHost(url)
  const port = url.port || '443'
  return privateHosts.some((entry) => {
    const allowed = allowanceOf(entry)
    return allowed !== null && allowed.host === host && (allowed.port === null || allowed.port === port)
  })
}
