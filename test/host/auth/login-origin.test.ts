/*
 * The login's Origin check compares scheme, host and port with the service's public address
 * (DG_PANEL_URL): a page over http, on another port or another host cannot sign a browser in.
 */
import { expect, it } from 'vitest'

import { createTestUser } from '../../helpers/factories.js'
import { describeEachDatabase } from '../../helpers/test-app.js'

describeEachDatabase(
  'login origin against the public address',
  (env) => {
    it('accepts the public address only, whatever the Host header says', async () => {
      const { app, ctx } = env()
      const user = await createTestUser(ctx, 'administrator')
      const post = (origin: string, host = 'panel.example') =>
        app.inject({
          method: 'POST',
          url: '/wp-json/dg/v2/session',
          headers: { origin, host },
          payload: { login: user.login, password: user.loginPassword },
        })
      for (const origin of [
        'http://panel.example',
        'https://panel.example:8443',
        'https://other.example',
        'https://panel.example.attacker.example',
      ]) {
        const refused = await post(origin)
        expect(refused.statusCode, origin).toBe(403)
        expect(refused.json().code).toBe('rest_cross_origin_login')
        expect(refused.headers['set-cookie']).toBeUndefined()
      }
      // a Host header matching the page's origin does not make it the service's
      expect((await post('http://attacker.example', 'attacker.example')).statusCode).toBe(403)
      expect((await post('https://panel.example')).statusCode).toBe(200)
      expect((await post('https://panel.example:443')).statusCode).toBe(200)
    })
  },
  { env: { DG_PANEL_URL: 'https://panel.example/biuro' } },
)
