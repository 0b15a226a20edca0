/*
 * Prints how many tests ran on each database, so a CI log shows that the PostgreSQL suite did
 * run (and was not silently skipped).
 */
import type { Reporter, TestModule } from 'vitest/node'

export default class DatabaseReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts: Record<string, { passed: number; failed: number; skipped: number }> = {}
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const match = /\[(sqlite|postgres)\]/.exec(test.fullName)
        const key = match?.[1] ?? 'no database'
        const bucket = (counts[key] ??= { passed: 0, failed: 0, skipped: 0 })
        const state = test.result().state
        if (state === 'passed') bucket.passed++
        else if (state === 'failed') bucket.failed++
        else bucket.skipped++
      }
    }
    const lines = Object.entries(counts).map(
      ([key, c]) => `  ${key}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`,
    )
    process.stdout.write(`\nTests by database:\n${lines.join('\n')}\n`)
    if (!process.env.DG_TEST_DATABASE_URL) process.stdout.write('  postgres: not run (DG_TEST_DATABASE_URL=none)\n')
  }
}
