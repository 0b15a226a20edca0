/*
 * Graceful shutdown of the real server process (src/main.ts startServer, run by
 * test/host/fixtures/serve-for-shutdown.ts): on SIGTERM it stops accepting connections at once,
 * answers the request under way, waits for the running background job, leaves no lock and no
 * service marker behind and exits 0; when DG_SHUTDOWN_TIMEOUT_SECONDS runs out first, it releases
 * the job's lock itself and exits 1. The steps are steered through the child's stdin, so nothing
 * here depends on timing.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

import { expect, it } from 'vitest'

import { SERVICE_MARKER_DIR } from '../../src/host/service-marker.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SERVER_SCRIPT = fileURLToPath(new URL('./fixtures/serve-for-shutdown.ts', import.meta.url))

interface Child {
  process: ChildProcess
  port: number
  lines: string[]
  exited: Promise<number | null>
  /** Resolves when the child has printed `line` (now or earlier). */
  printed(line: string): Promise<void>
  send(line: string): void
}

async function startChild(env: TestEnv, extraEnv: Record<string, string> = {}): Promise<Child> {
  const { connection } = env.database
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_SCRIPT], {
    cwd: ROOT,
    env: {
      ...process.env,
      DG_DATA_DIR: env.database.dataDir,
      DG_LOG_LEVEL: 'info',
      ...(connection.databaseUrl
        ? { DATABASE_URL: connection.databaseUrl, PGOPTIONS: `-c search_path=${connection.pgSchema}` }
        : { DATABASE_URL: '' }),
      ...extraEnv,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  const waiters: Array<{ line: string; resolve: () => void }> = []
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    lines.push(line)
    for (const waiter of waiters.filter((w) => w.line === line)) waiter.resolve()
  })
  const printed = (line: string) =>
    lines.includes(line)
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          waiters.push({ line, resolve })
          void exited.then((code) => reject(new Error(`child exited (${code}) before "${line}"; stderr: ${stderr}`)))
        })
  const portLine = await new Promise<string>((resolve, reject) => {
    const check = setInterval(() => {
      const found = lines.find((l) => l.startsWith('port '))
      if (found) {
        clearInterval(check)
        resolve(found)
      }
    }, 20)
    void exited.then((code) => {
      clearInterval(check)
      reject(new Error(`child exited (${code}); stderr: ${stderr}`))
    })
  })
  return {
    process: child,
    port: Number(portLine.slice(5)),
    lines,
    exited,
    printed,
    send: (line) => child.stdin?.write(`${line}\n`),
  }
}

/** Whether a new TCP connection to the port is refused (tried until it is, at most 10 s). */
async function refusesConnections(port: number): Promise<boolean> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve(false)
      })
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'))
    })
    if (refused) return true
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return false
}

const logMessages = (child: Child) =>
  child.lines.flatMap((line) => {
    try {
      return [(JSON.parse(line) as { msg: string }).msg]
    } catch {
      return []
    }
  })

describeEachDatabase('graceful shutdown of the server process', (getEnv) => {
  it('on SIGTERM refuses new connections, answers the request under way, waits for the job, exits 0', async () => {
    const env = getEnv()
    const child = await startChild(env)
    try {
      const base = `http://127.0.0.1:${child.port}`
      let slowSettled = false
      const slow = fetch(`${base}/test/slow`).finally(() => (slowSettled = true))
      await child.printed('slow-started')
      const job = await fetch(`${base}/test/job`, { method: 'POST' })
      expect(job.status).toBe(202)
      await child.printed('job-started')

      child.process.kill('SIGTERM')
      expect(await refusesConnections(child.port)).toBe(true)
      expect(slowSettled).toBe(false)

      child.send('release-request')
      const answer = await slow
      expect(answer.status).toBe(200)
      expect(await answer.json()).toEqual({ done: true })
      // the request is answered, the job is not finished: the process is still there
      expect(child.process.exitCode).toBe(null)

      child.send('release-job')
      expect(await child.exited).toBe(0)
      expect(child.lines).toContain('job-finished')
      expect(logMessages(child)).toEqual(
        expect.arrayContaining(['shutting down: no new connections; finishing requests and jobs', 'stopped']),
      )
      expect(await env.ctx.db.selectFrom('locks').selectAll().execute()).toEqual([])
      expect(fs.readdirSync(path.join(env.database.dataDir, SERVICE_MARKER_DIR))).toEqual([])
    } finally {
      child.process.kill('SIGKILL')
    }
  })

  it('gives up after DG_SHUTDOWN_TIMEOUT_SECONDS: releases the job’s lock and exits 1', async () => {
    const env = getEnv()
    const child = await startChild(env, { DG_SHUTDOWN_TIMEOUT_SECONDS: '1' })
    try {
      const job = await fetch(`http://127.0.0.1:${child.port}/test/job`, { method: 'POST' })
      expect(job.status).toBe(202)
      await child.printed('job-started')
      const jobLock = () => env.ctx.db.selectFrom('locks').select('owner').where('name', '=', 'test-job').execute()
      expect(await jobLock()).toEqual([{ owner: 'test-job-owner' }])

      child.process.kill('SIGTERM')
      expect(await child.exited).toBe(1)
      expect(child.lines).not.toContain('job-finished')
      expect(logMessages(child)).toEqual(
        expect.arrayContaining([
          'shutdown timed out: open connections are closed and unfinished jobs left to roll back',
          'locks released at shutdown',
        ]),
      )
      expect(await env.ctx.db.selectFrom('locks').selectAll().execute()).toEqual([])
    } finally {
      child.process.kill('SIGKILL')
    }
  })
})
