/*
 * Users and their application passwords, administered over REST (manage_options; not licence-gated:
 * revoking a leaked password or disabling an account must work in continuity mode too):
 *   GET   {base_url}/users                                   every user, with role and state
 *   POST  {base_url}/users                                   a new user (login password shown once)
 *   GET   {base_url}/users/{id}
 *   PATCH {base_url}/users/{id}                              role, e-mail, display name, scope, disabled
 *   PUT   {base_url}/users/{id}/password                      a new login password; ends its sessions
 *   GET   {base_url}/users/{id}/application-passwords        name, created, last used, last IP
 *   POST  {base_url}/users/{id}/application-passwords        a new one, shown once
 *   DELETE {base_url}/users/{id}/application-passwords/{uuid} revoke one
 * Answers that carry a password are `Cache-Control: no-store`.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import {
  createAppPasswordOfUser,
  formatAppPassword,
  listAppPasswordsOfUser,
  revokeAppPasswordOfUser,
} from '../auth/app-passwords.js'
import { ROLE_NAMES, ROLES } from '../auth/capabilities.js'
import { SESSION_COOKIE } from '../auth/sessions.js'
import { actorOf, requireCapability, requirePrincipal } from '../http/authenticate.js'
import { errorResponse, errorResponses } from '../http/schemas.js'
import {
  createAdministeredUser,
  getAdministeredUser,
  listAdministeredUsers,
  updateAdministeredUser,
  setAdministeredUserPassword,
} from './user-administration.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]
// a role outside the list is 400 invalid_role from the service (not a schema error), so the body
// names the roles in its description and the answer, which only ever holds one of them, as an enum
const ROLE_DESCRIPTION = `One of: ${ROLE_NAMES.map((name) => `${name} (${ROLES[name].capabilities.join(', ')})`).join('; ')}`
const readGuard = [requireCapability('dg_read_administration')]
const writeGuard = [requireCapability('manage_options')]
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()])

const FieldIssues = Type.Object(
  {
    error: Type.String(),
    message: Type.Optional(Type.String()),
    issues: Type.Array(
      Type.Object({
        field: Type.String({ description: 'The request field concerned' }),
        code: Type.String({ description: 'Stable code' }),
        message: Type.Optional(Type.String({ description: 'Polish, or English with Accept-Language: en' })),
        message_pl: Type.String(),
        message_en: Type.String(),
      }),
    ),
  },
  { description: 'Refused input: one issue per field; nothing was written' },
)

const ScopeIds = (what: string) =>
  Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), { maxItems: 1000, description: what })
const SCOPE_DESCRIPTION =
  'The part of the catalog the user may see and change: developer entities (each with every investment it has, now and later) and single investments. null: the whole catalog. Outside it every list leaves objects out and every operation on one answers 403 rest_forbidden_scope. An administrator is never scoped (422 scope_on_administrator); an id that names nothing is 422 unknown_developer / unknown_investment; an empty scope is 422 scope_empty.'
const ScopeSchema = Type.Union(
  [
    Type.Object(
      {
        developers: ScopeIds('Developer entity ids'),
        investments: ScopeIds('Investment ids'),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: SCOPE_DESCRIPTION },
)

const UserSchema = Type.Object(
  {
    id: Type.Integer(),
    login: Type.String(),
    email: Type.String(),
    display_name: Type.String(),
    role: Type.String({ enum: ROLE_NAMES, description: ROLE_DESCRIPTION }),
    role_label: Type.String({ description: 'The role’s name as the contract gives it' }),
    capabilities: Type.Array(Type.String()),
    created_at: Type.String(),
    disabled: Type.Boolean({ description: 'A disabled account can neither log in nor use its application passwords' }),
    disabled_at: Type.Union([Type.String(), Type.Null()]),
    application_passwords: Type.Integer({ description: 'How many application passwords the user has' }),
    last_api_use_at: Type.Union([Type.String(), Type.Null()], {
      description: 'Latest use of any of its application passwords (recorded at most once a day per password)',
    }),
    scope: ScopeSchema,
  },
  { $id: 'AdministeredUser' },
)

const AppPasswordSchema = Type.Object({
  uuid: Type.String(),
  name: Type.String(),
  created_at: Type.String(),
  last_used_at: Type.Union([Type.String(), Type.Null()], {
    description: 'Recorded at most once a day, so reads do not turn into writes',
  }),
  last_ip: Type.Union([Type.String(), Type.Null()], { description: 'Client address of that use' }),
})

/*
 * PostgreSQL cannot hold U+0000 in text, and a query naming one fails: a string with it is refused
 * by its schema (400 rest_invalid_param) before it reaches the database.
 */
const NO_NUL = '^[^\\u0000]*$'
const Text = (options: { maxLength: number; description?: string }) => Type.String({ ...options, pattern: NO_NUL })

const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) })

export async function usersRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.addSchema(UserSchema)

  app.get(
    '/users',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'listUsers',
        tags: ['users'],
        summary: 'Every user with role, state and application-password use',
        security,
        response: {
          200: Type.Object({ items: Type.Array(Type.Ref('AdministeredUser')) }),
          ...errorResponses(401, 403),
        },
      },
    },
    async () => ({ items: await listAdministeredUsers(app.ctx) }),
  )

  app.post(
    '/users',
    {
      preHandler: writeGuard,
      schema: {
        operationId: 'createUser',
        tags: ['users'],
        summary: 'Create a user; without `password` a login password is generated and returned once',
        security,
        body: Type.Object(
          {
            login: Text({ maxLength: 254 }),
            email: Text({ maxLength: 254 }),
            role: Text({ maxLength: 60, description: ROLE_DESCRIPTION }),
            display_name: Type.Optional(Text({ maxLength: 254 })),
            password: Type.Optional(Text({ maxLength: 1024, description: 'At least 12 characters' })),
            scope: Type.Optional(ScopeSchema),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            user: Type.Ref('AdministeredUser'),
            password: Nullable(
              Type.String({ description: 'The generated login password, shown this once; null when one was given' }),
            ),
          }),
          ...errorResponses(400, 401, 403, 409),
          422: errorResponse(422, FieldIssues),
        },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      const created = await createAdministeredUser(app.ctx, request.body, actorOf(principal))
      return reply.code(201).header('Cache-Control', 'no-store').send(created)
    },
  )

  app.get(
    '/users/:id',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'getUser',
        tags: ['users'],
        summary: 'One user',
        security,
        params: IdParams,
        response: { 200: Type.Ref('AdministeredUser'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getAdministeredUser(app.ctx, request.params.id),
  )

  app.patch(
    '/users/:id',
    {
      preHandler: writeGuard,
      schema: {
        operationId: 'updateUser',
        tags: ['users'],
        summary:
          'Change role, e-mail, display name, scope or disable/enable (fields sent only); 409 last_administrator, own_account',
        description:
          'A `scope` limits a user who is not an administrator to some developer entities and investments (null: the whole catalog); changing it is audited as user.scope, and making the user an administrator drops it. Disabling ends the account’s panel sessions at once and refuses its application passwords (403 account_disabled) until it is enabled again; its passwords stay on record. The last active administrator can be neither demoted nor disabled (409 last_administrator), and nobody disables their own account (409 own_account).',
        security,
        params: IdParams,
        body: Type.Object(
          {
            role: Type.Optional(Text({ maxLength: 60, description: ROLE_DESCRIPTION })),
            email: Type.Optional(Text({ maxLength: 254 })),
            display_name: Type.Optional(Text({ maxLength: 254 })),
            disabled: Type.Optional(Type.Boolean()),
            scope: Type.Optional(ScopeSchema),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Ref('AdministeredUser'),
          ...errorResponses(400, 401, 403, 404, 409),
          422: errorResponse(422, FieldIssues),
        },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      const { id } = request.params
      return updateAdministeredUser(app.ctx, id, request.body, actorOf(principal))
    },
  )

  app.put(
    '/users/:id/password',
    {
      preHandler: writeGuard,
      schema: {
        operationId: 'setUserPassword',
        tags: ['users'],
        summary: 'Set (or generate) a user’s login password; ends the account’s other panel sessions',
        description:
          'Without `password` one is generated and returned once. Every panel session of the account ends (the caller’s own stays when it changes its own password); `sessions_ended` says how many. Application passwords are kept: revoke them one by one. A password under 12 characters is 400 weak_password.',
        security,
        params: IdParams,
        body: Type.Object(
          { password: Type.Optional(Text({ maxLength: 1024, description: 'At least 12 characters' })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            user: Type.Ref('AdministeredUser'),
            password: Nullable(
              Type.String({ description: 'The generated login password, shown this once; null when one was given' }),
            ),
            sessions_ended: Type.Integer({ description: 'Panel sessions of the account that were ended' }),
            application_passwords_kept: Type.Integer({ description: 'Application passwords of the account, kept' }),
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      const { id } = request.params
      const { password } = request.body
      const changed = await setAdministeredUserPassword(app.ctx, id, {
        password,
        actor: actorOf(principal),
        ...(principal.via === 'session' && principal.user.id === id
          ? { keepSessionToken: request.cookies[SESSION_COOKIE] }
          : {}),
      })
      return reply.header('Cache-Control', 'no-store').send(changed)
    },
  )

  app.get(
    '/users/:id/application-passwords',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'listUserApplicationPasswords',
        tags: ['users'],
        summary:
          'The user’s application passwords: name, created, last used and from which address (never the password)',
        security,
        params: IdParams,
        response: {
          200: Type.Object({
            user: Type.Object({ id: Type.Integer(), login: Type.String() }),
            items: Type.Array(AppPasswordSchema),
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => listAppPasswordsOfUser(app.ctx, request.params.id),
  )

  app.post(
    '/users/:id/application-passwords',
    {
      preHandler: writeGuard,
      schema: {
        operationId: 'createUserApplicationPassword',
        tags: ['users'],
        summary: 'A new application password of the user, returned this once (HTTP Basic with the user’s login)',
        security,
        params: IdParams,
        body: Type.Object({ name: Text({ maxLength: 200 }) }, { additionalProperties: false }),
        response: {
          201: Type.Object({
            ...AppPasswordSchema.properties,
            user: Type.String({ description: 'The login to send with it' }),
            password: Type.String({ description: 'Shown this once, in groups of four; spaces are optional when used' }),
          }),
          ...errorResponses(400, 401, 403, 404),
          422: errorResponse(422, FieldIssues),
        },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      const { id } = request.params
      const created = await createAppPasswordOfUser(app.ctx, {
        userId: id,
        name: request.body.name,
        actor: actorOf(principal),
      })
      return reply
        .code(201)
        .header('Cache-Control', 'no-store')
        .send({ ...created, password: formatAppPassword(created.password) })
    },
  )

  app.delete(
    '/users/:id/application-passwords/:uuid',
    {
      preHandler: writeGuard,
      schema: {
        operationId: 'revokeUserApplicationPassword',
        tags: ['users'],
        summary: 'Revoke one application password; it is refused (401) from the next request on',
        security,
        params: Type.Object({
          id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
          uuid: Text({ maxLength: 64 }),
        }),
        response: {
          200: Type.Object({ user: Type.String(), uuid: Type.String(), revoked: Type.Literal(true) }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      const { id, uuid } = request.params
      return revokeAppPasswordOfUser(app.ctx, { userId: id, uuid, actor: actorOf(principal) })
    },
  )
}
