import assert from 'node:assert/strict'
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import t from 'tap'
import { THEME_PREFERENCES, THEME_SWITCH_PATH, isThemePreference, type ThemePreference } from '../../src/shared/theme.js'
import { THEME_SWITCH_BODY_LIMIT } from '../../src/server/routes/theme-switch.js'
import { build, setCookie } from '../helpers/app.js'
import { assertSameSitePath, assertServing } from '../helpers/attack.js'

/**
 * Property-based attack on POST /resources/theme-switch. Each run builds a
 * request from hostile parts, works out independently what the route must
 * make of it — the body read the way browsers define it (URLSearchParams, the
 * WHATWG form decoder; JSON.parse) — and checks the answer: never a 5xx, a
 * Location only ever on this site, and the theme cookie written exactly when
 * the request was valid. fast-check prints the seed and the shrunk request
 * of a failure; rerun it with `fc.assert(…, { seed, path })`.
 */

const FORM = 'application/x-www-form-urlencoded'
const JSON_TYPE = 'application/json'
const BODY_LIMIT = THEME_SWITCH_BODY_LIMIT
/** inject's Host is localhost:80. */
const OUR_ORIGIN = 'http://localhost'
const RUNS = 400

// —— the parts of a request ————————————————————————————————————————————

/** Printable ASCII: anything else in a header is refused by a real server's parser before the app sees it. */
const headerText = fc.string({ maxLength: 40 })

const themeValue = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...THEME_PREFERENCES) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('Dark', 'LIGHT', ' dark', 'dark ', 'dar', 'darkk', 'dark\u0000', 'system\n', 'l\u0456ght', '\uFF44\uFF41\uFF52\uFF4B', '', 'null', 'dark,light')
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 12, unit: 'binary' }) }
)

/** What a redirect target must become: `kept` as it is, `home` replaced by `/`, `any` only on this site. */
type RedirectFate = 'kept' | 'home' | 'any'
interface Redirect { value: string, fate: RedirectFate }

const keptPath = fc.tuple(
  fc.array(fc.stringMatching(/^[a-z0-9_-]{1,12}$/), { maxLength: 4 }),
  fc.option(fc.stringMatching(/^[a-z0-9]{1,8}=[a-z0-9]{0,8}$/), { nil: undefined }),
  fc.option(fc.stringMatching(/^[a-z0-9-]{1,12}$/), { nil: undefined })
).map(([segments, query, hash]) => `/${segments.join('/')}${query ? `?${query}` : ''}${hash ? `#${hash}` : ''}`)

// The escapes of test/shared/safe-redirect.test.ts (backslashes, tabs, encoded and Unicode slashes), as they arrive in a form.
const ESCAPES = [
  '//evil.example', '///evil.example', '/\\evil.example', '\\\\evil.example', '/\t/evil.example', '/\n/evil.example',
  '/\r\n/evil.example', '/%09/evil.example', '/%5Cevil.example', '/%5cevil.example', '/%2F%2Fevil.example',
  '/%252F%252Fevil.example', '/\u2215evil.example', '/\u2044evil.example', '/\uFF0Fevil.example', '/\uFF3Cevil.example',
  '\uFF0F\uFF0Fevil.example', '/.//evil.example', '/%2e%2e//evil.example', 'https://evil.example', 'HTTPS://EVIL.EXAMPLE',
  'http://127.0.0.1.evil.example/', 'http:evil.example', 'javascript:alert(1)', 'data:text/html,x', ' /evil', '/evil ',
  '\u0000/evil', '/%0d%0aSet-Cookie:%20owned=1', '/\r\nSet-Cookie: owned=1', '/%', '/%E0%A4%A', '/%FF', '/%C3%28',
  'evil.example', '', '/' + 'a'.repeat(3000)
]
const slashLike = fc.constantFrom('/', '\\', '%2F', '%2f', '%5C', '%5c', '%252F', '\u2215', '\u2044', '\uFF0F', '\uFF3C', '\t', '\n', '\r', '%09', '%0A', ' ', '\u3000', '.', '%2e', '..')
/** Slash look-alikes in front of a host: some are harmless paths (`/@evil.example`), so only the property applies. */
const composedEscape = fc.tuple(fc.array(slashLike, { minLength: 1, maxLength: 4 }), fc.constantFrom('evil.example', 'evil.example/x?y=1#z', '@evil.example', '127.0.0.1:8080'))
  .map(([parts, host]) => parts.join('') + host)

const redirect: fc.Arbitrary<Redirect> = fc.oneof(
  { weight: 3, arbitrary: keptPath.map((value) => ({ value, fate: 'kept' as const })) },
  { weight: 3, arbitrary: fc.constantFrom(...ESCAPES).map((value) => ({ value, fate: 'home' as const })) },
  {
    weight: 3,
    arbitrary: fc.oneof(composedEscape, fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.webPath(), fc.string({ maxLength: 30, unit: 'binary' }))
      .map((value) => ({ value, fate: 'any' as const }))
  }
)

const extraName = fc.oneof(
  fc.constantFrom('x', 'Theme', 'THEME', 'theme[]', 'theme ', 'redirect', 'redirectto', '__proto__', 'constructor', 'toString', 'hasOwnProperty'),
  fc.string({ maxLength: 10 })
)
/** Includes one value that alone takes the body past the route's limit. */
const extraValue = fc.oneof(fc.string({ maxLength: 20, unit: 'binary' }), fc.constantFrom('', '%', '%zz', '&', '=', 'x'.repeat(BODY_LIMIT + 1)))

/** The fields of a submission: `theme` and `redirectTo` missing, once or repeated, among other fields, in any order. */
interface Fields {
  pairs: Array<[string, string]>
  redirect: Redirect | undefined
}
const fields: fc.Arbitrary<Fields> = fc.record({
  themes: fc.oneof(
    { weight: 10, arbitrary: themeValue.map((value): string[] => [value]) },
    { weight: 1, arbitrary: fc.constant<string[]>([]) },
    { weight: 1, arbitrary: themeValue.map((value): string[] => [value, value]) },
    { weight: 1, arbitrary: fc.tuple(themeValue, themeValue).map((pair): string[] => pair) }
  ),
  redirects: fc.oneof(
    { weight: 2, arbitrary: fc.constant<Redirect[]>([]) },
    { weight: 5, arbitrary: redirect.map((value): Redirect[] => [value]) },
    { weight: 1, arbitrary: fc.tuple(redirect, redirect).map((pair): Redirect[] => pair) }
  ),
  extras: fc.array(fc.tuple(extraName, extraValue), { maxLength: 3 })
}).chain(({ themes, redirects, extras }) => {
  const pairs: Array<[string, string]> = [
    ...themes.map((value): [string, string] => ['theme', value]),
    ...redirects.map(({ value }): [string, string] => ['redirectTo', value]),
    ...extras
  ]
  return fc.shuffledSubarray(pairs, { minLength: pairs.length, maxLength: pairs.length })
    .map((shuffled) => ({ pairs: shuffled, redirect: redirects.length === 1 ? redirects[0] : undefined }))
})

/** How a form field is written: each decodes to the same text, except `raw`, whose `&`, `=`, `+` and `%` mean what they mean. */
type FormEncoding = 'serializer' | 'uri' | 'every-byte-upper' | 'every-byte-lower' | 'raw'
const formEncoding = fc.constantFrom<FormEncoding>('serializer', 'uri', 'every-byte-upper', 'every-byte-lower', 'raw')

function encodeFormText (text: string, encoding: FormEncoding): string {
  switch (encoding) {
    case 'serializer': return new URLSearchParams([['', text]]).toString().slice(1)
    case 'uri': return encodeURIComponent(text)
    case 'every-byte-upper': return [...Buffer.from(text)].map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`).join('')
    case 'every-byte-lower': return [...Buffer.from(text)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('')
    case 'raw': return text
  }
}

const formBody = fields.chain(({ pairs, redirect }) =>
  fc.tuple(fc.array(fc.tuple(formEncoding, formEncoding), { minLength: pairs.length, maxLength: pairs.length }), fc.constantFrom('', '&'))
    .map(([encodings, edge]) => ({
      payload: edge + pairs.map(([name, value], i) => `${encodeFormText(name, encodings[i]![0])}=${encodeFormText(value, encodings[i]![1])}`).join('&') + edge,
      redirect
    })))

/** Every UTF-16 unit as \uXXXX: the same JSON string, spelt so no literal `theme` or slash appears. */
function escapeAll (text: string): string {
  return `"${[...Array(text.length).keys()].map((i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')}"`
}

const jsonThemeValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: themeValue },
  { weight: 1, arbitrary: fc.constantFrom(null, 1, true, ['dark'], { toString: 'dark' }, { 0: 'dark' }) }
)

/** JSON written by hand, so keys can repeat (JSON.parse keeps the last) and strings can be escaped. */
const jsonBody = fc.tuple(fields, jsonThemeValue, fc.boolean(), fc.constantFrom('', ' ', '\n\t'), fc.boolean()).map(([{ pairs, redirect }, oddTheme, escaped, space, bom]) => {
  const string = (text: string) => escaped ? escapeAll(text) : JSON.stringify(text)
  const members = pairs.map(([name, value]) => {
    // The odd value stands in for the theme's string now and then: numbers, null, arrays, objects.
    const json = name === 'theme' && typeof oddTheme !== 'string' ? JSON.stringify(oddTheme) : string(value)
    return `${string(name)}:${space}${json}`
  })
  return { payload: `${bom ? '\uFEFF' : ''}{${space}${members.join(`,${space}`)}${space}}`, redirect }
})

const multipartBody = fc.constantFrom('----x', 'boundary').map((boundary) => ({
  payload: `--${boundary}\r\nContent-Disposition: form-data; name="theme"\r\n\r\ndark\r\n--${boundary}--\r\n`,
  redirect: undefined
}))

const garbageBody = fc.oneof(
  fc.json(),
  fc.string({ maxLength: 60, unit: 'binary' }),
  fc.uint8Array({ maxLength: 60 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom('', '%%%', '{', 'theme', 'theme=dark\u0000', '\uFEFF', 'null', '[]')
).map((payload) => ({ payload, redirect: undefined }))

const formTypes = fc.constantFrom(FORM, `${FORM}; charset=UTF-8`, `${FORM};charset=utf-8`, 'Application/X-WWW-Form-Urlencoded', `${FORM} ; charset=iso-8859-1`, `${FORM}; charset=utf-16le`, `${FORM};`)
const jsonTypes = fc.constantFrom(JSON_TYPE, `${JSON_TYPE}; charset=utf-8`, 'APPLICATION/JSON', `${JSON_TYPE};charset="UTF-8"`, `${JSON_TYPE}; charset=utf-16`, `${JSON_TYPE}; foo`)
const otherTypes = fc.oneof(
  fc.constantFrom(
    'text/plain', 'text/plain; charset=utf-8', 'multipart/form-data; boundary=----x', 'application/xml', 'application/json-patch+json',
    'application/jsonx', `${FORM}-x`, `${JSON_TYPE}, text/plain`, 'text/html', '', ';', ';;;', '*/*', 'application/*', `x${FORM}`
  ),
  headerText
)

/** The site headers a browser adds, and whether they say another site sent the request. */
interface Site { headers: Record<string, string>, crossSite: boolean }
const site: fc.Arbitrary<Site> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom<Site>(
      { headers: {}, crossSite: false },
      { headers: { origin: OUR_ORIGIN }, crossSite: false },
      { headers: { origin: 'HTTP://LOCALHOST' }, crossSite: false },
      { headers: { 'sec-fetch-site': 'same-origin' }, crossSite: false },
      { headers: { 'sec-fetch-site': 'same-origin', origin: OUR_ORIGIN }, crossSite: false },
      { headers: { 'sec-fetch-site': 'none' }, crossSite: false }
    )
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Site>(
      { headers: { 'sec-fetch-site': 'cross-site' }, crossSite: true },
      { headers: { 'sec-fetch-site': 'Cross-Site', origin: OUR_ORIGIN }, crossSite: true },
      { headers: { 'sec-fetch-site': 'same-origin', origin: 'https://evil.example' }, crossSite: true },
      { headers: { origin: 'null' }, crossSite: true },
      { headers: { origin: '' }, crossSite: true },
      { headers: { origin: 'http://evil.localhost' }, crossSite: true },
      { headers: { origin: 'http://localhost.evil.example' }, crossSite: true },
      { headers: { origin: 'http://localhost@evil.example' }, crossSite: true },
      { headers: { origin: 'http://[bad' }, crossSite: true }
    )
  },
  {
    weight: 1,
    // A random origin is never ours.
    arbitrary: fc.oneof(fc.webUrl().map((url) => new URL(url).origin), headerText.map((text) => `x${text}`))
      .map((origin) => ({ headers: { origin }, crossSite: true }))
  },
  {
    weight: 1,
    // Only `cross-site` says another site; a value no browser sends comes from a client that could as well send none.
    arbitrary: fc.oneof(fc.constantFrom('cross-site', 'CROSS-SITE', 'same-site', ''), headerText)
      .map((value) => ({ headers: { 'sec-fetch-site': value }, crossSite: value.toLowerCase() === 'cross-site' }))
  }
)

const accept = fc.option(fc.oneof(
  fc.constantFrom('text/html', JSON_TYPE, '*/*', '', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/json, text/plain, */*', 'application/json;q=0, text/html'),
  headerText
), { nil: undefined })

interface Attack {
  contentType: string | undefined
  payload: string | Buffer
  redirect: Redirect | undefined
  site: Site
  accept: string | undefined
}

const attack: fc.Arbitrary<Attack> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(formTypes, formBody) },
  { weight: 3, arbitrary: fc.tuple(jsonTypes, jsonBody) },
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc.option(fc.oneof(formTypes, jsonTypes, otherTypes), { nil: undefined }),
      fc.oneof(formBody, jsonBody, multipartBody, garbageBody)
    )
  }
).chain(([contentType, body]) => fc.record({ site, accept }).map(({ site, accept }) => ({ contentType, ...body, site, accept })))

// —— what the route must make of it ——————————————————————————————————————

interface Submission { theme: ThemePreference, redirectTo: string | undefined }

/** The media type: what precedes any parameter, case-insensitive (RFC 9110 §8.3.1). */
function bodyKind (contentType: string | undefined): 'form' | 'json' | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  return type === FORM ? 'form' : type === JSON_TYPE ? 'json' : undefined
}

/** A `__proto__` key or a `constructor.prototype` anywhere: Fastify's JSON parser refuses both (prototype poisoning). */
function poisoned (value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  if (Object.hasOwn(value, '__proto__')) return true
  const constructor = (value as Record<string, unknown>).constructor
  if (Object.hasOwn(value, 'constructor') && typeof constructor === 'object' && constructor !== null && Object.hasOwn(constructor, 'prototype')) return true
  return Object.values(value).some(poisoned)
}

/** A charset parameter other than UTF-8's or US-ASCII's names text the route would misread, so it refuses it. */
function readable (contentType: string | undefined): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? '')?.[1]
  return charset === undefined || ['utf-8', 'utf8', 'us-ascii'].includes(charset.toLowerCase())
}

/**
 * The submission a body carries, read the way browsers define it, or
 * undefined when it must be refused. Bodies are UTF-8: JSON has no other
 * (RFC 8259 §8.1) and the form encoding is UTF-8 only (WHATWG URL,
 * application/x-www-form-urlencoded).
 */
function readSubmission (kind: 'form' | 'json', payload: string | Buffer): Submission | undefined {
  const text = typeof payload === 'string' ? payload : payload.toString('utf8')
  if (kind === 'form') {
    const params = new URLSearchParams(text)
    const [theme, ...moreThemes] = params.getAll('theme')
    const redirects = params.getAll('redirectTo')
    return isThemePreference(theme) && moreThemes.length === 0 && redirects.length <= 1 ? { theme, redirectTo: redirects[0] } : undefined
  }
  let value: unknown
  try {
    // A leading byte order mark is allowed to be ignored (RFC 8259 §8.1), and Fastify does.
    value = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || poisoned(value)) return undefined
  const { theme, redirectTo } = value as Record<string, unknown>
  return isThemePreference(theme) && (redirectTo === undefined || typeof redirectTo === 'string') ? { theme, redirectTo } : undefined
}

/** The refusal a request must get, in the order the route checks, or the submission it must save. */
function verdict ({ contentType, payload, site }: Attack): { status: 403 | 415 | 413 | 400 } | { submission: Submission } {
  if (site.crossSite) return { status: 403 }
  const kind = bodyKind(contentType)
  if (!kind || !readable(contentType)) return { status: 415 }
  if (Buffer.byteLength(payload) > BODY_LIMIT) return { status: 413 }
  const submission = readSubmission(kind, payload)
  return submission ? { submission } : { status: 400 }
}

/** A refusal says why, as the bad-request page or as JSON. */
function assertExplained (response: LightMyRequestResponse): void {
  if (String(response.headers['content-type']).startsWith('text/html')) {
    assert.match(response.body, /<p role="alert">[^<]+<\/p>/, 'the page shows the message')
    return
  }
  const body = response.json()
  assert.equal(body.statusCode, response.statusCode)
  assert.ok(typeof body.message === 'string' && body.message.length > 0, 'the JSON has a message')
}

function assertSaved (response: LightMyRequestResponse, { theme, redirectTo }: Submission, redirect: Redirect | undefined): void {
  const cookie = setCookie(response, 'en_theme')
  assert.ok(cookie, 'the theme cookie is written')
  assert.equal(cookie.value, theme === 'system' ? '' : theme, 'with the theme (system clears it)')
  assert.equal(response.headers['cache-control'], 'no-store')
  if (response.statusCode === 200) {
    assert.deepEqual(response.json(), { theme }, 'a script gets the theme')
    assert.equal(response.headers.location, undefined)
    return
  }
  assert.equal(response.statusCode, 303, 'a form gets 303')
  const location = String(response.headers.location)
  // The label applies only when the field arrived as generated (a raw `&` in it splits it).
  if (redirectTo === undefined) assert.equal(location, '/', 'no redirectTo returns home')
  else if (redirect?.value === redirectTo && redirect.fate === 'kept') assert.equal(location, redirectTo, 'a plain path is kept')
  else if (redirect?.value === redirectTo && redirect.fate === 'home') assert.equal(location, '/', 'an escape is replaced by /')
}

t.test('no request to the theme switch gets a 5xx, leaves the site or writes the cookie when it should not', async (t) => {
  const { app, logs } = await build(t)
  const statuses = new Set<number>()
  await fc.assert(fc.asyncProperty(attack, async (request) => {
    const headers: Record<string, string> = { ...request.site.headers }
    if (request.contentType !== undefined) headers['content-type'] = request.contentType
    if (request.accept !== undefined) headers.accept = request.accept
    const response = await app.inject({ method: 'POST', url: THEME_SWITCH_PATH, headers, payload: request.payload })

    assert.ok(response.statusCode < 500, `no 5xx (got ${response.statusCode})`)
    assert.deepEqual(logs.filter((entry) => entry.level >= 50), [], 'no error logged')
    if (response.headers.location !== undefined) assertSameSitePath(String(response.headers.location))
    const expected = verdict(request)
    statuses.add(response.statusCode)
    if ('status' in expected) {
      assert.equal(response.statusCode, expected.status)
      assert.equal(response.headers['set-cookie'], undefined, 'a refused request sets no cookie')
      assert.equal(response.headers.location, undefined, 'and does not redirect')
      assertExplained(response)
    } else {
      assertSaved(response, expected.submission, request.redirect)
    }
  }), { numRuns: RUNS })
  // A generator that drifted into sending only one kind of request would pass vacuously.
  t.same([...statuses].sort((a, b) => a - b), [200, 303, 400, 403, 413, 415], 'the runs reached every outcome')
  await assertServing(app)
  t.pass('the app still serves')
})
