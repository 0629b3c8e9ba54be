import { createElement } from 'react'
import t, { type Test } from 'tap'
import { Type } from 'typebox'
import type { FastifyRequest } from 'fastify'
import { FLASH_TOAST_COOKIE } from '../../src/server/cookies/flash-toast.js'
import { speculationOf } from '../../src/server/http/speculation.js'
import { defineAction, defineLoader } from '../../src/server/screens/index.js'
import { loadScreens } from '../../src/server/screens/load-screens.js'
import * as SCREENS from '../../src/screens/index.js'
import { speculationRules, SPECULATE_ATTRIBUTE } from '../../src/shared/speculation-rules.js'
import { Await } from '../../src/ui/await.js'
import { defineScreen } from '../../src/ui/define-screen.js'
import { build, cacheOutcome, inlineScripts, pageData, setCookie, type BuildOptions } from '../helpers/app.js'
import { blockedInlineScripts } from '../helpers/csp.js'
import { scrape, valueOf } from '../helpers/metrics.js'
import { screen } from '../helpers/screens.js'

// Issue 26: Speculation Rules on every document, and speculative requests (Sec-Purpose) that never consume a
// flash toast nor change what the render cache keeps.

const HTML = { accept: 'text/html' }
const PREFETCH = { ...HTML, 'sec-purpose': 'prefetch' }
const PRERENDER = { ...HTML, 'sec-purpose': 'prefetch;prerender' }
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36'

/** The document's speculation rules script, parsed. */
function rulesScript (html: string) {
  const tag = /<script type="speculationrules"[^>]*>([\s\S]*?)<\/script>/.exec(html)
  if (!tag) return undefined
  return { rules: JSON.parse(tag[1] ?? '') as unknown }
}

t.test('the rules prerender same-origin links on hover, never /resources/*, a form action or a marked link', async (t) => {
  const rules = speculationRules(['/contact', '/things/:id/edit'])
  t.equal(rules.prerender.length, 1)
  t.equal(rules.prerender[0]?.eagerness, 'moderate', 'on hover or pointer-down')
  t.same(rules.prerender[0]?.where, {
    and: [
      { href_matches: '/*' },
      { not: { href_matches: '/resources/*' } },
      { not: { href_matches: '/contact{/}?' } },
      { not: { href_matches: '/things/:id/edit{/}?' } },
      { not: { selector_matches: `[${SPECULATE_ATTRIBUTE}]` } }
    ]
  })
  t.same(rules.prefetch, [{
    where: {
      and: [
        { href_matches: '/*' },
        { not: { href_matches: '/resources/*' } },
        { not: { href_matches: '/contact{/}?' } },
        { not: { href_matches: '/things/:id/edit{/}?' } },
        { selector_matches: `[${SPECULATE_ATTRIBUTE}="prefetch"]` }
      ]
    },
    eagerness: 'moderate'
  }], 'a link marked data-speculate="prefetch" is only prefetched')
  t.same(speculationRules(['/a', '/a']), speculationRules(['/a']), 'a path posted to twice is listed once')
})

t.test('every document carries the rules inline, allowed by its own response\'s policy, cached or not', async (t) => {
  // Forms post to their screen's path unless their action names another.
  const signUp = screen(defineScreen({ path: '/sign-up', component: () => null }), { action: defineAction({ schema: Type.Object({ name: Type.String() }), handle: () => {} }) })
  const feedback = screen(defineScreen({ path: '/feedback', component: () => null }), { action: defineAction({ path: '/feedback/send', schema: Type.Object({}), handle: () => {} }) })
  const { app } = await build(t, { screens: { 'sign-up': signUp, feedback } })
  // The app's own screens' forms come first (the examples' sign-up form while the registry lists it).
  const appFormActions = (await loadScreens(SCREENS)).forms.map((form) => form.path)
  const responses = [await app.inject({ url: '/', headers: HTML }), await app.inject({ url: '/', headers: HTML }), await app.inject({ url: '/', headers: HTML })]
  t.same(responses.map(cacheOutcome), ['miss', 'miss', 'hit'])
  for (const response of [...responses, await app.inject({ url: '/nowhere', headers: HTML })]) {
    const script = rulesScript(response.body)
    t.ok(script, 'the document has a speculationrules script')
    t.same(blockedInlineScripts(response.body, response.headers['content-security-policy']), [], cacheOutcome(response) === 'hit' ? 'kept: allowed by its hash' : 'allowed by this response\'s nonce')
    t.same(script?.rules, speculationRules([...appFormActions, '/sign-up', '/feedback/send']), 'naming where the screens\' forms post')
  }
  t.equal(inlineScripts(responses[2]!.body).filter((script) => script.body.includes('"prerender"')).length, 1, 'once')
})

/** An app, and the cookies of a visitor whose last action left a flash toast for the next page. */
async function withToastWaiting (t: Test, options: Omit<BuildOptions, 'routes'> = {}) {
  const { app, logs } = await build(t, {
    ...options,
    routes (app) {
      app.post('/test/act', async (_request, reply) => {
        app.flashToasts.set(reply, { id: 'saved', type: 'success', description: 'Saved.' })
        return reply.redirect('/', 303)
      })
    }
  })
  const action = await app.inject({ method: 'POST', url: '/test/act', headers: HTML })
  return { app, logs, cookies: { [FLASH_TOAST_COOKIE]: setCookie(action, FLASH_TOAST_COOKIE)?.value ?? '' } }
}

t.test('a speculative request for a page with a flash toast waiting is refused, and the toast kept for the visit', async (t) => {
  const { app, cookies } = await withToastWaiting(t)
  t.ok(cookies[FLASH_TOAST_COOKIE], 'the action set a toast')

  for (const headers of [PREFETCH, PRERENDER]) {
    const speculative = await app.inject({ url: '/', headers, cookies })
    t.equal(speculative.statusCode, 503, `${headers['sec-purpose']}: refused, so the browser drops it and asks again on the click`)
    t.equal(speculative.body, '', 'with no document')
    t.equal(speculative.headers['cache-control'], 'no-store')
    t.match(speculative.headers.vary, /Sec-Purpose/)
    t.equal(setCookie(speculative, FLASH_TOAST_COOKIE), undefined, 'the toast cookie is left alone')
  }
  const visit = await app.inject({ url: '/', headers: HTML, cookies })
  t.equal(visit.statusCode, 200)
  t.equal(pageData(visit.body).toast?.id, 'saved', 'the visit itself shows the toast')
  t.equal(setCookie(visit, FLASH_TOAST_COOKIE)?.value, '', 'and clears it')

  const noToast = await app.inject({ url: '/', headers: PRERENDER })
  t.equal(noToast.statusCode, 200, 'without a toast waiting, a prerender gets the page')
  t.equal(pageData(noToast.body).toast, null)
})

t.test('with a flash toast waiting, a speculative request answered with an error keeps its status and leaves the toast', async (t) => {
  const { app, cookies } = await withToastWaiting(t)
  const answers = {
    'a page that is not there': await app.inject({ url: '/nowhere', headers: PREFETCH, cookies }),
    'a theme the switch does not know': await app.inject({ method: 'POST', url: '/resources/theme-switch', headers: { ...PRERENDER, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'theme=purple', cookies })
  }
  t.same(Object.values(answers).map((response) => response.statusCode), [404, 400])
  for (const [kind, response] of Object.entries(answers)) {
    t.match(response.headers['content-type'], /^text\/html/, `${kind}: its page`)
    t.equal(pageData(response.body).toast, null, `${kind}: without the toast`)
    t.equal(setCookie(response, FLASH_TOAST_COOKIE), undefined, `${kind}: the toast cookie is left alone`)
  }
  const visit = await app.inject({ url: '/', headers: HTML, cookies })
  t.equal(pageData(visit.body).toast?.id, 'saved', 'the visit still shows the toast')
})
t.test('a speculative request whose loader sets a flash toast is refused, and sets none: the click sets it', async (t) => {
  // A private page redirecting a signed-out visitor, as a sign-in area does; prerendered on hover over a link to it.
  const account = screen(defineScreen({ path: '/account', component: () => null }), {
    loader: defineLoader<null>(({ request, reply }) => {
      request.server.flashToasts.set(reply, { id: 'sign-in', description: 'Sign in to see your account.' })
      return reply.redirect('/', 303)
    })
  })
  const { app } = await build(t, { screens: { account } })
  for (const headers of [PREFETCH, PRERENDER]) {
    const speculative = await app.inject({ url: '/account', headers })
    t.equal(speculative.statusCode, 503, `${headers['sec-purpose']}: refused, so the browser drops it and asks again on the click`)
    t.equal(speculative.body, '')
    t.equal(speculative.headers.location, undefined, 'not followed')
    t.equal(speculative.headers['cache-control'], 'no-store')
    t.equal(setCookie(speculative, FLASH_TOAST_COOKIE), undefined, 'no toast for whatever page comes next')
  }
  const click = await app.inject({ url: '/account', headers: HTML })
  t.equal(click.statusCode, 303)
  t.equal(click.headers.location, '/')
  t.ok(setCookie(click, FLASH_TOAST_COOKIE)?.value, 'the visit itself sets the toast')
})

t.test('a refused speculation of a page that defers data is refused before any render, and its deferred work stopped', async (t) => {
  // The private page again, streamed: its signed-in part never settles unless its signal stops it.
  let renders = 0
  const signals: AbortSignal[] = []
  const account = screen(defineScreen<{ orders: Promise<string> }>({
    path: '/account',
    component: ({ data }) => {
      renders++
      return createElement(Await<string>, { resolve: data.orders, fallback: 'Loading…', error: (message) => message, children: (orders) => orders })
    }
  }), {
    loader: defineLoader<{ orders: Promise<string> }>(({ request, reply, url, signal }) => {
      signals.push(signal)
      if (url.searchParams.has('signed-out')) request.server.flashToasts.set(reply, { id: 'sign-in', description: 'Sign in to see your account.' })
      return { orders: new Promise<string>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))) }
    })
  })
  const { app, logs, cookies } = await withToastWaiting(t, { screens: { account } })
  // A browser that runs scripts (a hint cookie), so the document would be streamed: its refusal used to leave at once
  // and the render run on, the time limit released with the response; a bot's waited for that limit (10 s).
  const browser = { ...PRERENDER, 'user-agent': BROWSER }
  const hint = { 'CH-prefers-color-scheme': 'light' }
  const cases = {
    'its loader set a toast, streamed': () => app.inject({ url: '/account?signed-out', headers: browser, cookies: hint }),
    'its loader set a toast, for a bot': () => app.inject({ url: '/account?signed-out', headers: PRERENDER }),
    'a toast is waiting': () => app.inject({ url: '/account', headers: browser, cookies: { ...cookies, ...hint } })
  }
  for (const [name, ask] of Object.entries(cases)) {
    await t.test(name, async (t) => {
      const speculative = await ask()
      t.equal(speculative.statusCode, 503)
      t.equal(speculative.body, '')
      t.equal(setCookie(speculative, FLASH_TOAST_COOKIE), undefined, 'no toast set or spent')
      t.match((signals.at(-1)?.reason as Error | undefined)?.message, /speculation was refused/, 'the loader\'s signal fired as it was refused')
    })
  }
  t.equal(renders, 0, 'the page was never rendered')
  t.same(logs.filter((entry) => entry.level >= 40).map((entry) => entry.msg), [], 'nothing warned of or logged as an error')
})

t.test('speculative requests never change what the render cache keeps', async (t) => {
  const { app } = await build(t)
  const speculated = [await app.inject({ url: '/', headers: PRERENDER }), await app.inject({ url: '/', headers: PREFETCH })]
  t.same(speculated.map(cacheOutcome), ['bypass', 'bypass'], 'rendered, never kept')
  t.equal(app.renderCache.size, 0)
  // Had the speculations counted as sightings, the first visit would have been kept and the second a hit.
  const visits = [await app.inject({ url: '/', headers: HTML }), await app.inject({ url: '/', headers: HTML }), await app.inject({ url: '/', headers: HTML })]
  t.same(visits.map(cacheOutcome), ['miss', 'miss', 'hit'], 'visits are kept on their own second sighting, as without speculation')

  const before = app.renderCache.stats
  const hit = await app.inject({ url: '/', headers: PRERENDER })
  t.equal(cacheOutcome(hit), 'hit', 'a speculation is served a kept document')
  t.same(app.renderCache.stats, before, 'without counting a hit or refreshing its place')
})

t.test('Sec-Purpose: a prefetch is a prerender when its boolean parameter says so, bare or ?1, never ?0', async (t) => {
  const purposeOf = (header?: string | string[]) => speculationOf({ headers: { 'sec-purpose': header } } as unknown as FastifyRequest)
  t.equal(purposeOf('prefetch;prerender'), 'prerender', 'bare')
  t.equal(purposeOf('prefetch; prerender=?1'), 'prerender', 'true, written out (RFC 8941 3.3.6)')
  t.equal(purposeOf('prefetch;prerender=?0'), 'prefetch', 'false')
  t.equal(purposeOf('prefetch;anonymous-client-ip'), 'prefetch')
  t.equal(purposeOf('prerender'), 'none', 'a parameter is no purpose of its own')
  t.equal(purposeOf(undefined), 'none')
  t.equal(purposeOf(['prefetch', 'prefetch']), 'none', 'a repeated header is not read')
})

t.test('speculative requests are counted apart in the metrics', async (t) => {
  const { app } = await build(t, { env: { METRICS_PORT: '0' } })
  await app.inject({ url: '/', headers: HTML })
  await app.inject({ url: '/', headers: PRERENDER })
  await app.inject({ url: '/', headers: PRERENDER })
  await app.inject({ url: '/', headers: PREFETCH })
  await app.inject({ url: '/', headers: { ...HTML, 'sec-purpose': 'prefetch;anonymous-client-ip' } })
  await app.inject({ url: '/', headers: { ...HTML, 'sec-purpose': 'prefetch;prerender=?0' } })
  await app.inject({ url: '/', headers: { ...HTML, 'sec-purpose': 'something-else' } })
  const samples = await scrape(app)
  const count = (speculation: string) => valueOf(samples, 'http_request_duration_seconds_count', { route: '/', speculation })
  t.equal(count('none'), 2, 'a visitor\'s requests, and any other purpose')
  t.equal(count('prerender'), 2)
  t.equal(count('prefetch'), 3, 'a prefetch, whatever its other parameters')
})
