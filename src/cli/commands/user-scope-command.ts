/*
 * `dg user scope LOGIN --developers 1,2 --investments 5` limits a user who is not an administrator
 * to those developer entities (with every investment they have, now and later) and investments;
 * `--clear` gives it the whole catalog again (docs/decisions/roles-and-capabilities.md, "Scope").
 */
import { HostError } from '../../host/errors.js'
import { setUserScopeByLogin } from '../../host/users/user-scopes.js'
import { withHostContext } from '../cli-context.js'
import type { Command } from '../command.js'

function ids(value: string | boolean | undefined, option: string): number[] {
  if (value === undefined || value === false || value === '') return []
  const parts = String(value)
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
  const numbers = parts.map(Number)
  if (numbers.some((n) => !Number.isSafeInteger(n) || n < 1))
    throw new HostError('invalid_option', 400, `--${option} takes ids separated by commas, e.g. 1,2.`)
  return numbers
}

export const USER_SCOPE_COMMANDS: Command[] = [
  {
    name: 'user scope',
    summary: 'Limit a user to some developer entities and investments, or give it the whole catalog (--clear)',
    positionals: ['login'],
    options: {
      developers: { type: 'string', description: 'developer entity ids, e.g. 1,2 (each with all its investments)' },
      investments: { type: 'string', description: 'investment ids, e.g. 5' },
      clear: { type: 'boolean', description: 'remove the limit: the whole catalog' },
    },
    help: 'Administrators are never limited. The ids are those of GET /developers and GET /investments.',
    run: (values, env, [login = '']) =>
      withHostContext(env, async (ctx) => {
        const clear = values.clear === true
        if (clear && (values.developers !== undefined || values.investments !== undefined))
          throw new HostError('invalid_option', 400, 'Give either --clear or --developers/--investments, not both.')
        if (!clear && values.developers === undefined && values.investments === undefined)
          throw new HostError('invalid_option', 400, 'Give --developers and/or --investments, or --clear.')
        const scope = clear
          ? null
          : { developers: ids(values.developers, 'developers'), investments: ids(values.investments, 'investments') }
        const result = await setUserScopeByLogin(ctx, login, scope, { type: 'cli' })
        const described =
          result.scope === null
            ? 'the whole catalog'
            : [
                result.scope.developers.length ? `developer entities ${result.scope.developers.join(', ')}` : '',
                result.scope.investments.length ? `investments ${result.scope.investments.join(', ')}` : '',
              ]
                .filter(Boolean)
                .join(' and ')
        return {
          json: { id: result.id, user: result.login, scope: result.scope, changed: result.changed },
          text: `${result.login} works on ${described}.${result.changed ? '' : ' (unchanged)'}`,
        }
      }),
  },
]
