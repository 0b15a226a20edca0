/*
 * Server side of `npm run bench:webhook`, in its own process so that the load generator does not
 * share its event loop. Serves the whole service on PORT (configured from the environment, like
 * `dg serve`) and, on BARE_PORT, the floor: a bare Fastify route that reads the raw body the way the
 * webhook route does and only verifies the HMAC (`verifySignedRequest`) with BENCH_SECRET, without
 * a database. GET /stats on BARE_PORT answers the service's webhook group-commit counters
 * (transactions and deliveries so far). Prints `ready <port> <bare port>` when both listen (PORT
 * and BARE_PORT may be 0), and exits cleanly on SIGTERM (so that `--cpu-prof` writes its profile).
 */
import Fastify from 'fastify'

import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { WEBHOOK_BODY_LIMIT } from '../../src/webhook/webhook-routes.js'
import { verifySignedRequest } from '../../src/webhook/verify-signature.js'
import { webhookBatchStats } from '../../src/webhook/webhook-service.js'

const config = loadConfig()
const app = await buildApp({ config })
await app.listen({ host: '127.0.0.1', port: config.port })

const secret = process.env.BENCH_SECRET
const bare = Fastify({ logger: false })
bare.removeAllContentTypeParsers()
bare.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) =>
  done(null, body),
)
bare.post('/bare', async (request, reply) => {
  const verified = verifySignedRequest({
    headers: request.headers,
    rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
    secret,
    nowSeconds: Math.floor(Date.now() / 1000),
  })
  return verified.ok
    ? reply.code(202).send({ accepted: true })
    : reply.code(401).send({ error: verified.error, message: verified.detail })
})
bare.get('/stats', async () => webhookBatchStats(app.ctx) ?? { batches: 0, items: 0, largest: 0 })
await bare.listen({ host: '127.0.0.1', port: Number(process.env.BARE_PORT ?? 0) })
const portOf = (server: typeof app.server) => {
  const address = server.address()
  return typeof address === 'object' && address !== null ? address.port : 0
}
process.stdout.write(`ready ${portOf(app.server)} ${portOf(bare.server)}\n`)

process.once('SIGTERM', () => {
  void Promise.all([app.close(), bare.close()]).finally(() => process.exit(0))
})
