/*
 * The example website (examples/website) against a listening service with the demo catalog and
 * the example extension: what the website suites and the benchmark share.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

import { CatalogGateway, type GatewayOptions } from '../../../examples/website/src/catalog-gateway.js'
import { createSite } from '../../../examples/website/src/site.js'
import { setUpDemo } from '../../../src/demo/demo-setup.js'
import { startTestApp, type TestAppOptions, type TestEnv } from '../test-app.js'
import type { TestDialect } from '../databases.js'

export const EXAMPLE_EXTENSION = 'examples/extensions/website-fields/index.mjs'

export interface DemoService {
  env: TestEnv
  /** `{base_url}` of the listening service. */
  catalogUrl: string
  /** The demo catalog reader's application password. */
  password: string
  close(): Promise<void>
}

/** The service with the demo catalog and the example extension, listening on 127.0.0.1. */
export async function startDemoService(dialect: TestDialect, options: TestAppOptions = {}): Promise<DemoService> {
  const env = await startTestApp(dialect, {
    ...options,
    env: { DG_EXTENSIONS: EXAMPLE_EXTENSION, ...options.env },
  })
  // the rate limit and the licence follow the service's clock: today, as for a real website
  env.clock.set(new Date().toISOString())
  const password = (await setUpDemo(env.ctx)).reader.application_password
  const address = await env.app.listen({ host: '127.0.0.1', port: 0 })
  return {
    env,
    catalogUrl: `${address}/wp-json/dg/v2`,
    password,
    close: async () => {
      // the website's connections (and the media proxy's aborted ones) are not the subject here:
      // closed at once instead of waiting for the client to let go of them
      env.app.server.closeAllConnections()
      await env.app.close()
      await env.database.cleanup()
    },
  }
}

export interface RunningWebsite {
  url: string
  catalog: CatalogGateway
  log: Array<Record<string, unknown>>
  close(): Promise<void>
}

/** The example website in this process, on a free port, pointed at `catalogUrl`. */
export async function startExampleWebsite(
  options: Omit<GatewayOptions, 'user'> & { user?: string },
): Promise<RunningWebsite> {
  const catalog = new CatalogGateway({ user: 'website', ...options })
  const log: Array<Record<string, unknown>> = []
  const server = http.createServer(createSite({ catalog, log: (line) => void log.push(line) }))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    catalog,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
