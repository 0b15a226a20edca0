/*
 * The answer's shape of one alert with each channel's outcome: an item of /status's `alerts` and
 * the answer of the test alert.
 */
import { Type } from 'typebox'

export const AlertViewSchema = Type.Object({
  id: Type.Integer(),
  cause: Type.String({
    description:
      'publication_failed, missed_days, delivery_failed, row_drop, license_continuity, publication_gaps, publication_audit or test; told once per cause, day and dataset',
  }),
  day: Type.String({ description: 'The day (YYYY-MM-DD, Europe/Warsaw) the alert is about' }),
  severity: Type.String({ description: 'critical, warning or info' }),
  developer_id: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The developer entity whose dataset it concerns; null for the whole service',
  }),
  raised_at: Type.String(),
  message: Type.Optional(Type.String({ description: 'message_pl or message_en, by Accept-Language' })),
  message_pl: Type.String(),
  message_en: Type.String(),
  details: Type.Object({}, { additionalProperties: true }),
  state: Type.String({
    description:
      'sending, delivered (every channel), failed (a channel gave up) or not_configured (no channel set: recorded and shown here only)',
  }),
  channels: Type.Array(
    Type.Object({
      channel: Type.String({ description: 'email or webhook' }),
      status: Type.String({ description: 'pending, sent or failed' }),
      attempts: Type.Integer(),
      at: Type.Union([Type.String(), Type.Null()], { description: 'When the last attempt ended' }),
      error: Type.Optional(Type.String({ description: 'Why the last attempt failed (never a secret)' })),
      error_code: Type.Optional(
        Type.String({ description: 'A network failure’s stable code (network_host_not_found, …)' }),
      ),
      error_pl: Type.Optional(Type.String({ description: 'A network failure explained in Polish' })),
      error_en: Type.Optional(Type.String({ description: 'A network failure explained in English' })),
    }),
  ),
})
