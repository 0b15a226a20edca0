/*
 * The alert settings (DG_ALERT_*): a wrong or incomplete one stops the start with a message that
 * names the variable, and never repeats the password or the secret it refuses.
 */
import { describe, expect, it } from 'vitest'

import { ConfigError, loadConfig } from '../../src/config.js'

const SMTP = {
  DG_ALERT_SMTP_HOST: 'smtp.example.pl',
  DG_ALERT_SMTP_USER: 'alerts@example.pl',
  DG_ALERT_SMTP_PASSWORD: 'p4ss-never-shown',
  DG_ALERT_EMAIL_TO: 'ops@example.pl',
}
const WEBHOOK = {
  DG_ALERT_WEBHOOK_URL: 'https://hooks.example.com/services/T0KEN-never-shown',
  DG_ALERT_WEBHOOK_SECRET: 'w'.repeat(40),
}

function refusal(env: Record<string, string>): string {
  try {
    loadConfig({ DG_ENV: 'test', ...env })
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error('the configuration was accepted')
}

describe('alert configuration', () => {
  it('has no channel by default, a 30% row-drop share and Polish texts', () => {
    expect(loadConfig({ DG_ENV: 'test' }).alerts).toMatchObject({
      smtp: undefined,
      webhook: undefined,
      rowDropShare: 0.3,
      language: 'pl',
      maxAttempts: 5,
      retryBaseMs: 2000,
    })
  })

  it('reads the SMTP settings: STARTTLS required on port 587 by default, implicit TLS on 465', () => {
    expect(loadConfig({ DG_ENV: 'test', ...SMTP }).alerts.smtp).toEqual({
      host: 'smtp.example.pl',
      port: 587,
      tls: 'starttls',
      user: 'alerts@example.pl',
      password: 'p4ss-never-shown',
      from: 'alerts@example.pl',
      to: ['ops@example.pl'],
    })
    const implicit = loadConfig({
      DG_ENV: 'test',
      ...SMTP,
      DG_ALERT_SMTP_TLS: 'implicit',
      DG_ALERT_SMTP_FROM: 'Ceny <ceny@example.pl>',
      DG_ALERT_EMAIL_TO: 'a@example.pl, b@example.pl',
    }).alerts.smtp
    expect(implicit).toMatchObject({
      port: 465,
      tls: 'implicit',
      from: 'Ceny <ceny@example.pl>',
      to: ['a@example.pl', 'b@example.pl'],
    })
  })

  it('accepts the row-drop share as a fraction or a percentage', () => {
    expect(loadConfig({ DG_ENV: 'test', DG_ALERT_ROW_DROP_SHARE: '0.5' }).alerts.rowDropShare).toBe(0.5)
    expect(loadConfig({ DG_ENV: 'test', DG_ALERT_ROW_DROP_SHARE: '25%' }).alerts.rowDropShare).toBe(0.25)
  })

  it('refuses incomplete or wrong settings, naming the variable', () => {
    expect(refusal({ DG_ALERT_SMTP_HOST: 'smtp.example.pl' })).toContain('DG_ALERT_EMAIL_TO')
    expect(refusal({ DG_ALERT_EMAIL_TO: 'ops@example.pl' })).toContain('DG_ALERT_SMTP_HOST')
    expect(refusal({ ...SMTP, DG_ALERT_EMAIL_TO: 'ops' })).toContain('DG_ALERT_EMAIL_TO')
    expect(refusal({ ...SMTP, DG_ALERT_SMTP_TLS: 'ssl' })).toContain('DG_ALERT_SMTP_TLS')
    expect(refusal({ ...SMTP, DG_ALERT_SMTP_USER: 'alerts' })).toContain('DG_ALERT_SMTP_FROM')
    expect(refusal({ ...SMTP, DG_ALERT_SMTP_PORT: '70000' })).toContain('DG_ALERT_SMTP_PORT')
    expect(refusal({ DG_ALERT_WEBHOOK_URL: WEBHOOK.DG_ALERT_WEBHOOK_URL })).toContain('DG_ALERT_WEBHOOK_SECRET')
    expect(refusal({ DG_ALERT_WEBHOOK_SECRET: WEBHOOK.DG_ALERT_WEBHOOK_SECRET })).toContain('DG_ALERT_WEBHOOK_URL')
    expect(refusal({ ...WEBHOOK, DG_ALERT_WEBHOOK_URL: 'ftp://example.com/x' })).toContain('DG_ALERT_WEBHOOK_URL')
    expect(refusal({ ...WEBHOOK, DG_ENV: 'production', DG_ALERT_WEBHOOK_URL: 'http://hooks.example.com/x' })).toContain(
      'https://',
    )
    expect(refusal({ DG_ALERT_ROW_DROP_SHARE: '1.5' })).toContain('DG_ALERT_ROW_DROP_SHARE')
    expect(refusal({ DG_ALERT_ROW_DROP_SHARE: '0' })).toContain('DG_ALERT_ROW_DROP_SHARE')
    expect(refusal({ DG_ALERT_LANGUAGE: 'de' })).toContain('DG_ALERT_LANGUAGE')
    expect(refusal({ DG_ALERT_MAX_ATTEMPTS: '0' })).toContain('DG_ALERT_MAX_ATTEMPTS')
  })

  it('never repeats the password, the secret or the webhook address it refuses', () => {
    const messages = [
      refusal({ ...SMTP, DG_ALERT_SMTP_USER: '' }),
      refusal({ ...WEBHOOK, DG_ALERT_WEBHOOK_SECRET: 'short-secret-never-shown' }),
      refusal({ ...WEBHOOK, DG_ENV: 'production', DG_ALERT_WEBHOOK_URL: 'http://hooks.example.com/T0KEN-never-shown' }),
    ]
    for (const message of messages) {
      expect(message).not.toContain('never-shown')
    }
  })
})
