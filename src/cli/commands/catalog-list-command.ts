/*
 * `dg investment list` and `dg developer list`: the ids other commands and the production
 * checklist ask for (`dg investment location --id N`, `dg developer set --id N`), with what an
 * operator checks next: an investment's publication status, its location's completeness, its offers.
 */
import { listInvestments, type InvestmentView } from '../../editor/investment-editor-service.js'
import { type DeveloperView, listDevelopers } from '../../publication/settings/settings-service.js'
import { withHostContext } from '../cli-context.js'
import type { Command } from '../command.js'

/** Columns padded to their widest cell, two spaces apart. */
export function textTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()
  return [line(header), ...rows.map(line)].join('\n')
}

const PAGE = 100

async function allInvestments(ctx: Parameters<typeof listInvestments>[0]): Promise<InvestmentView[]> {
  const items: InvestmentView[] = []
  for (let page = 1; ; page++) {
    const listed = await listInvestments(ctx, { page, perPage: PAGE })
    items.push(...listed.items)
    if (page >= listed.totalPages) return items
  }
}

function locationState(investment: InvestmentView): string {
  const missing = Object.values(investment.location).filter((v) => !v?.trim()).length
  return missing === 0 ? 'complete' : `${missing} of 7 missing`
}

export const CATALOG_LIST_COMMANDS: Command[] = [
  {
    name: 'investment list',
    summary: 'List the investments: id, source id, name, publication status, developer, location, offers',
    options: {},
    run: (_values, env) =>
      withHostContext(env, async (ctx) => {
        const investments = await allInvestments(ctx)
        const items = investments.map((i) => ({
          id: i.id,
          source_id: i.source_id,
          title: i.title,
          host_status: i.host_status,
          visibility: i.visibility,
          developer_id: i.developer_id,
          location_complete: Object.values(i.location).every((v) => Boolean(v?.trim())),
          city: i.location.city,
          offers_count: i.offers_count,
          published_offers_count: i.published_offers_count,
        }))
        return {
          json: { items },
          text:
            investments.length === 0
              ? 'No investments.'
              : textTable(
                  ['ID', 'SOURCE ID', 'NAME', 'STATUS', 'DEVELOPER', 'LOCATION', 'OFFERS'],
                  investments.map((i) => [
                    String(i.id),
                    i.source_id ?? '-',
                    i.title,
                    i.host_status,
                    i.developer_id === null ? '-' : String(i.developer_id),
                    locationState(i),
                    `${i.published_offers_count}/${i.offers_count} published`,
                  ]),
                ),
        }
      }),
  },
  {
    name: 'developer list',
    summary: 'List the developer entities: id, name, NIP, REGON, legal form',
    options: {},
    run: (_values, env) =>
      withHostContext(env, async (ctx) => {
        const developers = await listDevelopers(ctx)
        const items = developers.map((d) => ({
          id: d.id,
          name: d.name,
          legal_form: d.legal_form,
          krs: d.krs,
          nip: d.nip,
          regon: d.regon,
        }))
        return {
          json: { items },
          text:
            developers.length === 0
              ? 'No developers: create one with `dg developer set --name …`.'
              : textTable(
                  ['ID', 'NAME', 'NIP', 'REGON', 'LEGAL FORM'],
                  developers.map((d: DeveloperView) => [
                    String(d.id),
                    d.name,
                    d.nip ?? '-',
                    d.regon ?? '-',
                    d.legal_form ?? '-',
                  ]),
                ),
        }
      }),
  },
]
