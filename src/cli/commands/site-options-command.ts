/*
 * `dg site-options` and `dg site-option set`: the site options that the loaded extensions define
 * (dg_extension_settings_fields, docs/integration/extensions.md), their values, and changing one. Both load the
 * DG_EXTENSIONS modules, as the service does; the value is checked by the option's type and kept
 * as its sanitizer returns it.
 */
import { HostError } from '../../host/errors.js'
import {
  listSiteOptions,
  parseSiteOptionText,
  setSiteOption,
  type SiteOptionView,
} from '../../host/extensions/site-options.js'
import { withHostContext } from '../cli-context.js'
import type { Command } from '../command.js'

function line(option: SiteOptionView): string {
  const value = JSON.stringify(option.value)
  return [
    `${option.name} (${option.type}${option.expose_in_catalog ? ', in /catalog extension_options' : ''}): ${value}` +
      `${option.stored ? '' : ' (default)'}`,
    `  ${option.label}${option.description ? ` — ${option.description}` : ''}`,
  ].join('\n')
}

export const SITE_OPTION_COMMANDS: Command[] = [
  {
    name: 'site-options',
    summary: 'List the site options the loaded extensions (DG_EXTENSIONS) define, with their values',
    options: {},
    run: (_values, env) =>
      withHostContext(
        env,
        async (ctx) => {
          const options = await listSiteOptions(ctx)
          return {
            json: options,
            text: options.length
              ? options.map(line).join('\n')
              : 'No site options: no loaded extension defines any (DG_EXTENSIONS).',
          }
        },
        { extensions: true },
      ),
  },
  {
    name: 'site-option set',
    summary: 'Set a site option an extension defines: dg site-option set promo_banner "Rabat 5%"',
    options: {},
    positionals: ['name', 'value'],
    help: "The value is read as the option's type: an integer, a number (12,5 or 12.5), true/false (tak/nie), or text.",
    run: (_values, env, [name = '', text = '']) =>
      withHostContext(
        env,
        async (ctx) => {
          const options = await listSiteOptions(ctx)
          const option = options.find((o) => o.name === name)
          if (!option)
            throw new HostError(
              'unknown_site_option',
              404,
              `No loaded extension defines the site option ${JSON.stringify(name)}` +
                (options.length
                  ? ` (defined: ${options.map((o) => o.name).join(', ')})`
                  : ' (DG_EXTENSIONS loads none)'),
            )
          const value = parseSiteOptionText(option, text)
          const view = await setSiteOption(ctx, name, value, { type: 'cli' })
          return { json: view, text: line(view) }
        },
        { extensions: true },
      ),
  },
]
