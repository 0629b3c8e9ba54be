import type { Output } from '@mdn/mdn-http-observatory/src/types.js'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import t from 'tap'
import { FLASH_TOAST_COOKIE } from '../../src/server/cookies/flash-toast.js'
import { THEME_COOKIE_NAME } from '../../src/shared/theme.js'
import { THEME_SWITCH_PATH } from '../../src/shared/theme.js'
import { build } from '../helpers/app.js'
import { blockedInlineScripts } from '../helpers/csp.js'
import { loadObservatory, PUBLIC_HOST, PUBLIC_ORIGIN, retrieveFromApp, saveCookies } from '../helpers/observatory.js'

/**
 * Issue 6: the security headers, graded by the MDN HTTP Observatory's own
 * tests and grader (test/helpers/observatory.ts), then checked one by one on
 * every kind of response: the document, the 404 document, the health check
 * and static files.
 */

/**
 * What each of the observatory's tests must find on the production front
 * page. Exact results, not just passes: a CSP that slid from "no unsafe" to
 * "unsafe-inline in style-src only" still passes but is a regression.
 */
const EXPECTED_RESULTS = {
  'content-security-policy': 'csp-implemented-with-no-unsafe',
  // The front page sets no cookie; the cookies the app does set are graded below.
  cookies: 'cookies-not-found',
  // No Access-Control-Allow-Origin anywhere: other origins cannot read our responses.
  'cross-origin-resource-sharing': 'cross-origin-resource-sharing-not-implemented',
  redirection: 'redirection-not-needed-no-http',
  'referrer-policy': 'referrer-policy-private',
  // Not `hsts-preloaded`: that needs the real domain on Chromium's list, a deployment matter.
  'strict-transport-security': 'hsts-implemented-max-age-at-least-six-months',
  // Every script is ours, same origin: integrity attributes would add nothing.
  'subresource-integrity': 'sri-not-implemented-but-all-scripts-loaded-from-secure-origin',
  'x-content-type-options': 'x-content-type-options-nosniff',
  'x-frame-options': 'x-frame-options-implemented-via-csp',
  'cross-origin-resource-policy': 'corp-implemented-with-same-origin'
}

/**
 * Tests that are not the app's to pass, with the reason. The observatory
 * counts them as passed; they prove nothing about the app.
 */
const NOT_APPLICABLE: Record<string, string> = {
  redirection: 'plain HTTP (port 80) and its redirect to HTTPS are served by the TLS-terminating proxy, never by the app'
}

/** 100, +5 CSP without unsafe sources, +5 private referrer policy, +5 frame-ancestors, +10 CORP same-origin. */
const EXPECTED_SCORE = 125

/** Production with the tracker on widens connect-src and worker-src: graded too. */
const PRODUCTION: Record<string, { env: Record<string, string>, connectSrc: string[] }> = {
  'tracker off': { env: { NODE_ENV: 'production' }, connectSrc: ["'self'"] },
  'tracker on': {
    env: { NODE_ENV: 'production', OPENREPLAY_PROJECT_KEY: 'observatory-project', OPENREPLAY_INGEST_POINT: 'https://openreplay.example.com/ingest' },
    connectSrc: ["'self'", 'https://openreplay.example.com']
  }
}

const testName = (output: Output) => (output.constructor as { name: string }).name
const described = (output: Output) => `${testName(output)}: ${output.result}`
const failures = (outputs: Output[]) => outputs.filter((output) => !output.pass && !(testName(output) in NOT_APPLICABLE)).map(described)

for (const [name, { env, connectSrc }] of Object.entries(PRODUCTION)) {
  t.test(`production (${name}), as served over HTTPS: the observatory grades it A+ and every applicable test passes`, async (t) => {
    const { app } = await build(t, { env })
    const observatory = await loadObservatory(t)
    const { scan, tests } = await observatory.scan(await retrieveFromApp(app))
    const outputs = Object.values(tests)
    t.comment(`grade ${scan.grade}, score ${scan.score}\n${outputs.map(described).join('\n')}`)

    t.same(directives(scan.responseHeaders['content-security-policy']).get('connect-src'), connectSrc, `graded with the tracker ${name.split(' ')[1]}`)
    t.equal(scan.grade, 'A+', 'grade')
    t.equal(scan.score, EXPECTED_SCORE, 'score')
    t.same(Object.fromEntries(outputs.map((output) => [testName(output), output.result])), EXPECTED_RESULTS, 'each test finds what it should')
    t.same(failures(outputs), [], 'every applicable test passes')
    t.equal(scan.testsFailed, 0)
  })
}

t.test('the observatory\'s tests also pass on the 404 document, the health check and static files', async (t) => {
  const { app } = await build(t, { env: PRODUCTION['tracker off']!.env })
  const observatory = await loadObservatory(t)
  const stylesheet = await stylesheetPath(app)
  for (const path of ['/no-such-page', '/resources/healthcheck', stylesheet, '/favicon.svg']) {
    const requests = await retrieveFromApp(app, path)
    t.same(failures(observatory.runAllTests(requests)), [], `every applicable test passes on ${path} (${requests.responses.auto?.status})`)
  }
})

t.test('the cookies the app sets pass the observatory\'s cookie test, with SameSite', async (t) => {
  const { app } = await build(t, {
    env: PRODUCTION['tracker off']!.env,
    // A form action's flash toast, set as production routes set it.
    routes (app) {
      app.get('/test/flash', async (_request, reply) => {
        app.flashToasts.set(reply, { description: 'Saved.' })
        return reply.redirect('/', 303)
      })
    }
  })
  const observatory = await loadObservatory(t)
  const requests = await retrieveFromApp(app)
  const jar = requests.session!.jar
  const proxied = { host: PUBLIC_HOST, 'x-forwarded-proto': 'https' }
  const themeSwitch = new URL(THEME_SWITCH_PATH, PUBLIC_ORIGIN)
  saveCookies(jar, await app.inject({
    method: 'POST',
    url: themeSwitch.pathname,
    headers: { ...proxied, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    payload: 'theme=dark'
  }), themeSwitch)
  const flash = new URL('/test/flash', PUBLIC_ORIGIN)
  saveCookies(jar, await app.inject({ url: flash.pathname, headers: proxied }), flash)
  t.same(jar.getCookiesSync(PUBLIC_ORIGIN).map((cookie) => cookie.key).sort(), [THEME_COOKIE_NAME, `__Host-${FLASH_TOAST_COOKIE}`].sort(), 'the session holds both cookies, the toast under its __Host- name')

  const result = observatory.cookiesTest(requests)
  t.equal(result.result, 'cookies-secure-with-httponly-sessions-and-samesite', JSON.stringify(result.data))
  t.ok(result.pass)
})

/** The directives of a Content-Security-Policy header, by name. */
function directives (header: unknown): Map<string, string[]> {
  if (typeof header !== 'string') throw new Error(`no Content-Security-Policy header (got ${String(header)})`)
  return new Map(header.split(';').map((directive) => directive.trim().split(/\s+/)).filter(([name]) => name).map(([name = '', ...sources]) => [name, sources]))
}

/** The nonce of a source list, or undefined; 128 bits at least (22 base64url characters). */
function nonceOf (sources: string[] | undefined): string | undefined {
  return sources?.map((source) => /^'nonce-([A-Za-z0-9_-]{22,})'$/.exec(source)?.[1]).find(Boolean)
}

async function stylesheetPath (app: FastifyInstance): Promise<string> {
  const page = await app.inject({ url: '/', headers: { accept: 'text/html' } })
  const href = /<link rel="stylesheet" href="([^"]+)"/.exec(page.body)?.[1]
  if (!href) throw new Error('the document links no stylesheet')
  return href
}

const HSTS = 'max-age=63072000; includeSubDomains; preload'
const DENIED_FEATURES = ['camera', 'microphone', 'geolocation', 'payment', 'usb', 'serial', 'hid', 'midi', 'display-capture']

for (const mode of ['production', 'development', 'test']) {
  t.test(`${mode}: the headers on the document, the 404 document and static files`, async (t) => {
    const production = mode === 'production'
    const { app } = await build(t, { env: { NODE_ENV: mode } })
    const responses: Record<string, LightMyRequestResponse> = {}
    for (const [kind, url] of Object.entries({
      document: '/',
      'another document': '/',
      '404 document': '/no-such-page',
      stylesheet: await stylesheetPath(app),
      'static file': '/favicon.svg'
    })) {
      responses[kind] = await app.inject({ url, headers: { accept: 'text/html' } })
    }
    t.equal(responses['404 document']?.statusCode, 404)

    const scriptNonces: string[] = []
    for (const [kind, response] of Object.entries(responses)) {
      await t.test(kind, async (t) => {
        const csp = directives(response.headers['content-security-policy'])
        t.same(csp.get('object-src'), ["'none'"], 'object-src \'none\': no plugins')
        t.same(csp.get('base-uri'), ["'none'"], 'base-uri \'none\': no <base> to redirect relative URLs')
        t.same(csp.get('frame-ancestors'), ["'none'"], 'frame-ancestors \'none\': no framing')
        t.same(csp.get('form-action'), ["'self'"])
        const unsafe = ["'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'", '*', 'data:', 'http:', 'https:']
        const scriptSources = csp.get('script-src') ?? []
        if (kind.endsWith('document')) {
          const nonce = nonceOf(scriptSources)
          const hashes = scriptSources.filter((source) => /^'sha256-[A-Za-z0-9+/]{43}='$/.test(source))
          // The first document of '/' was rendered (a nonce); the next is the same one, kept (its scripts' hashes).
          t.ok(kind === 'another document' ? !nonce && hashes.length > 0 : nonce && hashes.length === 0, `${kind === 'another document' ? 'kept, so hash-based' : 'rendered, so nonce-based'}: ${scriptSources.join(' ')}`)
          if (nonce) scriptNonces.push(nonce)
        } else {
          t.same(scriptSources, ["'self'"], 'no inline script to allow, so no nonce: scripts from our origin only')
        }
        t.notOk(scriptSources.some((source) => unsafe.includes(source)), 'script-src allows nothing unsafe')
        // The document has no inline style at all (sonner's injection is turned off), so no nonce either.
        t.same(csp.get('style-src'), ["'self'"], 'style-src: our own stylesheets only')
        t.equal(csp.has('upgrade-insecure-requests'), production, 'upgrade-insecure-requests in production only')

        t.equal(response.headers['x-content-type-options'], 'nosniff')
        t.equal(response.headers['referrer-policy'], 'strict-origin-when-cross-origin')
        t.equal(response.headers['cross-origin-opener-policy'], 'same-origin')
        t.equal(response.headers['cross-origin-resource-policy'], 'same-origin')
        t.equal(response.headers['x-frame-options'], 'DENY', 'for browsers without frame-ancestors, the same answer')
        const denied = String(response.headers['permissions-policy']).split(', ').filter((feature) => feature.endsWith('=()')).map((feature) => feature.slice(0, -3))
        t.same(DENIED_FEATURES.filter((feature) => !denied.includes(feature)), [], 'no powerful feature the shell does not use: camera, microphone, location, payment, devices')
        t.equal(response.headers['strict-transport-security'], production ? HSTS : undefined, production ? 'HSTS, two years, preload-ready' : 'no HSTS outside production: it would pin a developer\'s localhost to HTTPS')

        if (kind.endsWith('document')) {
          t.match(response.headers['content-type'], /^text\/html/)
          const scripts = [...response.body.matchAll(/<script\b([^>]*)>/g)].map(([, attributes = '']) => /\snonce="([^"]*)"/.exec(attributes)?.[1])
          t.ok(scripts.length >= 2, `the inline page data and the entry module at least (${scripts.length} scripts)`)
          t.same(scripts.filter((nonce) => nonce !== nonceOf(csp.get('script-src'))), [], 'every <script> carries this response\'s nonce, or none when it has none')
          t.same(blockedInlineScripts(response.body, response.headers['content-security-policy']), [], 'every inline script is allowed')
        }
      })
    }
    t.equal(scriptNonces.length, 2, 'every document rendered has a nonce')
    t.equal(new Set(scriptNonces).size, scriptNonces.length, 'a fresh nonce for every document rendered')
  })
}

/** Headers that only a document a browser renders reads. */
const DOCUMENT_ONLY = ['cross-origin-opener-policy', 'cross-origin-resource-policy', 'origin-agent-cluster', 'permissions-policy', 'referrer-policy', 'reporting-endpoints', 'content-security-policy-report-only', 'x-dns-prefetch-control', 'x-permitted-cross-domain-policies']

for (const production of [true, false]) {
  t.test(`${production ? 'production' : 'development'}: the probes and the theme switch's redirect and JSON carry what an answer that is not a document needs, not the documents' headers`, async (t) => {
    const { app } = await build(t, { env: { NODE_ENV: production ? 'production' : 'development' } })
    await app.ready()
    const answers: Array<[string, LightMyRequestResponse]> = [
      ['health check', await app.inject({ url: '/resources/healthcheck', headers: { accept: 'text/html' } })],
      ['readiness', await app.inject({ method: 'HEAD', url: '/resources/readiness' })],
      ['theme switch, a form', await app.inject({ method: 'POST', url: THEME_SWITCH_PATH, headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' }, payload: 'theme=dark' })],
      ['theme switch, JSON', await app.inject({ method: 'POST', url: THEME_SWITCH_PATH, headers: { accept: 'application/json' }, payload: { theme: 'dark' } })],
      ['theme switch, JSON refused', await app.inject({ method: 'POST', url: THEME_SWITCH_PATH, headers: { accept: 'application/json' }, payload: { theme: 'sepia' } })]
    ]
    const drained = app.drain({ delayMs: 200, idleGraceMs: 0 })
    answers.push(['readiness while draining', await app.inject({ url: '/resources/readiness' })])
    await drained
    t.same(answers.map(([, response]) => response.statusCode), [200, 200, 303, 200, 400, 503])
    for (const [kind, response] of answers) {
      t.same(Object.fromEntries(directives(response.headers['content-security-policy'])), { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] }, `${kind}: nothing loads in it, nothing frames it`)
      t.equal(response.headers['x-content-type-options'], 'nosniff', `${kind}: never sniffed as something else`)
      t.equal(response.headers['x-frame-options'], 'DENY', kind)
      t.equal(response.headers['strict-transport-security'], production ? HSTS : undefined, kind)
      t.same(DOCUMENT_ONLY.filter((name) => name in response.headers), [], `${kind}: none of the documents' own`)
    }
  })
}

t.test('a page that a route of answers sends after all (the theme switch refusing a browser) carries the documents\' headers and allows its scripts', async (t) => {
  const { app } = await build(t, { env: { NODE_ENV: 'production' } })
  const refuse = () => app.inject({ method: 'POST', url: THEME_SWITCH_PATH, headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' }, payload: 'theme=sepia' })
  // The cache keeps a page from its second request: the third is the same page, kept, allowing its scripts by hash.
  const refusals = [await refuse(), await refuse(), await refuse()]
  t.ok(nonceOf(directives(refusals[0]!.headers['content-security-policy']).get('script-src')), 'the first rendered, with a nonce')
  t.notOk(nonceOf(directives(refusals[2]!.headers['content-security-policy']).get('script-src')), 'the third kept, without one')
  for (const [kind, refusal] of [['rendered', refusals[0]!], ['kept', refusals[2]!]] as const) {
    t.equal(refusal.statusCode, 400, kind)
    t.match(refusal.headers['content-type'], /^text\/html/, kind)
    t.match(refusal.body, /The theme must be one of system, light or dark/, kind)
    const csp = directives(refusal.headers['content-security-policy'])
    t.same(csp.get('object-src'), ["'none'"], `${kind}: the documents' policy, not the answers' default-src 'none'`)
    t.same(blockedInlineScripts(refusal.body, refusal.headers['content-security-policy']), [], `${kind}: every inline script is allowed (${csp.get('script-src')?.join(' ')})`)
    t.same(DOCUMENT_ONLY.filter((name) => !(name in refusal.headers)), [], `${kind}: every header a document has`)
    t.equal(refusal.headers['strict-transport-security'], HSTS, kind)
  }
})

t.test('every error answer carries the security headers, those sent before any hook included: a malformed address, shed load, a refused report', async (t) => {
  const { app } = await build(t, { env: { NODE_ENV: 'production', LOAD_SHEDDING_DELAY_MS: '0' } })
  const answers: Record<string, LightMyRequestResponse> = {
    'malformed address (400)': await app.inject({ url: '/%E0%A4%A', headers: { accept: 'text/html' } }),
    'malformed address, JSON (400)': await app.inject({ url: '/bad%', headers: { accept: 'application/json' } }),
    'method not allowed (405)': await app.inject({ method: 'DELETE', url: '/', headers: { accept: 'text/html' } }),
    'method not allowed at a probe (405)': await app.inject({ method: 'DELETE', url: '/resources/healthcheck', headers: { accept: 'text/html' } }),
    'report of another type (415)': await app.inject({ method: 'POST', url: '/resources/csp-report', headers: { 'content-type': 'text/plain' }, payload: 'x' })
  }
  for (const [kind, response] of Object.entries(answers)) {
    t.ok(response.statusCode >= 400 && response.statusCode < 500, `${kind}: ${response.statusCode}`)
    t.equal(response.headers['x-content-type-options'], 'nosniff', kind)
    t.equal(response.headers['x-frame-options'], 'DENY', kind)
    t.equal(response.headers['referrer-policy'], 'strict-origin-when-cross-origin', kind)
    t.equal(response.headers['cross-origin-opener-policy'], 'same-origin', kind)
    t.equal(response.headers['cross-origin-resource-policy'], 'same-origin', kind)
    t.equal(response.headers['strict-transport-security'], HSTS, kind)
    t.same(directives(response.headers['content-security-policy']).get('frame-ancestors'), ["'none'"], kind)
  }
})
