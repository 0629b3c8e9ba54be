import t from 'tap'
import { PLAIN_HTTP_WARNING } from '../../src/server/plugins/app/plain-http-warning.js'
import { THEME_COOKIE_NAME } from '../../src/shared/theme.js'
import { build, setCookie } from '../helpers/app.js'

/** What a TLS-terminating proxy at 10.0.0.5 adds to a visitor's request for https://agent-stack.example. */
const FORWARDED = {
  host: 'app.internal:3000',
  'x-forwarded-for': '203.0.113.7, 198.51.100.2',
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'agent-stack.example'
}
const PROXY = '10.0.0.5'

/** An app with a route that tells what the request looks like to the app. */
async function seen (test: Parameters<typeof build>[0], env: Record<string, string>) {
  const { app, logs } = await build(test, {
    env,
    routes (scope) {
      scope.get('/test/seen', async (request) => ({ ip: request.ip, protocol: request.protocol, host: request.host }))
    }
  })
  const look = async (remoteAddress: string, headers: Record<string, string> = FORWARDED) =>
    (await app.inject({ url: '/test/seen', remoteAddress, headers })).json()
  return { app, logs, look }
}

t.test('TRUST_PROXY off (the default): X-Forwarded-* is ignored, whoever sends it', async (t) => {
  const { look } = await seen(t, {})
  t.same(await look(PROXY), { ip: PROXY, protocol: 'http', host: 'app.internal:3000' })
})

t.test('TRUST_PROXY with the proxy\'s address or range: believed from that proxy only', async (t) => {
  for (const setting of [PROXY, '10.0.0.0/24', `192.0.2.1, ${PROXY}`]) {
    const { look } = await seen(t, { TRUST_PROXY: setting })
    t.same(await look(PROXY), { ip: '198.51.100.2', protocol: 'https', host: 'agent-stack.example' }, `${setting}: the proxy's word`)
    t.same(await look('10.0.1.5'), { ip: '10.0.1.5', protocol: 'http', host: 'app.internal:3000' }, `${setting}: a client that forges the headers is not believed`)
  }
})

t.test('TRUST_PROXY as a hop count believes that many proxies in front, whoever they are', async (t) => {
  const one = await seen(t, { TRUST_PROXY: '1' })
  t.same(await one.look(PROXY), { ip: '198.51.100.2', protocol: 'https', host: 'agent-stack.example' }, 'one hop: the address the proxy saw')
  const two = await seen(t, { TRUST_PROXY: '2' })
  t.equal((await two.look(PROXY)).ip, '203.0.113.7', 'two hops: the address the first of two proxies saw')
})

t.test('TRUST_PROXY=true believes every hop: the first address given is the client', async (t) => {
  const { look } = await seen(t, { TRUST_PROXY: 'true' })
  t.same(await look(PROXY), { ip: '203.0.113.7', protocol: 'https', host: 'agent-stack.example' })
})

t.test('behind a TLS-terminating proxy, an honest form is accepted only when the proxy is trusted, and its cookie is Secure', async (t) => {
  const browser = { origin: 'https://agent-stack.example', 'sec-fetch-site': 'same-origin', host: 'agent-stack.example', 'x-forwarded-proto': 'https' }
  const switchTheme = (app: Awaited<ReturnType<typeof build>>['app'], headers: Record<string, string>) => app.inject({
    method: 'POST',
    url: '/resources/theme-switch',
    remoteAddress: PROXY,
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'theme=dark&redirectTo=%2F'
  })

  const trusted = await build(t, { env: { NODE_ENV: 'production', TRUST_PROXY: PROXY } })
  const accepted = await switchTheme(trusted.app, browser)
  t.equal(accepted.statusCode, 303, 'accepted: the browser\'s https origin is this request\'s')
  t.match(setCookie(accepted, THEME_COOKIE_NAME), { value: 'dark', secure: true }, 'with a Secure cookie, which the browser keeps over https')
  const downgraded = await switchTheme(trusted.app, { ...browser, origin: 'http://agent-stack.example' })
  t.equal(downgraded.statusCode, 403, 'the http page of the same host is another origin')
  const plain = await switchTheme(trusted.app, { ...browser, 'x-forwarded-proto': 'http' })
  t.equal(plain.statusCode, 403, 'and an https page posting to the http site is too')

  const untrusted = await build(t, { env: { NODE_ENV: 'production' } })
  const refused = await switchTheme(untrusted.app, browser)
  t.equal(refused.statusCode, 403, 'without TRUST_PROXY the app sees plain http, so the https origin is another site\'s')
  t.match(refused.body, /came from another site/)
})

t.test('a production instance that sees plain http says once why its pages will break', async (t) => {
  const direct = await build(t, { env: { NODE_ENV: 'production' } })
  await direct.app.inject({ url: '/resources/healthcheck' })
  await direct.app.inject({ url: '/resources/readiness' })
  t.equal(direct.logs.filter((line) => line.msg === PLAIN_HTTP_WARNING).length, 0, 'not for health probes, which orchestrators send over plain http')
  await direct.app.inject({ url: '/', headers: { accept: 'text/html' } })
  await direct.app.inject({ url: '/', headers: { accept: 'text/html' } })
  const warnings = direct.logs.filter((line) => line.msg === PLAIN_HTTP_WARNING)
  t.equal(warnings.length, 1, 'one warning, not one per request')
  t.match(warnings[0], { level: 40, protocol: 'http' })
  t.match(PLAIN_HTTP_WARNING, /unstyled and never hydrate/)
  t.match(PLAIN_HTTP_WARNING, /TRUST_PROXY/)

  const proxied = await build(t, { env: { NODE_ENV: 'production', TRUST_PROXY: PROXY } })
  await proxied.app.inject({ url: '/', remoteAddress: PROXY, headers: { ...FORWARDED, accept: 'text/html' } })
  t.equal(proxied.logs.filter((line) => line.msg === PLAIN_HTTP_WARNING).length, 0, 'not behind a trusted proxy that says https')
  await proxied.app.inject({ url: '/', remoteAddress: PROXY, headers: { ...FORWARDED, 'x-forwarded-proto': 'http', accept: 'text/html' } })
  t.equal(proxied.logs.filter((line) => line.msg === PLAIN_HTTP_WARNING).length, 1, 'but when that proxy says plain http')

  const development = await build(t, {})
  await development.app.inject({ url: '/', headers: { accept: 'text/html' } })
  t.equal(development.logs.filter((line) => line.msg === PLAIN_HTTP_WARNING).length, 0, 'never outside production, where http is normal')
})
