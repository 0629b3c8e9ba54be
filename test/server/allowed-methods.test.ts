import Fastify from 'fastify'
import t, { type Test } from 'tap'
import { allowedMethods } from '../../src/server/plugins/app/allowed-methods.js'

/** A Fastify app with routes of every kind, closed when the test ends. */
async function appWith (t: Test, routerOptions = {}) {
  const app = Fastify({ routerOptions })
  t.teardown(() => app.close())
  await app.register(allowedMethods, { routerOptions })
  app.get('/', () => 'home')
  app.post('/items', () => 'created')
  app.route({ method: ['GET', 'DELETE'], url: '/items/:id', handler: () => 'item' })
  app.get('/files/*', () => 'file')
  await app.register(async (scope) => { scope.put('/settings', () => 'saved') }, { prefix: '/account' })
  app.get('/versioned', { constraints: { version: '1.0.0' } }, () => 'v1')
  app.get('/versioned', { constraints: { version: '2.0.0' } }, () => 'v2')
  app.setNotFoundHandler((_request, reply) => { reply.code(404).header('x-no-route', 'true').send() })
  await app.ready()
  return app
}

t.test('an address the app has lists every method its routes take there, HEAD with GET', async (t) => {
  const app = await appWith(t)
  t.same(app.allowedMethods('/'), ['GET', 'HEAD'])
  t.same(app.allowedMethods('/items'), ['POST'])
  t.same(app.allowedMethods('/items/42'), ['DELETE', 'GET', 'HEAD'], 'parametric routes match by address')
  t.same(app.allowedMethods('/files/a/b.txt'), ['GET', 'HEAD'], 'and wildcards')
  t.same(app.allowedMethods('/account/settings'), ['PUT'], 'routes under a prefix')
  t.same(app.allowedMethods('/versioned'), ['GET', 'HEAD'], 'routes that differ only by constraints count once')
  t.same(app.allowedMethods('/items/42?expand=1'), ['DELETE', 'GET', 'HEAD'], 'the query is not part of the address')
})

t.test('an address the app does not have has no methods', async (t) => {
  const app = await appWith(t)
  for (const url of ['/nope', '/items/42/extra', '/account', '/settings', '/ITEMS']) t.same(app.allowedMethods(url), [], url)
})

t.test('it agrees with Fastify\'s router on every address and method, whatever the router options', async (t) => {
  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const
  const urls = ['/', '/items', '/items/', '/ITEMS', '/items/42', '/items/42/', '/items//42', '//items', '/files/', '/files/a/b',
    '/account/settings', '/account/settings/', '/versioned', '/nope', '/items/' + 'x'.repeat(150), '/items/%E2%9C%93']
  for (const options of [{}, { ignoreTrailingSlash: true }, { ignoreDuplicateSlashes: true }, { caseSensitive: false }, { maxParamLength: 200 }]) {
    const app = await appWith(t, options)
    for (const url of urls) {
      const allowed = app.allowedMethods(url)
      for (const method of methods) {
        const response = await app.inject({ method, url, headers: url === '/versioned' ? { 'accept-version': '1.0.0' } : {} })
        // A parameter over maxParamLength is refused (414) before the not-found handler could ask.
        if (response.statusCode === 414) continue
        const routed = response.headers['x-no-route'] === undefined
        t.equal(allowed.includes(method), routed, `${JSON.stringify(options)} ${method} ${url.slice(0, 30)}`)
      }
    }
  }
})
