import fc from 'fast-check'
import t, { type Test } from 'tap'
import { safeRedirect } from '../../src/shared/safe-redirect.js'

// A different origin from the one the module resolves against, so the
// same-origin assertion does not just repeat the implementation.
const SITE = 'https://agent-stack.example'

/** What every result must be, whatever the input: one leading slash, nothing a browser or header could misread. */
function assertSameSitePath (t: Test, result: string): void {
  t.ok(result.startsWith('/'), 'starts with /')
  t.notOk(result.startsWith('//'), 'does not start with //')
  t.notOk(result.startsWith('/\\'), 'does not start with /\\')
  t.notMatch(result, /[\u0000-\u001F\u007F\\]/, 'no control characters or backslash')
  const decoded = decodeURIComponent(result)
  t.notMatch(decoded, /[\r\n\\]/, 'no CR, LF or backslash once decoded')
  t.notOk(decoded.startsWith('//'), 'does not start with // once decoded')
  t.equal(new URL(result, SITE).origin, SITE, 'resolves to the same origin')
}

// Open-redirect payloads, mostly from PayloadsAllTheThings "Open Redirect"
// (Intruder/open_redirect_wordlist.txt) and the OWASP Unvalidated Redirects
// cheat sheet, with evil.com as the target. Every one of these must be refused.
const HOSTILE = [
  // Scheme-relative and slash tricks
  '//evil.com',
  '///evil.com',
  '////evil.com',
  '/////evil.com/',
  '//evil.com/%2f..',
  '/\\evil.com',
  '\\\\evil.com',
  '\\/\\/evil.com/',
  '/\\/\\/evil.com/',
  '////\\;@evil.com',
  '//\\evil.com',
  // Browsers delete tab/CR/LF, raw or decoded
  '/\t/evil.com',
  '/\n/evil.com',
  '/\r\n/evil.com',
  '/%09/evil.com',
  '//%09/evil.com',
  '///%09/evil.com',
  '/%0a/evil.com',
  '/%0d%0aSet-Cookie:x=1',
  '/%0D%0ALocation:%20https://evil.com',
  // Encoded slashes and backslashes, single and double
  '/%2F%2Fevil.com',
  '/%2f%2fevil.com',
  '%2F%2Fevil.com',
  '/%5Cevil.com',
  '/%5cevil.com',
  '//%5cevil.com',
  '/%2f%5c%2f%65%76%69%6c%2e%63%6f%6d/',
  '/%252F%252Fevil.com',
  '/%25252F%25252Fevil.com',
  '/https:/%5cevil.com/',
  '/https://%09/evil.com',
  '/https://%5cevil.com',
  // Dot segments that collapse into a leading // after resolution
  '/.//evil.com',
  '/%2e//evil.com',
  '/..//evil.com',
  '/%2e%2e//evil.com',
  '/a/..//evil.com',
  '/a/%2E%2E//evil.com',
  // Absolute URLs and other schemes
  'https://evil.com',
  'http://evil.com/',
  'HTTPS://EVIL.COM',
  'http:evil.com',
  'https:/evil.com',
  'https:evil.com',
  'ftp://evil.com',
  'http://[::ffff:127.0.0.1]/',
  'http://0xd8.0x3a.0xd6.0xce',
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'java%0d%0ascript%0d%0a:alert(0)',
  '<>javascript:alert(1);',
  'data:text/html,<script>alert(1)</script>',
  'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'vbscript:msgbox(1)',
  // Unicode slash look-alikes, raw and encoded
  '／／evil.com',
  '/／evil.com',
  '/%EF%BC%8Fevil.com',
  '/%ef%bc%8f%ef%bc%8fevil.com',
  '/\u2215evil.com',
  '/\u2044evil.com',
  '/\u29F8evil.com',
  '/\uFF3Cevil.com',
  '/\uFE68evil.com',
  '〱evil.com',
  '//evil%E3%80%82com',
  // Whitespace and NUL that browsers strip at the ends
  ' //evil.com',
  '  /\\evil.com',
  '/evil.com ',
  '\u00A0/evil.com',
  '\u3000/evil.com',
  '\u0000//evil.com',
  '/\u0000/evil.com',
  '/%00/evil.com',
  // Not rooted at all: relative to the current path, so refused
  '@evil.com',
  'evil.com',
  '.evil.com',
  'evil.com/%2f..',
  '',
  // Malformed or too deeply nested percent-encoding
  '/%',
  '/%zz',
  '/%E0%A4%A',
  '/%2525252F%2525252Fevil.com'
]

// Odd-looking payloads that stay on this site: they name a path here, so
// keeping them is correct as long as the result is a same-site path.
const HARMLESS = [
  '/http://evil.com',
  '/https:evil.com',
  '/evil.com/%2f..',
  '/%68%74%74%70%3a%2f%2f%65%76%69%6c%2e%63%6f%6d',
  '/javascript:alert(1)',
  '/?next=//evil.com',
  '/?next=%2F%2Fevil.com',
  '/#//evil.com',
  '/../../etc/passwd',
  '/a b?c d#e f',
  '/\u00E9t\u00E9?q=\u00BD'
]

// Real targets of our own pages: they must come back byte for byte.
const SAFE = [
  '/',
  '/settings',
  '/a/b?x=1&y=2',
  '/a/b?x=1&y=2#frag',
  '/search?q=hello%20world#results',
  '/path/with-dash_and.dot',
  '/users/42/edit?tab=profile',
  '/?theme=dark',
  '/#top',
  '/docs/getting-started#install',
  '/search?q=a%2Fb&page=2',
  '/caf%C3%A9?q=%E2%9C%93',
  '/a//b',
  '/search?q=%2541'
]

t.test('hostile payloads fall back to /', async (t) => {
  t.ok(HOSTILE.length + HARMLESS.length >= 40, 'the corpus is large enough')
  for (const payload of HOSTILE) {
    await t.test(JSON.stringify(payload), async (t) => {
      const result = safeRedirect(payload)
      t.equal(result, '/')
      assertSameSitePath(t, result)
    })
  }
})

t.test('harmless oddities stay same-site paths', async (t) => {
  for (const payload of HARMLESS) {
    await t.test(JSON.stringify(payload), async (t) => {
      assertSameSitePath(t, safeRedirect(payload))
    })
  }
})

t.test('harmless oddities are kept, encoded as the URL parser serializes them', async (t) => {
  t.equal(safeRedirect('/http://evil.com'), '/http://evil.com')
  t.equal(safeRedirect('/../../etc/passwd'), '/etc/passwd')
  t.equal(safeRedirect('/a b?c d#e f'), '/a%20b?c%20d#e%20f')
  t.equal(safeRedirect('/?next=//evil.com'), '/?next=//evil.com')
})

t.test('safe paths come back exactly as given', async (t) => {
  for (const path of SAFE) {
    t.equal(safeRedirect(path), path, path)
    t.equal(safeRedirect(path, '/fallback'), path, `${path} ignores the fallback`)
  }
})

t.test('non-strings fall back', async (t) => {
  for (const input of [undefined, null, 42, [], {}, ['/settings'], { toString: () => '/settings' }, true, Symbol('x')]) {
    t.equal(safeRedirect(input), '/', String(typeof input))
  }
})

t.test('a custom fallback is honoured', async (t) => {
  t.equal(safeRedirect('//evil.com', '/home'), '/home')
  t.equal(safeRedirect(undefined, '/home'), '/home')
  t.equal(safeRedirect('/settings', '/home'), '/settings')
})

t.test('long inputs are refused without being parsed', async (t) => {
  const limit = '/' + 'a'.repeat(2047)
  t.equal(safeRedirect(limit), limit, '2048 characters are allowed')
  t.equal(safeRedirect(limit + 'a'), '/', '2049 characters are not')
  t.equal(safeRedirect('/' + '%25'.repeat(1_000_000)), '/', 'a megabyte of escapes')
})

t.test('a literal percent sign (%25) is kept: once decoded it is data, not a broken escape', async (t) => {
  for (const path of ['/search?q=100%25', '/search?q=100%25&page=2', '/discount/50%25-off', '/search?q=%25zz', '/%25']) {
    t.equal(safeRedirect(path), path, path)
  }
  t.equal(safeRedirect('/search?q=100%25%252F'), '/search?q=100%25%252F', 'next to a double-encoded slash that stays inside the path')
})

t.test('a literal percent sign does not hide an encoded escape from the checks', async (t) => {
  for (const payload of ['/%25%32%46%2Fevil.com', '/%252Fevil.com%25', '%25/%2F/evil.com', '/%25E0%25A4']) {
    t.equal(safeRedirect(payload), '/', payload)
  }
  t.equal(safeRedirect('/%25%2F%2Fevil.com'), '/%25%2F%2Fevil.com', 'a path whose first segment is "%" stays a path on this site')
  assertSameSitePath(t, safeRedirect('/%25%2F%2Fevil.com'))
})

t.test('a plain path and query come back exactly as the URL parser reads them', async (t) => {
  const unreserved = fc.constantFrom(...'abcXYZ019_~-')
  const segment = fc.string({ unit: unreserved, minLength: 1, maxLength: 8 })
  const plain = fc.tuple(
    fc.array(segment, { maxLength: 5 }),
    fc.boolean(),
    fc.option(fc.string({ unit: fc.constantFrom(...'ab09_~.=&-'), minLength: 1, maxLength: 12 }), { nil: undefined })
  ).map(([segments, trailingSlash, query]) =>
    '/' + segments.join('/') + (trailingSlash && segments.length > 0 ? '/' : '') + (query === undefined ? '' : `?${query}`))
  fc.assert(fc.property(plain, (input) => {
    const parsed = new URL(input, SITE)
    return safeRedirect(input) === input && input === parsed.pathname + parsed.search
  }), { numRuns: 500 })
  t.pass('500 plain paths')
})

t.test('a long almost-plain path goes through the full checks', async (t) => {
  // A nested quantifier in the plain-path shortcut would backtrack exponentially here and hang the test.
  const input = '/' + 'a'.repeat(60) + '/' + 'b'.repeat(60) + '!'
  t.equal(safeRedirect(input), input)
  t.equal(safeRedirect(input + '%'), '/', 'and is refused when it ends badly')
})
