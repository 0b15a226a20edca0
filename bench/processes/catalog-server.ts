/*
 * Server side of `npm run bench:catalog`, in its own process so that the load generator does not
 * share its event loop. Serves the catalog on PORT and, on BARE_PORT, a bare Fastify route that
 * returns the bytes of a typical list page (the ceiling).
 */
import fs from 'node:fs'
import { Session } from 'node:inspector/promises'

import Fastify from 'fastify'

import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'

// BENCH_CPU_PROFILE=file: a CPU profile of this server, written when the benchmark stops it
const profileFile = process.env.BENCH_CPU_PROFILE
if (profileFile) {
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
  process.once('SIGTERM', () => {
    void session.post('Profiler.stop').then(({ profile }) => {
      fs.writeFileSync(profileFile, JSON.stringify(profile))
      process.exit(0)
    })
  })
}

const config = loadConfig()
const app = await buildApp({ config })
await app.listen({ host: '127.0.0.1', port: config.port })

const pageBytes = fs.readFileSync(process.env.BARE_BODY_FILE ?? '')
const bare = Fastify({ logger: false })
bare.get('/bare', (_request, reply) => reply.type('application/json; charset=utf-8').send(pageBytes))
await bare.listen({ host: '127.0.0.1', port: Number(process.env.BARE_PORT) })
process.stdout.write('ready\n')
