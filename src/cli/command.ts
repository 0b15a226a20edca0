/* The shape of one `dg` command, shared by the command list and the files that define commands. */
import type { CliEnvironment } from './cli-context.js'

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; required?: boolean; description: string }>

export interface CommandResult {
  /** Machine-readable result (--json). */
  json: unknown
  /** Human-readable lines. */
  text: string
}

export interface Command {
  name: string
  summary: string
  options: OptionSpec
  /** Names of positional arguments, in order (all required). */
  positionals?: string[]
  /** Lines shown by --help after the options. */
  help?: string
  /** May start a new SQLite database where there is none; every other command refuses to. */
  createsDatabase?: boolean
  run(
    values: Record<string, string | boolean | undefined>,
    env: CliEnvironment,
    positionals: string[],
  ): Promise<CommandResult | 'serve'>
}
