import { randomBytes } from 'node:crypto'

import type { FastifyInstance } from 'fastify'

import { sign } from '../../src/webhook/verify-signature.js'

export const WEBHOOK_URL = '/wp-json/dg/v2/webhooks/properties'

export interface Delivery {
  body: string
  key: string
  secret: string
  timestamp?: number
  nonce?: string
  headers?: Record<string, string>
}

export function deliveryHeaders(d: Delivery): Record<string, string> {
  const timestamp = String(d.timestamp ?? Math.floor(Date.now() / 1000))
  const nonce = d.nonce ?? randomBytes(18).toString('base64url')
  return {
    'content-type': 'application/json',
    'x-dg-timestamp': timestamp,
    'x-dg-nonce': nonce,
    'idempotency-key': d.key,
    'x-dg-signature': sign(d.secret, { timestamp, nonce, idempotencyKey: d.key }, Buffer.from(d.body)),
    ...d.headers,
  }
}

export function deliver(app: FastifyInstance, d: Delivery) {
  return app.inject({ method: 'POST', url: WEBHOOK_URL, payload: d.body, headers: deliveryHeaders(d) })
}
