// `npm run fuzz`: the long run of the fuzz suites. The same tests `npm test`
// runs a bounded share of (test/fuzz/ and the webhook's test/webhook/webhook-fuzz.test.ts), with
// DG_FUZZ_SCALE multiplying every target's cases (default 20; `npm run fuzz -- 50` or
// DG_FUZZ_SCALE=50 for more) and enlarging the memory-filling files. Both databases, as `npm test`
// (DG_TEST_DATABASE_URL). At the end it repeats what each suite printed: the cases tried per target,
// the large files' outcomes and memory growth, and the log lines searched for secrets.
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import path from 'node:path'
import process from 'node:process'

const scale = process.argv[2] ?? process.env.DG_FUZZ_SCALE ?? '20'
if (!/^\d+(\.\d+)?$/.test(scale) || Number(scale) < 1) {
  process.stderr.write(`fuzz: the scale must be a number of at least 1, not "${scale}"\n`)
  process.exit(2)
}
const vitest = path.join(path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs')
const suites = ['test/fuzz/', 'test/webhook/webhook-fuzz.test.ts']
process.stdout.write(`fuzz: DG_FUZZ_SCALE=${scale}, ${suites.join(' ')}\n`)

const started = Date.now()
const child = spawn(process.execPath, [vitest, 'run', ...suites], {
  // no colours: the summary below reads the suites' lines as plain text
  env: { ...process.env, DG_FUZZ_SCALE: scale, NO_COLOR: '1', FORCE_COLOR: '0' },
  stdio: ['ignore', 'pipe', 'inherit'],
})
let output = ''
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  output += chunk.toString()
})
child.on('close', (code) => {
  // the suites' own summaries: "fuzz …" lines with their indented targets, the webhook's "[db] …" lines
  const summary = []
  let inBlock = false
  for (const line of output.split('\n')) {
    if (/^fuzz \S/.test(line) || /^\[(sqlite|postgres)\] /.test(line)) {
      summary.push(line)
      inBlock = true
    } else if (inBlock && /^ {2}\S/.test(line)) summary.push(line)
    else inBlock = false
  }
  const minutes = ((Date.now() - started) / 60_000).toFixed(1)
  process.stdout.write(
    `\n=== fuzz summary (DG_FUZZ_SCALE=${scale}, ${minutes} min, ${code === 0 ? 'passed' : 'FAILED'}) ===\n${summary.join('\n')}\n`,
  )
  process.exit(code ?? 1)
})
