import type { LightMyRequestResponse } from 'fastify'
import t from 'tap'
import type { HintCheckInput } from '../../src/shared/hint-check-script.js'
import { THEME_COLORS } from '../../src/shared/theme.js'
import { build, inlineScripts, pageData } from '../helpers/app.js'

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'

function get (app: Awaited<ReturnType<typeof build>>['app'], headers: Record<string, string> = {}, url = '/') {
  return app.inject({ url, headers: { accept: 'text/html', 'user-agent': BROWSER, ...headers } })
}

/** The opening <html> tag's theme attributes. */
function root (response: LightMyRequestResponse) {
  const tag = /<html[^>]*>/.exec(response.body)?.[0] ?? ''
  return { className: /class="([^"]*)"/.exec(tag)?.[1], source: /data-theme-source="([^"]*)"/.exec(tag)?.[1] }
}

/** What the check script was told the server rendered with. */
function checkInput (response: LightMyRequestResponse): HintCheckInput & Record<string, unknown> {
  const script = inlineScripts(response.body).find(({ body }) => body.includes('prefers-color-scheme'))
  const json = script && /\}\)\((\{.*\})\)$/.exec(script.body)?.[1]
  if (!json) throw new Error('no client-hint check script')
  return JSON.parse(json)
}

function themeColors (response: LightMyRequestResponse): string[] {
  return [...response.body.matchAll(/<meta name="theme-color"[^>]*>/g)].map(([tag]) => tag)
}

t.test('the saved preference decides the class, whatever the hints say', async (t) => {
  const { app } = await build(t)
  const cases: Array<[string, string, string]> = [
    ['en_theme=dark', 'dark', 'saved'],
    ['en_theme=light; CH-prefers-color-scheme=dark', 'light', 'saved'],
    ['en_theme=dark; CH-prefers-color-scheme=light', 'dark', 'saved'],
    ['en_theme=system; CH-prefers-color-scheme=dark', 'dark', 'hint'],
    ['en_theme=purple; CH-prefers-color-scheme=dark', 'dark', 'hint'],
    ['CH-prefers-color-scheme=dark', 'dark', 'hint'],
    ['CH-prefers-color-scheme=light', 'light', 'hint']
  ]
  for (const [cookie, className, source] of cases) {
    const response = await get(app, { cookie })
    t.same(root(response), { className, source }, cookie)
    const color = THEME_COLORS[className as 'light' | 'dark']
    t.same(themeColors(response), [
      `<meta name="theme-color" media="(prefers-color-scheme: light)" content="${color}"/>`,
      `<meta name="theme-color" media="(prefers-color-scheme: dark)" content="${color}"/>`
    ], `${cookie}: theme-color follows, whatever the OS scheme`)
  }
  t.equal(pageData((await get(app, { cookie: 'en_theme=dark' })).body).requestInfo.userPrefs.theme, 'dark', 'the page data carries the preference')
})

t.test('with no preference and no hint cookie, the Sec-CH-Prefers-Color-Scheme header chooses the class', async (t) => {
  const { app } = await build(t)
  const dark = await get(app, { 'sec-ch-prefers-color-scheme': '"dark"' })
  t.same(root(dark), { className: 'dark', source: 'hint' })
  t.same(pageData(dark.body).requestInfo.hintSources, { theme: 'header', timeZone: 'fallback' })
  t.same(root(await get(app, { 'sec-ch-prefers-color-scheme': '"light"' })), { className: 'light', source: 'hint' })
  t.same(root(await get(app, { 'sec-ch-prefers-color-scheme': '"dark"', cookie: 'CH-prefers-color-scheme=light' })), { className: 'dark', source: 'hint' },
    'the live header beats a hint cookie from an earlier visit')
  t.same(root(await get(app, { 'sec-ch-prefers-color-scheme': '"dark"', cookie: 'en_theme=light' })), { className: 'light', source: 'saved' },
    'but never a saved preference')
  t.same(root(await get(app, { 'sec-ch-prefers-color-scheme': '"sepia"' })), { className: 'light', source: 'fallback' }, 'a value we do not know is ignored')
})

t.test('knowing nothing, the page is marked as the fallback so the stylesheet follows the OS scheme', async (t) => {
  const { app } = await build(t)
  const response = await get(app)
  t.same(root(response), { className: 'light', source: 'fallback' })
  t.same(themeColors(response), [
    `<meta name="theme-color" media="(prefers-color-scheme: light)" content="${THEME_COLORS.light}"/>`,
    `<meta name="theme-color" media="(prefers-color-scheme: dark)" content="${THEME_COLORS.dark}"/>`
  ], 'theme-color per OS scheme, as the browser picks by media')
  t.same(pageData(response.body).requestInfo.hints, { theme: 'light', timeZone: 'UTC' })
  t.same(pageData(response.body).requestInfo.hintSources, { theme: 'fallback', timeZone: 'fallback' })
})

t.test('HTML responses advertise the hint and are never shared between visitors', async (t) => {
  const { app } = await build(t)
  const responses = {
    home: await get(app),
    'not found': await get(app, {}, '/no-such-page'),
    'bad request': await app.inject({ method: 'POST', url: '/resources/theme-switch', headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' }, payload: 'theme=purple' })
  }
  for (const [name, response] of Object.entries(responses)) {
    t.equal(response.headers['accept-ch'], 'Sec-CH-Prefers-Color-Scheme', `${name}: Accept-CH`)
    t.equal(response.headers['critical-ch'], undefined, `${name}: no Critical-CH, so a first visit is not retried for the hint`)
    const vary = String(response.headers.vary).split(',').map((field) => field.trim().toLowerCase())
    t.ok(vary.includes('sec-ch-prefers-color-scheme'), `${name}: Vary names the header`)
    t.ok(vary.includes('cookie'), `${name}: Vary names Cookie (theme and hint cookies)`)
    t.match(response.headers['cache-control'], /^private, no-cache/, `${name}: private, revalidated`)
  }
})

t.test('the time-zone hint is validated, falls back to UTC quietly, and is never written back', async (t) => {
  // build() fails the test on any error log: a bad zone must not produce one.
  const { app } = await build(t)
  const valid = await get(app, { cookie: 'CH-time-zone=Europe%2FParis' })
  t.equal(pageData(valid.body).requestInfo.hints.timeZone, 'Europe/Paris')
  t.equal(pageData(valid.body).requestInfo.hintSources.timeZone, 'cookie')
  t.equal(checkInput(valid).timeZone, 'Europe/Paris', 'the check script knows what the page was rendered in')

  for (const zone of ['Etc/Unknown', 'Mars/Olympus', 'x'.repeat(5 * 1024), '%E0%A4%A', 'Europe%2FParis%3B%20x']) {
    const response = await get(app, { cookie: `CH-time-zone=${zone}` })
    const name = zone.slice(0, 20)
    t.equal(response.statusCode, 200, `${name}: rendered`)
    t.equal(pageData(response.body).requestInfo.hints.timeZone, 'UTC', `${name}: as UTC`)
    t.equal(pageData(response.body).requestInfo.hintSources.timeZone, 'fallback')
    t.equal(response.cookies.find((cookie) => cookie.name.startsWith('CH-')), undefined, `${name}: the fallback is not written back`)
  }
  t.equal((await get(app)).cookies.length, 0, 'the server never sets a hint cookie')
})

t.test('the check script comes first in <head>, before the stylesheet, with the CSP nonce', async (t) => {
  const { app } = await build(t)
  const response = await get(app)
  const nonce = /script-src [^;]*'nonce-([^']+)'/.exec(String(response.headers['content-security-policy']))?.[1]
  const head = /<head>([\s\S]*?)<\/head>/.exec(response.body)?.[1] ?? ''
  const script = head.indexOf('<script')
  t.ok(script > 0, 'in <head>')
  t.ok(script < head.indexOf('rel="stylesheet"'), 'before the stylesheet, so it runs before the first paint')
  t.ok(script > head.lastIndexOf('<meta name="theme-color"'), 'after the theme-color it may correct')
  t.equal(/<script id="hint-check" nonce="([^"]*)"/.exec(head)?.[1], nonce, 'carries this response’s nonce')
  t.same(checkInput(response), {
    ...checkInput(response),
    preference: 'system',
    timeZone: 'UTC',
    reload: true,
    themeCookie: 'en_theme',
    colorSchemeCookie: 'CH-prefers-color-scheme',
    timeZoneCookie: 'CH-time-zone'
  })
  t.equal(checkInput(await get(app, { cookie: 'en_theme=dark' })).preference, 'dark')
})

t.test('bots never get the client-hint reload', async (t) => {
  const { app } = await build(t)
  const response = await get(app, { 'user-agent': GOOGLEBOT })
  t.equal(checkInput(response).reload, false)
  t.equal(pageData(response.body).requestInfo.isBot, true)
  t.equal(checkInput(await get(app)).reload, true, 'browsers do')
  // Longer than the judgements kept: judged each time, the same way.
  const padded = `${GOOGLEBOT} ${'x'.repeat(2000)}`
  for (const attempt of [1, 2]) t.equal(pageData((await get(app, { 'user-agent': padded })).body).requestInfo.isBot, true, `a bot with a 2 000-character agent (${attempt})`)
})

t.test('the switch is a real form in the shell, returning to the same path and query', async (t) => {
  const { app } = await build(t)
  const cases: Array<[string, string, string]> = [['', 'light', 'System'], ['en_theme=light', 'dark', 'Light'], ['en_theme=dark', 'system', 'Dark']]
  for (const [cookie, next, current] of cases) {
    const response = await get(app, cookie ? { cookie } : {}, '/no-such-page?q=a%20b&x=1')
    const [, tag = '', form = ''] = /(<form[^>]*>)([\s\S]*?)<\/form>/.exec(response.body) ?? []
    t.match(tag, 'method="post"', `${current}: a form that posts`)
    t.match(tag, 'action="/resources/theme-switch"', `${current}: to the theme switch`)
    t.match(form, `<input type="hidden" name="theme" value="${next}"/>`, `${current}: the next mode is ${next}`)
    t.match(form, '<input type="hidden" name="redirectTo" value="/no-such-page?q=a%20b&amp;x=1"/>', 'back to this path and query')
    t.match(form, new RegExp(`<button type="submit"[^>]*>[\\s\\S]*<span>Theme: ${current}</span>[\\s\\S]*</button>`), `${current}: the button says the current mode`)
    const unseen = [...form.matchAll(/<span class="theme-switch-unseen" aria-hidden="true">Theme: (\w+)<\/span>/g)].map(([, label]) => label)
    t.same(unseen.sort(), ['Dark', 'Light', 'System'].filter((label) => label !== current), `${current}: the other labels only hold the width`)
  }
})

t.test('the switch’s return address is already a safe, short path', async (t) => {
  const { app } = await build(t)
  const redirectTo = (response: LightMyRequestResponse) => /name="redirectTo" value="([^"]*)"/.exec(response.body)?.[1]
  t.equal(redirectTo(await get(app, {}, '//evil.example/x')), '/', 'an address that would leave the site')
  t.equal(redirectTo(await get(app, {}, `/?q=${'a'.repeat(3000)}`)), '/', 'an address too long to post within the body limit')
})
