/*
 * `dg publication publish`: publishes a day's file now through the same atomic pipeline as the
 * schedule, e.g. today's after the first scheduled run failed and the cause was corrected. Like
 * every `dg` command it is not licence-gated (the legal duty goes on in continuity mode); the
 * day rules are the pipeline's own (today, or a day whose file exists already).
 */
import { HostError, PluginError } from '../../host/errors.js'
import { isCalendarDate, todayInWarsaw } from '../../host/warsaw-day.js'
import type { PublicationOutcome } from '../../publication/publishing/publication-outcome.js'
import { publish } from '../../publication/publishing/publish.js'
import { withHostContext } from '../cli-context.js'
import type { Command } from '../command.js'

function describeOutcome(outcome: PublicationOutcome): string {
  return [
    `Published the file of ${outcome.date}: ${outcome.record_count} row(s), version ${outcome.version}.`,
    `CSV: ${outcome.csv.url}`,
    `XML: ${outcome.xml.url}`,
    ...outcome.warnings.map((w) => `  warning ${w.code}: ${w.message_en}`),
  ].join('\n')
}

export const PUBLICATION_PUBLISH_COMMANDS: Command[] = [
  {
    name: 'publication publish',
    summary: 'Publish a day’s file now (default today, Europe/Warsaw), e.g. after a failed scheduled run',
    options: {
      date: { type: 'string', description: 'YYYY-MM-DD (default today in Europe/Warsaw)' },
      'developer-id': { type: 'string', description: 'the developer entity whose dataset is published' },
    },
    run: (values, env) =>
      withHostContext(env, async (ctx) => {
        const date = typeof values.date === 'string' ? values.date : todayInWarsaw(ctx)
        if (!isCalendarDate(date)) throw new HostError('invalid_date', 400, '--date must be a real date YYYY-MM-DD.')
        const developer = values['developer-id']
        if (developer !== undefined && (typeof developer !== 'string' || !/^[1-9]\d*$/.test(developer)))
          throw new HostError('invalid_id', 400, '--developer-id must be a positive whole number.')
        try {
          const outcome = await publish(ctx, {
            date,
            trigger: 'cli',
            actor: { type: 'cli' },
            developerId: typeof developer === 'string' ? Number(developer) : null,
          })
          return { json: outcome, text: describeOutcome(outcome) }
        } catch (error) {
          const issues: unknown = error instanceof PluginError ? error.extra.issues : undefined
          if (error instanceof PluginError && Array.isArray(issues) && issues.length > 0)
            throw new PluginError(error.error, error.status, {
              ...error.extra,
              message: [
                `The file of ${date} was not published:`,
                ...(issues as Array<{ code: string; message_en?: string }>).map(
                  (i) => `  - ${i.code}: ${i.message_en ?? ''}`,
                ),
              ].join('\n'),
            })
          throw error
        }
      }),
  },
]
