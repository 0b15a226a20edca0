/*
 * Server side of `npm run bench:embed`, in its own process so that the load generator does not
 * share its event loop. Serves the service on PORT and, on BARE_PORT, a bare Fastify route that
 * returns the bytes of the public price answer (the ceiling).
 */
import fs from 'node:fs'

import Fastify from 'fastify'

import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'

const config = loadConfig()
const app = await buildApp({ config })
await app.listen({ host: '127.0.0.1', port: config.port })

const answerBytes = fs.readFileSync(process.env.BARE_BODY_FILE ?? '')
const bare = Fastify({ logger: false })
bare.get('/bare', (_request, reply) => reply.type('application/json; charset=utf-8').send(answerBytes))
await bare.listen({ host: '127.0.0.1', port: Number(process.env.BARE_PORT) })
process.stdout.write('ready\n')
