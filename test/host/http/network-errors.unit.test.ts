/*
 * Network failures reach an operator as a Polish (and English) sentence with a stable code, from
 * real failures of Node's clients: a name that does not resolve, a closed port, a self-signed
 * certificate, a connection cut by the server, a deadline; and from the texts stored earlier
 * (a portal check's summary, an alert channel's last error).
 */
import { once } from 'node:events'
import fs from 'node:fs'
import https from 'node:https'
import net from 'node:net'
import path from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { explainNetworkError } from '../../../src/host/http/network-errors.js'
import { verifyPortal } from '../../../src/publication/delivery/portal-check.js'

const TLS_DIR = path.join(import.meta.dirname, '..', '..', 'fixtures', 'tls')

const failureOf = async (url: string, init: RequestInit = {}): Promise<unknown> => {
  try {
    await fetch(url, init)
  } catch (error) {
    return error
  }
  throw new Error(`${url} answered`)
}

describe('explainNetworkError', () => {
  let closedPort: number
  let resetting: net.Server
  let selfSigned: https.Server

  beforeAll(async () => {
    const probe = net.createServer().listen(0, '127.0.0.1')
    await once(probe, 'listening')
    closedPort = (probe.address() as net.AddressInfo).port
    probe.close()
    resetting = net.createServer((socket) => socket.resetAndDestroy()).listen(0, '127.0.0.1')
    await once(resetting, 'listening')
    // the test-only certificate, which this process's fetch does not trust
    const cert = fs.readFileSync(path.join(TLS_DIR, 'localhost-cert.pem'))
    const key = fs.readFileSync(path.join(TLS_DIR, 'localhost-key.pem'))
    selfSigned = https.createServer({ key, cert }, (_req, res) => res.end('ok'))
    selfSigned.listen(0, '127.0.0.1')
    await once(selfSigned, 'listening')
  })
  afterAll(() => {
    resetting.close()
    selfSigned.close()
  })

  it('names a host that does not resolve, in Polish and English', async () => {
    const explained = explainNetworkError(await failureOf('https://no-such-host.invalid/'))
    expect(explained).toMatchObject({ code: 'network_host_not_found' })
    expect(explained?.message_pl).toContain('Nie znaleziono serwera o tej nazwie')
    expect(explained?.message_en).toContain('No server has this name')
  })

  it('names a closed port, a cut connection, an untrusted certificate and a deadline', async () => {
    expect(explainNetworkError(await failureOf(`http://127.0.0.1:${closedPort}/`))?.code).toBe(
      'network_connection_refused',
    )
    const port = (resetting.address() as net.AddressInfo).port
    expect(explainNetworkError(await failureOf(`http://127.0.0.1:${port}/`))?.code).toBe('network_connection_reset')
    const tlsPort = (selfSigned.address() as net.AddressInfo).port
    const tls = explainNetworkError(await failureOf(`https://127.0.0.1:${tlsPort}/`))
    expect(tls?.code).toBe('network_certificate')
    expect(tls?.message_pl).toContain('Certyfikat TLS')
    const slow = await failureOf(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(0) })
    expect(explainNetworkError(slow)?.code).toMatch(/network_timeout|network_connection_reset/)
  })

  it('reads the stored texts of earlier failures, and leaves an unrelated text alone', () => {
    expect(explainNetworkError('network: getaddrinfo ENOTFOUND api.dane.gov.pl')?.code).toBe('network_host_not_found')
    expect(explainNetworkError('ESOCKET connect ECONNREFUSED 127.0.0.1:9')?.code).toBe('network_connection_refused')
    expect(explainNetworkError('https://hooks.example.pl: ETIMEDOUT')?.code).toBe('network_timeout')
    expect(explainNetworkError('EHOSTUNREACH 10.1.2.3')?.code).toBe('network_unreachable')
    expect(explainNetworkError('https://example.pl answered HTTP 500')).toBeNull()
    expect(explainNetworkError('something odd', { assumeNetwork: true })?.code).toBe('network_error')
  })

  it('the dane.gov.pl check of a portal address that does not resolve explains it instead of the raw getaddrinfo', async () => {
    const { status, summary } = await verifyPortal({
      apiUrl: 'https://api.dane-gov.invalid',
      date: '2026-11-20',
      developerName: 'Dom Sp. z o.o.',
      xmlUrl: 'https://example.pl/dane-gov/dataset.xml',
      now: () => new Date('2026-11-20T10:00:00Z'),
    })
    expect(status).toBe('unreachable')
    expect(summary.error).toMatch(/ENOTFOUND|EAI_AGAIN/)
    expect(summary).toMatchObject({
      error_code: 'network_host_not_found',
      error_pl: expect.stringContaining('Nie znaleziono serwera o tej nazwie'),
      error_en: expect.stringContaining('No server has this name'),
    })
  })
})
