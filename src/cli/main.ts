#!/usr/bin/env node
/*
 * `dg`, the operator's command line. `runCli` is exported so that tests run commands in-process.
 * Exit codes: 0 success, 1 the operation was refused or failed, 2 wrong usage or configuration.
 */
import readline from 'node:readline/promises'
import { parseArgs } from 'node:util'

import { ConfigError, loadConfig } from '../config.js'
import { isEntryPoint } from '../entry-point.js'
import { HostError, PluginError } from '../host/errors.js'
import { startServer } from '../main.js'
import type { HostContext } from '../host/context.js'
import type { CliEnvironment, CliIo } from './cli-context.js'
import type { Command } from './command.js'
import { COMMANDS } from './commands.js'
import { takeTenantOption, tenantEnvironment } from './tenant-option.js'

function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  const [first, second] = argv
  const twoWords = COMMANDS.find((c) => c.name === `${first} ${second}`)
  if (twoWords) return { command: twoWords, rest: argv.slice(2) }
  const oneWord = COMMANDS.find((c) => c.name === first)
  return oneWord ? { command: oneWord, rest: argv.slice(1) } : undefined
}

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length))
  return [
    'Usage: dg <command> [options] [--json]',
    '',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run "dg <command> --help" for the options of a command.',
    'Add --tenant SLUG to run a command for one of the other companies of this platform (dg tenant list).',
  ].join('\n')
}

function commandHelp(command: Command): string {
  const lines = Object.entries(command.options).map(
    ([name, spec]) =>
      `  --${name}${spec.type === 'string' ? ' <value>' : ''}${spec.required ? ' (required)' : ''}  ${spec.description}`,
  )
  const args = (command.positionals ?? []).map((p) => ` ${p}`).join('')
  return [
    `dg ${command.name}${args}: ${command.summary}`,
    ...lines,
    '  --json  machine-readable output',
    ...(command.help ? [command.help] : []),
  ].join('\n')
}

/**
 * Start-up words for a service nobody can log in to yet: the database is new (or every user was
 * removed), and the API and the panel answer 401 until an administrator exists.
 */
export async function firstAdministratorHint(ctx: Pick<HostContext, 'db'>, apiUrl: string): Promise<string> {
  const administrator = await ctx.db
    .selectFrom('users')
    .select('id')
    .where('role', '=', 'administrator')
    .limit(1)
    .executeTakeFirst()
  if (administrator) return ''
  const { origin } = new URL(apiUrl)
  return [
    'There is no administrator yet. Create the first one (a login password is generated and shown once):',
    '  npm run dg -- user create --login admin --email you@example.com --role administrator',
    `then log in to the admin panel at ${origin}/dg-admin/, or make an application password for the API`,
    `(${apiUrl}): npm run dg -- app-password create --user admin --name cli`,
    '',
  ].join('\n')
}

class UsageError extends Error {}

function reportError(io: CliIo, json: boolean, code: string, message: string): void {
  io.stderr(json ? `${JSON.stringify({ error: { code, message } })}\n` : `Error (${code}): ${message}\n`)
}

export async function runCli(
  argv: string[],
  env: Omit<CliEnvironment, 'config'> & { config?: CliEnvironment['config'] },
): Promise<number> {
  const { io } = env
  const json = argv.includes('--json')
  let tenant: string | undefined
  try {
    ;({ argv, tenant } = takeTenantOption(argv))
  } catch (error) {
    reportError(io, json, 'usage', (error as Error).message)
    return 2
  }
  const found = findCommand(argv)
  if (!found) {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
      io.stdout(`${usage()}\n`)
      return 0
    }
    reportError(
      io,
      json,
      'unknown_command',
      `Unknown command "${argv.filter((a) => !a.startsWith('-')).join(' ')}".\n${usage()}`,
    )
    return 2
  }
  const { command, rest } = found
  try {
    const options = Object.fromEntries(
      Object.entries(command.options).map(([name, spec]) => [name, { type: spec.type }]),
    )
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: (command.positionals?.length ?? 0) > 0,
    })
    if (values.help) {
      io.stdout(`${commandHelp(command)}\n`)
      return 0
    }
    const missing = Object.entries(command.options)
      .filter(([name, spec]) => spec.required && (values as Record<string, unknown>)[name] === undefined)
      .map(([name]) => `--${name}`)
    if (missing.length > 0) throw new UsageError(`missing ${missing.join(', ')}\n${commandHelp(command)}`)
    const expected = command.positionals ?? []
    if (positionals.length !== expected.length) {
      throw new UsageError(
        `expected ${expected.length ? expected.join(' ') : 'no positional arguments'}\n${commandHelp(command)}`,
      )
    }

    const config = env.config ?? loadConfig()
    let commandEnv: CliEnvironment = { ...env, config, createsDatabase: command.createsDatabase ?? false }
    if (tenant !== undefined) {
      if (command.name.startsWith('tenant ') || ['serve', 'demo', 'demo seed'].includes(command.name))
        throw new UsageError(`--tenant does not apply to dg ${command.name}`)
      commandEnv = { ...(await tenantEnvironment(commandEnv, tenant)), createsDatabase: false }
    }
    const result = await command.run(values as Record<string, string | boolean | undefined>, commandEnv, positionals)
    if (result === 'serve') {
      const { app, url } = await startServer(config)
      io.stderr(`Service listening at ${url}\n${await firstAdministratorHint(app.ctx, url)}`)
      return 0
    }
    io.stdout(json ? `${JSON.stringify(result.json, null, 2)}\n` : `${result.text}\n`)
    return 0
  } catch (error) {
    if (error instanceof UsageError) {
      reportError(io, json, 'usage', error.message)
      return 2
    }
    if (error instanceof ConfigError) {
      const code = (error as { code?: unknown }).code
      reportError(io, json, typeof code === 'string' ? code : 'configuration', error.message)
      return 2
    }
    if (error instanceof HostError) {
      reportError(io, json, error.code, error.message)
      return 1
    }
    if (error instanceof PluginError) {
      const message = typeof error.extra.message === 'string' ? error.extra.message : error.error
      reportError(io, json, error.error, message)
      return 1
    }
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      reportError(io, json, 'usage', `${(error as Error).message}\n${commandHelp(command)}`)
      return 2
    }
    reportError(io, json, 'failed', (error as Error).message)
    return 1
  }
}

if (isEntryPoint(import.meta.url)) {
  const io: CliIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    ...(process.stderr.isTTY ? { terminal: process.stderr } : {}),
    ...(process.stdin.isTTY
      ? {
          confirm: async (question: string) => {
            const rl = readline.createInterface({ input: process.stdin, output: process.stderr })
            const answer = await rl.question(question)
            rl.close()
            return /^(y|yes|t|tak)$/i.test(answer.trim())
          },
        }
      : {}),
  }
  const code = await runCli(process.argv.slice(2), { io })
  // `serve` keeps the process alive through its listening socket
  if (code !== 0 || !['serve', 'demo'].includes(process.argv[2] ?? '')) process.exitCode = code
}
