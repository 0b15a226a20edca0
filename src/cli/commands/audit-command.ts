/*
 * `dg audit`: the audit of everything published (src/publication/audit), as the panel and
 * GET /publication/audit show it. Exit code 1 when a published file breaks a rule, so a cron job
 * or a monitoring check can act on it; gaps are listed but do not fail it.
 */
import { HostError, PluginError } from '../../host/errors.js'
import { isCalendarDate } from '../../host/warsaw-day.js'
import { type AuditReport, auditPublications } from '../../publication/audit/publication-audit.js'
import { withHostContext } from '../cli-context.js'
import type { Command } from '../command.js'

function describeAudit(report: AuditReport): string {
  const lines = [
    `Audit of ${report.day ? `the files of ${report.day}` : 'everything published'} at ${report.checked_at}: ${report.valid ? 'no error' : `${report.errors} error(s)`}, ${report.gaps} gap(s)`,
  ]
  for (const dataset of report.datasets) {
    lines.push(
      `Dataset of ${dataset.developer_name} (developer ${dataset.developer_id}, ${dataset.public_dataset_id}): ${dataset.resources} resource(s), ${dataset.files_checked} file(s) checked, ${dataset.errors} error(s), ${dataset.gaps} gap(s)`,
    )
    for (const problem of dataset.problems) {
      const where = [
        problem.day ?? 'XML',
        problem.file,
        problem.unit ? `unit ${problem.unit}` : null,
        problem.line ? `line ${problem.line}` : null,
      ]
        .filter(Boolean)
        .join(', ')
      lines.push(`  - [${problem.severity}] ${where}: ${problem.code}: ${problem.message_pl}`)
    }
  }
  return lines.join('\n')
}

export const AUDIT_COMMANDS: Command[] = [
  {
    name: 'audit',
    summary: 'Audit everything published: every file of every dataset read again and checked (exit code 1 on an error)',
    options: {
      date: { type: 'string', description: 'only the files of this day (YYYY-MM-DD)' },
      'developer-id': { type: 'string', description: 'only this developer entity’s dataset' },
    },
    run: (values, env) => {
      const date = typeof values.date === 'string' ? values.date : undefined
      if (date !== undefined && !isCalendarDate(date))
        throw new HostError('invalid_date', 400, '--date must be a real calendar date YYYY-MM-DD.')
      const rawId = values['developer-id']
      if (rawId !== undefined && (typeof rawId !== 'string' || !/^[1-9]\d{0,9}$/.test(rawId)))
        throw new HostError('invalid_id', 400, '--developer-id must be a positive whole number.')
      return withHostContext(env, async (ctx) => {
        const report = await auditPublications(ctx, {
          day: date,
          developerId: rawId === undefined ? undefined : Number(rawId),
        })
        const text = describeAudit(report)
        if (!report.valid) {
          // the whole report still goes to stdout; the refusal (exit code 1) goes to stderr
          env.io.stdout(values.json === true ? `${JSON.stringify(report, null, 2)}\n` : `${text}\n`)
          throw new PluginError('audit_failed', 422, {
            message: `The audit found ${report.errors} error(s) in published files.`,
          })
        }
        return { json: report, text }
      })
    },
  },
]
