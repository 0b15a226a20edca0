/*
 * The webhook secret: its own option, never autoloaded, shown to the operator as
 * the webhook key. Rotation replaces it at once; the old secret is not kept alongside. The HMAC
 * key is the UTF-8 text exactly as shown (docs/integration/webhook.md), so it is plain ASCII.
 */
import type { Actor } from '../host/audit/audit.js'
import { recordAudit } from '../host/audit/audit.js'
import { randomToken } from '../host/auth/secrets.js'
import type { HostContext } from '../host/context.js'
import { getOption, setOption } from '../host/options/options.js'

export const WEBHOOK_SECRET_OPTION = 'dg_webhook_secret'

interface StoredWebhookSecret {
  secret: string
  created_at: string
}

export function generateWebhookSecret(): string {
  return `dgwh_${randomToken(32)}`
}

export async function getWebhookSecret(
  ctx: Pick<HostContext, 'db'>,
): Promise<{ secret: string; created_at: string } | undefined> {
  return getOption<StoredWebhookSecret>(ctx, WEBHOOK_SECRET_OPTION)
}

export async function rotateWebhookSecret(
  ctx: HostContext,
  actor: Actor,
): Promise<{ secret: string; created_at: string }> {
  const stored: StoredWebhookSecret = { secret: generateWebhookSecret(), created_at: ctx.now().toISOString() }
  await ctx.db.transaction().execute(async (trx) => {
    await setOption(ctx, WEBHOOK_SECRET_OPTION, stored, { autoload: false, db: trx })
    await recordAudit(
      ctx,
      {
        actor,
        action: 'webhook_secret.rotate',
        objectType: 'option',
        objectId: WEBHOOK_SECRET_OPTION,
        outcome: 'success',
      },
      trx,
    )
  })
  return stored
}

/** Returns the secret, creating the first one when none exists yet. */
export async function ensureWebhookSecret(
  ctx: HostContext,
  actor: Actor,
): Promise<{ secret: string; created_at: string }> {
  return (await getWebhookSecret(ctx)) ?? rotateWebhookSecret(ctx, actor)
}
