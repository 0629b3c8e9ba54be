import assert from 'node:assert/strict'
import fc from 'fast-check'
import t from 'tap'
import { parseColorScheme } from '../../src/shared/client-hints.js'
import type { Theme } from '../../src/shared/theme.js'
import { build, pageData } from '../helpers/app.js'
import { assertServing } from '../helpers/attack.js'

/**
 * Property-based attack on GET / through what a visitor controls about a
 * page: the Cookie header (the theme preference, the two hint cookies, the
 * flash toast, and anything else, repeated, percent-broken or huge) and the
 * Sec-CH-Prefers-Color-Scheme header. Whatever arrives, the page is a whole
 * document in light or dark, agrees with the data it hands the browser, and
 * never writes a cookie back but to clear a flash toast.
 */

const RUNS = 300
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
/** Cookie text that would run if it ever reached the document unescaped. */
const MARKUP = ['</script><script>alert(1)</script>', '<img src=x onerror=alert(1)>', '\u2028alert(1)//', '"-alert(1)-"']

/**
 * A cookie as sent, and what it must mean where that is specified: for the
 * theme and scheme cookies a painted theme or `null` (not one), for the time
 * zone the zone the page must use. `undefined` when only the invariants apply.
 */
interface Cookie { name: string, value: string, means?: string | null }

/** Printable ASCII, `;` included: it splits a value into more cookies. */
const anyText = fc.string({ maxLength: 30 })
const brokenPercent = fc.constantFrom('%', '%E0%A4%A', '%zz', '%FF', '%C3%28', '%%', 'dark%')
const huge = fc.constantFrom('x'.repeat(8000), '%'.repeat(3000), 'dark'.repeat(2000))
const unspecified = fc.oneof(anyText, brokenPercent, huge, fc.constantFrom(...MARKUP, ' dark', 'dark ', 'd%61rk', '%64ark'))

function cookie (name: string, labelled: fc.Arbitrary<[string, string | null]>): fc.Arbitrary<Cookie> {
  return fc.oneof(
    { weight: 3, arbitrary: labelled.map(([value, means]) => ({ name, value, means })) },
    { weight: 1, arbitrary: unspecified.map((value) => ({ name, value })) }
  )
}

const themeCookie = cookie('en_theme', fc.constantFrom<[string, Theme | null]>(
  ['light', 'light'], ['dark', 'dark'], ['system', null], ['', null], ['purple', null], ['Dark', null], ['"dark"', null], ['%', null], ['%zz', null]
))
const schemeCookie = cookie('CH-prefers-color-scheme', fc.constantFrom<[string, Theme | null]>(
  ['light', 'light'], ['dark', 'dark'], ['%64ark', 'dark'], ['no-preference', null], ['Dark', null], ['"dark"', null], ['', null], ['%', null]
))
// Intl knows the aliases browsers report; Chrome's `Etc/Unknown` and anything else falls back to UTC.
const timeZoneCookie = cookie('CH-time-zone', fc.constantFrom<[string, string]>(
  ['UTC', 'UTC'], ['Europe%2FParis', 'Europe/Paris'], ['America/New_York', 'America/New_York'], ['Asia%2FCalcutta', 'Asia/Calcutta'],
  ['US%2FEastern', 'US/Eastern'], ['Etc%2FUnknown', 'UTC'], ['Etc/Unknown', 'UTC'], ['Mars%2FOlympus_Mons', 'UTC'], ['', 'UTC'],
  ['..%2F..%2Fetc%2Fpasswd', 'UTC'], ['Europe%2FParis'.repeat(6), 'UTC'], ['%3Cscript%3E', 'UTC'], ['%E0%A4%A', 'UTC']
))
const toastCookie = fc.oneof(anyText, fc.constantFrom('', 's:garbage', 'eyJpZCI6IngifQ.forged')).map((value): Cookie => ({ name: 'en_toast', value }))
const otherCookie = fc.tuple(
  fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/), fc.constantFrom('__proto__', 'constructor', 'toString', '$Version', 'EN_THEME', 'ch-time-zone')),
  fc.oneof(anyText, huge, brokenPercent)
).map(([name, value]): Cookie => ({ name, value }))

const cookies = fc.array(fc.oneof(themeCookie, schemeCookie, timeZoneCookie, toastCookie, otherCookie), { maxLength: 8 })

/** How the pairs are joined, with segments browsers would never send but a client can. */
const separator = fc.constantFrom('; ', ';', ' ; ', ';  ', '; ; ', '; =; ', '; orphan; ', '; =x; ')

/** The Sec-CH-Prefers-Color-Scheme header and the theme it must mean, where that is specified. */
interface Hint { value: string | string[], means?: Theme | null }
const hint = fc.option(fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<Hint>(
    { value: '"dark"', means: 'dark' }, { value: '"light"', means: 'light' }, { value: 'dark', means: 'dark' }, { value: ' "dark" ', means: 'dark' },
    { value: '"dark', means: null }, { value: 'dark"', means: null }, { value: '""', means: null }, { value: '"no-preference"', means: null },
    { value: '"Dark"', means: null }, { value: '', means: null }, { value: ['"dark"', '"dark"'], means: null }, { value: ['"dark"', '"light"'], means: null }
  ) },
  { weight: 1, arbitrary: fc.oneof(anyText, huge).map((value): Hint => ({ value })) }
), { nil: undefined })

const visit = fc.record({
  cookies,
  separators: fc.array(separator, { minLength: 8, maxLength: 8 }),
  // Split over two Cookie headers: a client may send it twice.
  split: fc.option(fc.nat({ max: 8 }), { nil: undefined }),
  hint,
  userAgent: fc.constantFrom(undefined, BROWSER, GOOGLEBOT)
})
type Visit = typeof visit extends fc.Arbitrary<infer V> ? V : never

function cookieHeaders ({ cookies, separators, split }: Visit): string | string[] | undefined {
  if (cookies.length === 0) return undefined
  const join = (part: Cookie[]) => part.map(({ name, value }, i) => `${i ? separators[i] : ''}${name}=${value}`).join('')
  if (split === undefined || split === 0 || split >= cookies.length) return join(cookies)
  return [join(cookies.slice(0, split)), join(cookies.slice(split))]
}

/**
 * What the page must show, where every input that decides it is specified:
 * the first cookie of a name wins (browsers send the most specific first,
 * RFC 6265 §5.4), the saved preference beats the hints, the live header
 * beats the hint cookie, and light is the fallback.
 */
function expected ({ cookies, hint }: Visit): { theme: Theme, timeZone: string } | undefined {
  // A `;` inside a value makes more cookies than were generated: no longer specified.
  if (cookies.some(({ value }) => value.includes(';'))) return undefined
  const decisive = ['en_theme', 'CH-prefers-color-scheme', 'CH-time-zone'].map((name) => cookies.find((cookie) => cookie.name === name))
  if (decisive.some((cookie) => cookie && !('means' in cookie)) || (hint && !('means' in hint))) return undefined
  const [saved, scheme, zone] = decisive.map((cookie) => cookie?.means ?? null)
  return { theme: [saved, hint?.means, scheme].map(parseColorScheme).find((theme): theme is Theme => theme !== null) ?? 'light', timeZone: zone ?? 'UTC' }
}

t.test('whatever cookies and hints arrive, GET / is a whole light or dark page and writes nothing back', async (t) => {
  const { app, logs } = await build(t)
  const baseline = await app.inject({ url: '/', headers: { accept: 'text/html', 'user-agent': BROWSER } })
  const scriptCount = baseline.body.split('<script').length
  let specified = 0

  await fc.assert(fc.asyncProperty(visit, async (input) => {
    const headers: Record<string, string | string[]> = { accept: 'text/html' }
    const cookie = cookieHeaders(input)
    if (cookie !== undefined) headers.cookie = cookie
    if (input.hint) headers['sec-ch-prefers-color-scheme'] = input.hint.value
    if (input.userAgent) headers['user-agent'] = input.userAgent
    const response = await app.inject({ url: '/', headers })

    assert.equal(response.statusCode, 200)
    assert.deepEqual(logs.filter((entry) => entry.level >= 50), [], 'no error logged')
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    assert.equal(response.headers['cache-control'], 'private, no-cache', 'never shared by a cache: it depends on the cookies')
    const html = response.body
    assert.match(html, /^<!DOCTYPE html><html lang="en" class="(light|dark)" data-theme-source="(saved|hint|fallback)"/, 'a document in light or dark')
    assert.ok(html.endsWith('</body></html>'), 'complete')
    assert.equal(html.split('<script').length, scriptCount, 'no script more than on any page')
    assert.ok(!html.includes('alert(1)'), 'no cookie text in the document')

    const [, className, source] = /class="(\w+)" data-theme-source="(\w+)"/.exec(html)!
    const { requestInfo } = pageData(html)
    const { hints, hintSources, userPrefs } = requestInfo
    // The browser hydrates from the page data: the class must follow from it, or hydration switches the theme.
    const saved = userPrefs.theme === 'system' ? null : userPrefs.theme
    const hinted = hintSources.theme === 'fallback' ? null : hints.theme
    assert.equal(className, saved ?? hinted ?? 'light', 'the class follows from the page data')
    assert.equal(source, saved ? 'saved' : hinted ? 'hint' : 'fallback')
    assert.doesNotThrow(() => new Intl.DateTimeFormat('en', { timeZone: hints.timeZone }), 'a time zone Intl knows')

    const wanted = expected(input)
    if (wanted) {
      specified++
      assert.equal(className, wanted.theme, 'the theme the inputs specify')
      assert.equal(hints.timeZone, wanted.timeZone, 'the time zone the cookie specifies')
    }

    // The only cookie a page writes is the flash toast's clearing, and only when one was sent.
    for (const written of response.cookies) {
      assert.equal(written.name, 'en_toast', `no ${written.name} cookie written back`)
      assert.equal(written.value, '', 'the toast cookie is only cleared')
      assert.equal(written.maxAge, 0)
    }
    if (!String(cookie ?? '').includes('en_toast')) assert.equal(response.headers['set-cookie'], undefined, 'no Set-Cookie without a toast cookie')
  }), { numRuns: RUNS })

  // Most runs must reach the exact check, or a generator drifting into garbage would pass vacuously.
  t.ok(specified > RUNS / 4, `${specified} of ${RUNS} visits had a specified theme and time zone`)
  await assertServing(app)
})
