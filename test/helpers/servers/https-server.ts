/*
 * Serves a built app over https on a random local port with the test-only certificate in
 * test/fixtures/tls, and makes this test process trust that certificate for outgoing requests
 * through https.globalAgent (what the preflight's delivery check uses). The app's own routing
 * handles the requests, exactly as when it listens itself.
 */
import fs from 'node:fs'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import path from 'node:path'

import type { FastifyInstance } from 'fastify'

const TLS_DIR = path.join(import.meta.dirname, '..', '..', 'fixtures', 'tls')

export interface HttpsTestServer {
  /** e.g. https://127.0.0.1:43123 */
  url: string
  close(): Promise<void>
}

export async function serveOverHttps(app: FastifyInstance): Promise<HttpsTestServer> {
  const cert = fs.readFileSync(path.join(TLS_DIR, 'localhost-cert.pem'))
  const key = fs.readFileSync(path.join(TLS_DIR, 'localhost-key.pem'))
  https.globalAgent.options.ca = [cert]
  const server = https.createServer({ cert, key }, (request, response) => app.routing(request, response))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `https://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        https.globalAgent.destroy()
        delete https.globalAgent.options.ca
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
