import t from 'tap'
import { cookieAttributes } from '../../src/server/cookies/attributes.js'
import { FLASH_TOAST_COOKIE } from '../../src/server/cookies/flash-toast.js'
import { THEME_COOKIE_NAME } from '../../src/shared/theme.js'
import { build, setCookie } from '../helpers/app.js'

t.test('the app\'s cookie attributes: Path=/, HttpOnly, SameSite=Lax, and Secure only when asked', async (t) => {
  t.same(cookieAttributes({ secure: true }), { path: '/', httpOnly: true, sameSite: 'lax', secure: true })
  t.same(cookieAttributes({ secure: false }), { path: '/', httpOnly: true, sameSite: 'lax', secure: false })
  t.ok(Object.isFrozen(cookieAttributes({ secure: true })), 'no module can change them for the others')
})

for (const production of [true, false]) {
  t.test(`${production ? 'in production' : 'outside production'}, every cookie the app sets carries the same attributes`, async (t) => {
    const { app } = await build(t, {
      env: { NODE_ENV: production ? 'production' : 'test' },
      routes (scope) {
        scope.get('/test/cookies', (_request, reply) => {
          scope.themeCookie.write(reply, 'dark')
          scope.flashToasts.set(reply, { description: 'Saved.' })
          reply.setCookie('plain', 'yes')
          reply.send('ok')
        })
      }
    })
    t.equal(app.cookieAttributes.secure, production, 'Secure is decided once, by the environment')
    const response = await app.inject({ url: '/test/cookies', headers: { 'x-forwarded-proto': 'https' } })
    const expected = { path: '/', sameSite: 'Lax', ...(production ? { secure: true } : {}) }
    const flashName = production ? `__Host-${FLASH_TOAST_COOKIE}` : FLASH_TOAST_COOKIE
    t.match(setCookie(response, THEME_COOKIE_NAME), expected, 'the theme cookie')
    t.notOk(setCookie(response, THEME_COOKIE_NAME)?.httpOnly, 'the theme cookie alone is readable by the page')
    t.match(setCookie(response, flashName), { ...expected, httpOnly: true }, 'the flash toast')
    t.match(setCookie(response, 'plain'), { ...expected, httpOnly: true }, 'a cookie a route sets with no attributes of its own')
    if (!production) {
      for (const name of [THEME_COOKIE_NAME, flashName, 'plain']) t.notOk(setCookie(response, name)?.secure, `${name} is not Secure over http://localhost`)
    }
  })
}
