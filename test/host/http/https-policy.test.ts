import { expect, it } from 'vitest'

import { createTestUser, grantProLicense } from '../../helpers/factories.js'
import { describeEachDatabase } from '../../helpers/test-app.js'

const STATUS = '/wp-json/dg/v2/status'

describeEachDatabase(
  'HTTPS policy in production',
  (env) => {
    it('refuses plain HTTP with 403 rest_https_required, before authentication', async () => {
      const { app, ctx } = env()
      await grantProLicense(ctx)
      const admin = await createTestUser(ctx, 'administrator')
      const response = await app.inject({ method: 'GET', url: STATUS, headers: { authorization: admin.authorization } })
      expect(response.statusCode).toBe(403)
      expect(response.json()).toMatchObject({ code: 'rest_https_required', data: { status: 403 } })
    })

    it('ignores X-Forwarded-Proto from an address that is not a trusted proxy', async () => {
      const { app, ctx } = env()
      const admin = await createTestUser(ctx, 'administrator')
      const response = await app.inject({
        method: 'GET',
        url: STATUS,
        remoteAddress: '203.0.113.9',
        headers: { authorization: admin.authorization, 'x-forwarded-proto': 'https' },
      })
      expect(response.statusCode).toBe(403)
      expect(response.json().code).toBe('rest_https_required')
    })

    it('believes X-Forwarded-Proto from a trusted proxy', async () => {
      const { app, ctx } = env()
      await grantProLicense(ctx)
      const admin = await createTestUser(ctx, 'administrator')
      const response = await app.inject({
        method: 'GET',
        url: STATUS,
        remoteAddress: '10.1.2.3',
        headers: {
          authorization: admin.authorization,
          'x-forwarded-proto': 'https',
          'x-forwarded-for': '198.51.100.7',
        },
      })
      expect(response.statusCode).toBe(200)
    })
  },
  { env: { DG_ENV: 'production', DG_TRUSTED_PROXIES: '10.0.0.0/8' } },
)
