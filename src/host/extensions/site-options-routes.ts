/*
 * Site options that extensions define (`dg_extension_settings_fields`, docs/integration/extensions.md), administered
 * over REST (read: dg_read_all, write: manage_options; not licence-gated):
 *   GET {base_url}/site-options          every defined option with its definition and value in force
 *   PUT {base_url}/site-options/{name}   a new value, checked against the
 *                                        option's type and passed through its sanitizer, audited
 * A value that does not fit is 422 `invalid_site_option_value` with the option's issue, so a form
 * shows it beside its field; an option no extension defines is 404.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { type TSchema, Type } from 'typebox'

import { HostError, PluginError } from '../errors.js'
import { actorOf, requireCapability, requirePrincipal } from '../http/authenticate.js'
import { errorResponse, errorResponses } from '../http/schemas.js'
import { listSiteOptions, setSiteOption } from './site-options.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]
const readGuard = [requireCapability('dg_read_all')]
const writeGuard = [requireCapability('manage_options')]
/** PostgreSQL cannot compare or hold text with U+0000 (a stored value is JSON, where it is escaped). */
const NO_NUL = '^[^\\u0000]*$'
const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])

const SiteOptionSchema = Type.Object({
  name: Type.String(),
  type: Type.String({ description: 'string, integer, number or boolean' }),
  label: Type.String(),
  description: Type.String(),
  default: Scalar,
  value: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()], {
    description: 'The value in force (typed and sanitized), as /catalog would expose it',
  }),
  stored: Type.Boolean({ description: 'Whether a value is stored (otherwise the default applies)' }),
  expose_in_catalog: Type.Boolean({ description: 'Whether /catalog lists it in extension_options' }),
})

/** Typed as any schema: a value is what an extension's sanitizer returned, which the type check cannot know. */
const SiteOptionList: TSchema = Type.Object({ items: Type.Array(SiteOptionSchema) })

const TYPE_WORDS: Record<string, [string, string]> = {
  string: ['tekst', 'text'],
  integer: ['liczba całkowita', 'an integer'],
  number: ['liczba', 'a number'],
  boolean: ['tak albo nie', 'yes or no'],
}

export async function siteOptionsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/site-options',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'listSiteOptions',
        tags: ['settings'],
        summary: 'Site options defined by extensions (dg_extension_settings_fields), with their values',
        security,
        response: { 200: SiteOptionList, ...errorResponses(401, 403) },
      },
    },
    async () => ({ items: await listSiteOptions(app.ctx) }),
  )

  app.put(
    '/site-options/:name',
    {
      preHandler: writeGuard,
      schema: {
        operationId: 'updateSiteOption',
        tags: ['settings'],
        summary: 'Set a site option, checked against its type and passed through its sanitizer; audited',
        security,
        params: Type.Object({ name: Type.String({ maxLength: 200, pattern: NO_NUL }) }),
        body: Type.Object(
          {
            value: Type.Union([Type.String({ maxLength: 10000 }), Type.Number(), Type.Boolean(), Type.Null()]),
          },
          { additionalProperties: false },
        ),
        response: {
          200: SiteOptionSchema,
          ...errorResponses(400, 401, 403, 404),
          422: errorResponse(
            422,
            Type.Object({
              error: Type.Literal('invalid_site_option_value'),
              message: Type.String(),
              issues: Type.Array(
                Type.Object({
                  field: Type.String(),
                  code: Type.String(),
                  message: Type.Optional(Type.String()),
                  message_pl: Type.String(),
                  message_en: Type.String(),
                }),
              ),
            }),
          ),
        },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      const { name } = request.params
      const { value } = request.body
      try {
        return await setSiteOption(app.ctx, name, value, actorOf(principal))
      } catch (error) {
        if (!(error instanceof HostError) || error.code !== 'invalid_site_option_value') throw error
        const option = (await listSiteOptions(app.ctx)).find((o) => o.name === name)
        const [pl, en] = TYPE_WORDS[option?.type ?? 'string'] ?? TYPE_WORDS.string!
        throw new PluginError('invalid_site_option_value', 422, {
          message: error.message,
          issues: [
            {
              field: name,
              code: 'invalid_value',
              message_pl: `Opcja „${option?.label ?? name}” przyjmuje: ${pl}. Nic nie zapisano.`,
              message_en: `The option “${option?.label ?? name}” takes ${en}. Nothing was saved.`,
            },
          ],
        })
      }
    },
  )
}
