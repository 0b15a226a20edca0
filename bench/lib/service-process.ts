/*
 * The service as it runs in production, in a child process: `dist/main.js` (what `dg serve` runs:
 * the app, its schedules and its signal handling), built from src/ first, configured by the
 * environment only (BENCH_FROM_SOURCE=1: src/main.ts through tsx). Its log lines (JSON, stdout and stderr) are appended to a file, so that a
 * script can read them afterwards (for secrets that must never be there). Port 0: the address is
 * read from the "service listening" line.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'

export interface ServiceProcess {
  label: string
  child: ChildProcess
  pid: number
  /** `http://127.0.0.1:<port>` */
  origin: string
  logFile: string
  exited: Promise<number | null>
}

const fromSource = ['1', 'true', 'yes', 'on'].includes((process.env.BENCH_FROM_SOURCE ?? '').toLowerCase())
let built = false
/** Brings dist/ up to date with src/ once per run (tsc -b is incremental: seconds when it is). */
export function buildOnce(): void {
  if (built || fromSource) return
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], { stdio: 'inherit' })
  built = true
}

export async function startService(
  label: string,
  env: NodeJS.ProcessEnv,
  logFile: string,
  startTimeoutMs = 120_000,
): Promise<ServiceProcess> {
  buildOnce()
  const log = fs.createWriteStream(logFile, { flags: 'a' })
  // BENCH_NODE_ARGS: extra Node flags for the service (`--cpu-prof --cpu-prof-dir=prof`, say)
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)
  // the built service, as production runs it (`npm start`); BENCH_FROM_SOURCE=1 runs src/ through
  // tsx instead, whose loader also transpiles in every worker thread a large import starts
  const entry = fromSource ? ['--import', 'tsx', 'src/main.ts'] : ['dist/main.js']
  const child = spawn(process.execPath, [...nodeArgs, ...entry], {
    env: { ...env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  let seen = ''
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${label} did not start within ${startTimeoutMs} ms`)),
      startTimeoutMs,
    )
    const onData = (chunk: Buffer) => {
      log.write(chunk)
      if (seen.length < 1_000_000) {
        seen += chunk.toString('utf8')
        const match = /"url":"(http:\/\/[^/"]+)\//.exec(seen)
        if (match?.[1]) {
          clearTimeout(timer)
          seen = ''
          resolve(match[1])
        }
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`${label} exited with ${code} before listening; see ${logFile}`))
    })
  })
  void exited.then(() => log.end())
  return { label, child, pid: child.pid ?? 0, origin, logFile, exited }
}

/** SIGTERM (graceful shutdown), then SIGKILL after `graceMs`. Returns the exit code (null when killed). */
export async function stopService(service: ServiceProcess, graceMs = 45_000): Promise<number | null> {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return service.child.exitCode
  service.child.kill('SIGTERM')
  const timer = setTimeout(() => service.child.kill('SIGKILL'), graceMs)
  const code = await service.exited
  clearTimeout(timer)
  return code
}

export function killService(service: ServiceProcess): Promise<number | null> {
  service.child.kill('SIGKILL')
  return service.exited
}

/**
 * Resident set size of a process in MiB, from /proc (NaN when it is gone): all of it (`VmRSS`), or
 * only its anonymous memory (`RssAnon`: heaps, stacks, what the allocator keeps), without the pages
 * of mapped files (`RssFile`: shared libraries, and SQLite's memory map of the database file, which
 * grows with the file up to the configured map size and which the kernel may reclaim).
 */
export function rssMib(pid: number, part: 'VmRSS' | 'RssAnon' | 'RssFile' = 'VmRSS'): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
    const match = new RegExp(`^${part}:\\s+(\\d+) kB`, 'm').exec(status)
    return match ? Number(match[1]) / 1024 : NaN
  } catch {
    return NaN
  }
}

/** Open descriptors of a process whose target starts with `prefix` (the SQLite files: db, -wal, -shm). */
export function openFilesUnder(pid: number, prefix: string): number {
  let count = 0
  try {
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(prefix)) count++
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return NaN
  }
  return count
}
