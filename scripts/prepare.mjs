// `prepare` (run by npm install / npm ci in this folder, and by npm pack): builds dist/ with
// TypeScript (build mode: a quick check when nothing changed) when the sources and TypeScript are both
// here, as in a checkout after `npm ci`.
// The release tarball (`npm pack`: dist/ inside, no sources) has nothing to build, and neither has
// a checkout installed with --omit=dev, which says how to install for production instead.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import process from 'node:process'

if (!existsSync('src/main.ts')) process.exit(0)

let tsc
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
} catch {
  process.stderr.write(
    'dg-offers: TypeScript is not installed (--omit=dev), so dist/ was not built. For production, install ' +
      'the release tarball made by `npm ci && npm pack` (README, "Production install").\n',
  )
  process.exit(0)
}
const build = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { stdio: 'inherit' })
process.exit(build.status ?? 1)
