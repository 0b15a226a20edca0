/*
 * Whether an installation is set up enough for its unattended work: an active administrator (who
 * would read an alert and can act on it) and a developer entity (whose dataset there is to
 * publish). A fresh install started after the schedule's time would otherwise try a publication
 * that can only fail and alert nobody with a text that does not apply. The scheduled publication
 * and the alert rules wait until both exist; publishing by hand is not concerned.
 */
import type { HostContext } from '../host/context.js'

export type MissingSetUp = 'administrator' | 'developer'

/** What the installation still lacks before the schedule and the alerts run; [] once it is set up. */
export async function missingSetUp(ctx: Pick<HostContext, 'db'>): Promise<MissingSetUp[]> {
  const [administrator, developer] = await Promise.all([
    ctx.db
      .selectFrom('users')
      .select('id')
      .where('role', '=', 'administrator')
      .where('disabled_at', 'is', null)
      .limit(1)
      .executeTakeFirst(),
    ctx.db.selectFrom('developers').select('id').limit(1).executeTakeFirst(),
  ])
  return [...(administrator ? [] : ['administrator' as const]), ...(developer ? [] : ['developer' as const])]
}
