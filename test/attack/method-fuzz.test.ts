import assert from 'node:assert/strict'
import fc from 'fast-check'
import t from 'tap'
import { build } from '../helpers/app.js'
import { assertServing } from '../helpers/attack.js'

/**
 * Property-based attack on routing: any method at any address, with broken
 * and encoded path segments and any Accept. The answer is never a 5xx; an
 * address the app has, asked with a method it does not take, is a 405 whose
 * Allow names exactly the methods it does take, and only a 405 has Allow.
 */

const RUNS = 1000
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const
/** The addresses the app has, and what each takes (static files are GET and HEAD too). */
const KNOWN: Record<string, string> = {
  '/': 'GET, HEAD',
  '/resources/healthcheck': 'GET, HEAD',
  '/resources/theme-switch': 'POST',
  '/resources/csp-report': 'POST',
  '/favicon.ico': 'GET, HEAD'
}

const segment = fc.oneof(
  fc.constantFrom('', 'resources', 'healthcheck', 'theme-switch', 'csp-report', 'favicon.ico', 'assets', '.', '..', '%25', '%2F', '%2e%2e', '%E2%9C%93', '%C3%28', '%FF'),
  fc.string({ maxLength: 8 }).map(encodeURIComponent)
)
const address = fc.oneof(
  fc.constantFrom(...Object.keys(KNOWN)),
  fc.array(segment, { maxLength: 4 }).map((segments) => '/' + segments.join('/'))
)
const request = fc.record({
  method: fc.constantFrom(...METHODS),
  path: address,
  query: fc.option(fc.string({ maxLength: 12 }).map(encodeURIComponent), { nil: undefined }),
  accept: fc.constantFrom('text/html', 'application/json', '*/*', undefined)
})

t.test('whatever method and address arrive: no 5xx, and a 405 with the exact Allow where the address takes other methods', async (t) => {
  const { app, logs } = await build(t)
  const seen = new Set<number>()

  await fc.assert(fc.asyncProperty(request, async ({ method, path, query, accept }) => {
    const url = query === undefined ? path : `${path}?${query}`
    const response = await app.inject({ method, url, headers: accept === undefined ? {} : { accept } })
    seen.add(response.statusCode)

    assert.ok(response.statusCode < 500, `${method} ${url}: ${response.statusCode}`)
    assert.deepEqual(logs.filter((entry) => entry.level >= 50), [], 'no error logged')
    const allowed = KNOWN[path]
    if (allowed !== undefined) {
      if (allowed.split(', ').includes(method)) {
        assert.notEqual(response.statusCode, 405, `${method} ${url} is taken`)
        assert.notEqual(response.statusCode, 404, `${method} ${url} is an address we have`)
      } else {
        assert.equal(response.statusCode, 405, `${method} ${url}`)
        assert.equal(response.headers.allow, allowed, `${method} ${url}: Allow`)
      }
    }
    if (response.statusCode === 405) {
      const names = String(response.headers.allow ?? '').split(', ')
      assert.ok(names.length > 0 && names.every((name) => (METHODS as readonly string[]).includes(name)), 'Allow lists methods')
      assert.ok(!names.includes(method), 'and not the one refused')
    } else {
      assert.equal(response.headers.allow, undefined, 'Allow only on a 405')
    }
  }), { numRuns: RUNS })

  t.ok(seen.has(404) && seen.has(405), `both refusals were exercised (saw ${[...seen].sort().join(', ')})`)
  await assertServing(app)
})
