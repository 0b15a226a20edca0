/*
 * Vitest global set-up: every storage suite runs on SQLite and PostgreSQL (`npm test` and CI
 * alike). Without DG_TEST_DATABASE_URL the local server of the README is used, and started with
 * the machine's pg_ctlcluster when it is not running; `DG_TEST_DATABASE_URL=none` runs SQLite only.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test'

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname || '127.0.0.1', port: Number(port || 5432) })
    socket.setTimeout(1000)
    socket.once('connect', () => (socket.destroy(), resolve(true)))
    socket.once('error', () => resolve(false))
    socket.once('timeout', () => (socket.destroy(), resolve(false)))
  })
}

function startLocalCluster(): void {
  const versions = fs.existsSync('/etc/postgresql') ? fs.readdirSync('/etc/postgresql') : []
  const version = versions[0]
  if (version === undefined) return
  try {
    execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], { stdio: 'inherit' })
  } catch {
    // reported below as unreachable
  }
}

export default async function setup(): Promise<void> {
  const given = process.env.DG_TEST_DATABASE_URL
  if (given === 'none' || given === '') {
    process.env.DG_TEST_DATABASE_URL = ''
    return
  }
  const url = given ?? DEFAULT_URL
  if (!(await reachable(url))) {
    if (given === undefined) startLocalCluster()
    for (let i = 0; i < 30 && !(await reachable(url)); i++) await new Promise((r) => setTimeout(r, 1000))
    if (!(await reachable(url)))
      throw new Error(
        `PostgreSQL is not reachable at ${url}: start it, point DG_TEST_DATABASE_URL at another server, ` +
          'or run the SQLite half only with DG_TEST_DATABASE_URL=none.',
      )
  }
  process.env.DG_TEST_DATABASE_URL = url
}
