/*
 * The reference pages of docs/reference/ are generated from the code (npm run docs:reference).
 * These tests fail when a page no longer matches its definitions, or when a definition the pages
 * are made from has no description: a new setting, command, code or metric is documented in the
 * commit that adds it.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { renderReferences } from '../../scripts/docs-reference.js'
import { COMMANDS } from '../../src/cli/commands.js'
import { ENVIRONMENT_VARIABLES } from '../../src/config.js'
import type { HostContext } from '../../src/host/context.js'
import { ERROR_CODES } from '../../src/host/error-codes.js'
import { ServiceMetrics } from '../../src/host/metrics.js'
import { CANONICAL_FIELDS, FIELD_DESCRIPTIONS } from '../../src/offers/canonical-fields.js'

const root = path.resolve(import.meta.dirname, '../..')

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.ts$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
}

describe('generated reference pages', () => {
  it('match the code (run npm run docs:reference after changing a definition)', () => {
    for (const [file, text] of renderReferences()) {
      const onDisk = readFileSync(path.join(root, file), 'utf8')
      expect(onDisk, `${file} is stale: run npm run docs:reference`).toBe(text)
    }
  })
})

describe('definitions the references are made from', () => {
  it('describe every environment variable loadConfig reads, and only those', () => {
    const source = readFileSync(path.join(root, 'src/config.ts'), 'utf8')
    const code = source.slice(0, source.indexOf('export const ENVIRONMENT_VARIABLES'))
    const read = new Set([
      ...[...code.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!),
      ...[...code.matchAll(/Setting\(\s*env,\s*'([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1]!),
      ...[...code.matchAll(/parseSwitch\(\s*env,\s*'([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1]!),
    ])
    expect(read.size).toBeGreaterThan(30)
    const documented = new Set(ENVIRONMENT_VARIABLES.map((v) => v.name))
    expect(
      [...read].filter((name) => !documented.has(name)),
      'read but not in ENVIRONMENT_VARIABLES',
    ).toEqual([])
    expect(
      [...documented].filter((name) => !read.has(name)),
      'documented but never read',
    ).toEqual([])
    for (const variable of ENVIRONMENT_VARIABLES) {
      expect(variable.description.length, `${variable.name} needs a description`).toBeGreaterThan(5)
      expect(variable.type, `${variable.name} needs a type`).not.toBe('')
      expect(variable.default, `${variable.name} needs a default`).not.toBe('')
    }
  })

  it('describe every command and every option', () => {
    for (const command of COMMANDS) {
      expect(command.summary.length, `dg ${command.name}`).toBeGreaterThan(5)
      for (const [name, spec] of Object.entries(command.options))
        expect(spec.description.length, `dg ${command.name} --${name}`).toBeGreaterThan(3)
    }
  })

  it('describe every canonical field of the import format', () => {
    for (const field of CANONICAL_FIELDS) expect(FIELD_DESCRIPTIONS[field].length, field).toBeGreaterThan(5)
  })

  it('describe every metric of the registry', () => {
    const metrics = new ServiceMetrics({} as HostContext, { totalCount: 0, idleCount: 0, waitingCount: 0 })
    const all = metrics.registry.getMetricsAsArray() as unknown as { name: string; help: string }[]
    expect(all.length).toBeGreaterThan(5)
    for (const metric of all) expect(metric.help.length, metric.name).toBeGreaterThan(10)
  })

  it('list every error code the service throws, each with a description, and no code it never uses', () => {
    const thrown = new Map<string, string>()
    const used = new Set<string>()
    const codePatterns = [
      // new HostError('code', ...), new PluginError('code', ...) and the helpers that build them
      /\b(?:new (?:HostError|PluginError)|forbidden|notFound|unauthorized|refused)\(\s*'([a-z][a-z0-9_]*)'/g,
      // the framework-error table and the webhook's authentication failures
      /\[\s*'(rest_[a-z_]+)',\s*\d{3}/g,
      /\berror: '([a-z][a-z0-9_]*)'/g,
    ]
    for (const file of sourceFiles('src')) {
      if (file.endsWith('error-codes.ts')) continue
      const source = readFileSync(file, 'utf8')
      for (const pattern of codePatterns)
        for (const match of source.matchAll(pattern)) thrown.set(match[1]!, path.relative(root, file))
      for (const code of Object.keys(ERROR_CODES)) if (source.includes(`'${code}'`)) used.add(code)
    }
    const missing = [...thrown].filter(([code]) => !(code in ERROR_CODES)).map(([code, file]) => `${code} (${file})`)
    expect(missing, 'add these to src/host/error-codes.ts').toEqual([])
    expect(
      Object.keys(ERROR_CODES).filter((code) => !used.has(code)),
      'listed in error-codes.ts but used nowhere',
    ).toEqual([])
    for (const [code, definition] of Object.entries(ERROR_CODES)) {
      expect(definition.description.length, code).toBeGreaterThan(10)
      expect(definition.status.length, code).toBeGreaterThan(0)
    }
  })
})
