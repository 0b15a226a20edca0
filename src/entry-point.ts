import fs from 'node:fs'
import { pathToFileURL } from 'node:url'

/** True when the module at `moduleUrl` is the script node was started with (also through a bin symlink). */
export function isEntryPoint(moduleUrl: string): boolean {
  const script = process.argv[1]
  if (!script) return false
  try {
    return moduleUrl === pathToFileURL(fs.realpathSync(script)).href
  } catch {
    return false
  }
}
