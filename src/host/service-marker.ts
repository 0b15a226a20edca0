/*
 * A serving process marks the data folder it uses with a file of its own,
 * DG_DATA_DIR/.service/<host>-<pid>.json, removed when it stops. `dg restore` refuses to replace a
 * data folder that a live service holds: on this machine a marker whose process is gone (a crash
 * or SIGKILL) is stale and ignored; a marker of another machine cannot be checked and counts as
 * live (remove it by hand once that service is surely stopped).
 */
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

export const SERVICE_MARKER_DIR = '.service'

export interface ServiceMarker {
  file: string
  host: string
  pid: number
  started_at: string
  /** Where the service listens (e.g. http://127.0.0.1:8080), when it said so. */
  address?: string | undefined
  /** False only for a process of this machine that no longer exists. */
  alive: boolean
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

/** Writes this process's marker; the function returned removes it. */
export async function markServiceRunning(dataDir: string, address?: string): Promise<() => Promise<void>> {
  const dir = path.join(dataDir, SERVICE_MARKER_DIR)
  await fs.mkdir(dir, { recursive: true })
  const file = path.join(dir, `${os.hostname()}-${process.pid}.json`)
  await fs.writeFile(
    file,
    JSON.stringify({ host: os.hostname(), pid: process.pid, started_at: new Date().toISOString(), address }),
  )
  return () => fs.rm(file, { force: true })
}

/** The markers in `dataDir`, each with whether its process may still run. */
export async function serviceMarkers(dataDir: string): Promise<ServiceMarker[]> {
  const dir = path.join(dataDir, SERVICE_MARKER_DIR)
  let names: string[]
  try {
    names = await fs.readdir(dir)
  } catch {
    return []
  }
  const markers: ServiceMarker[] = []
  for (const name of names) {
    const file = path.join(dir, name)
    try {
      const marker = JSON.parse(await fs.readFile(file, 'utf8')) as {
        host: string
        pid: number
        started_at: string
        address?: string
      }
      const alive = marker.host !== os.hostname() || processAlive(marker.pid)
      markers.push({
        file,
        host: marker.host,
        pid: marker.pid,
        started_at: marker.started_at,
        address: typeof marker.address === 'string' ? marker.address : undefined,
        alive,
      })
    } catch {
      // removed meanwhile, or not a marker
    }
  }
  return markers
}
