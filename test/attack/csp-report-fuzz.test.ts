import assert from 'node:assert/strict'
import fc from 'fast-check'
import t from 'tap'
import { CSP_REPORT_PATH } from '../../src/server/security/csp-report.js'
import { build } from '../helpers/app.js'
import { assertServing } from '../helpers/attack.js'

/**
 * Property-based attack on POST /resources/csp-report, the one address any
 * page (and anyone else) may post to. Each run builds a request from hostile
 * parts, works out independently what the route must answer, and checks it:
 * never a 5xx or an error log, never a cookie, a refusal in words, and no
 * more log lines than the cap however many reports arrive. fast-check prints
 * the seed and the shrunk request of a failure.
 */

const BATCH = 'application/reports+json'
const LEGACY = 'application/csp-report'
const BODY_LIMIT = 64 * 1024
const LINES_PER_MINUTE = 7
const RUNS = 400

const anyText = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30, unit: 'binary' }), fc.constantFrom('', 'inline', 'eval', 'data:,x', 'blob:https://a.example/1', 'https://evil.example:8443/p?token=SECRET', '\u2028</script>', 'javascript:alert(1)'))
const anyValue: fc.Arbitrary<unknown> = fc.oneof({ weight: 5, arbitrary: anyText }, { weight: 1, arbitrary: fc.constantFrom(null, 0, true, [], {}, ['x'], { toString: 'x' }) })
const directive = fc.oneof(fc.constantFrom('script-src-elem', 'img-src', 'style-src-attr', 'frame-ancestors', 'IMG-SRC', "script-src 'self'", 'worker-src'), anyText)

const reportBody = fc.record({
  documentURL: fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), anyValue),
  blockedURL: fc.oneof(fc.webUrl({ withQueryParameters: true }), anyValue),
  effectiveDirective: fc.oneof(directive, anyValue),
  sample: fc.oneof(anyText, fc.string({ minLength: 41, maxLength: 300 }), anyValue),
  disposition: fc.oneof(fc.constantFrom('enforce', 'report'), anyValue)
}, { requiredKeys: [] })

const reportingApiReport = fc.record({
  type: fc.oneof({ weight: 6, arbitrary: fc.constant('csp-violation') }, { weight: 1, arbitrary: fc.constantFrom('deprecation', 'intervention', 'network-error') }, { weight: 1, arbitrary: anyValue }),
  age: fc.nat(),
  url: fc.webUrl(),
  body: fc.oneof({ weight: 6, arbitrary: reportBody }, { weight: 1, arbitrary: anyValue })
}, { requiredKeys: ['type'] })

const legacyReport = fc.record({
  'document-uri': fc.oneof(fc.webUrl({ withQueryParameters: true }), anyValue),
  'blocked-uri': fc.oneof(fc.webUrl({ withQueryParameters: true }), anyValue),
  'violated-directive': fc.oneof(directive, anyValue),
  'effective-directive': fc.oneof(directive, anyValue),
  'script-sample': fc.oneof(anyText, anyValue)
}, { requiredKeys: [] })

type Kind = 'batch' | 'legacy' | 'other'
interface Body { payload: string | Buffer, kind: 'batch-json' | 'legacy-json' | 'json' | 'invalid', reports: number }

const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 5, arbitrary: fc.array(reportingApiReport, { maxLength: 6 }).map((reports): Body => ({ payload: JSON.stringify(reports), kind: 'batch-json', reports: reports.filter(isViolation).length })) },
  { weight: 4, arbitrary: legacyReport.map((fields): Body => ({ payload: JSON.stringify({ 'csp-report': fields }), kind: 'legacy-json', reports: 1 })) },
  { weight: 2, arbitrary: fc.json().map((payload): Body => ({ payload, kind: 'json', reports: 0 })) },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.constantFrom('', '[', '{"csp-report":', '\uFEFF[]', 'null', '{"__proto__":{"csp-report":{}}}', '{"constructor":{"prototype":{}}}'),
      fc.string({ maxLength: 60, unit: 'binary' }),
      fc.uint8Array({ maxLength: 60 }).map((bytes) => Buffer.from(bytes))
    ).map((payload): Body => ({ payload, kind: 'invalid', reports: 0 }))
  },
  // Over the limit: the same report, padded.
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 4096 }).map((extra): Body => ({ payload: JSON.stringify([{ type: 'csp-violation', body: { sample: 'x'.repeat(BODY_LIMIT + extra) } }]), kind: 'batch-json', reports: 1 })) }
)

function isViolation (report: unknown): boolean {
  if (typeof report !== 'object' || report === null || Array.isArray(report)) return false
  const { type, body } = report as Record<string, unknown>
  return type === 'csp-violation' && typeof body === 'object' && body !== null && !Array.isArray(body)
}

const contentType: fc.Arbitrary<{ header: string | undefined, kind: Kind }> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(BATCH, `${BATCH}; charset=utf-8`, 'Application/Reports+JSON').map((header) => ({ header, kind: 'batch' as Kind })) },
  { weight: 4, arbitrary: fc.constantFrom(LEGACY, `${LEGACY};charset=UTF-8`, 'APPLICATION/CSP-REPORT').map((header) => ({ header, kind: 'legacy' as Kind })) },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.constantFrom(undefined, 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', `${BATCH}x`, `x${LEGACY}`, 'application/*', ';', `${BATCH}, ${LEGACY}`),
      fc.string({ maxLength: 40 })
    ).map((header) => ({ header, kind: 'other' as Kind }))
  }
)

interface Attack { contentType: { header: string | undefined, kind: Kind }, body: Body, accept: string | undefined, cookie: string | undefined }

const attack: fc.Arbitrary<Attack> = fc.record({
  contentType,
  body,
  accept: fc.option(fc.oneof(fc.constantFrom('text/html', 'application/json', '*/*'), fc.string({ maxLength: 30 })), { nil: undefined }),
  cookie: fc.option(fc.constantFrom('en_theme=dark', '__Host-en_toast=forged', 'a=b; en_theme=purple'), { nil: undefined })
})

/** What the route must answer, in the order it checks: the type before the body is read, then its size, then its contents. */
function verdict ({ contentType, body }: Attack): { status: 204, reports: number } | { status: 400 | 413 | 415 } {
  if (contentType.kind === 'other') return { status: 415 }
  if (Buffer.byteLength(body.payload) > BODY_LIMIT) return { status: 413 }
  if (contentType.kind === 'batch' && body.kind === 'batch-json') return { status: 204, reports: body.reports }
  if (contentType.kind === 'legacy' && body.kind === 'legacy-json') return { status: 204, reports: 1 }
  // A batch sent as a legacy report, a legacy report as a batch, other JSON, or no JSON at all.
  const parsed = parseJson(body.payload)
  if (contentType.kind === 'batch' && Array.isArray(parsed)) return { status: 204, reports: parsed.filter(isViolation).length }
  if (contentType.kind === 'legacy' && isLegacy(parsed)) return { status: 204, reports: 1 }
  return { status: 400 }
}

function parseJson (payload: string | Buffer): unknown {
  try {
    return JSON.parse(String(payload).replace(/^\uFEFF/, ''))
  } catch {
    return undefined
  }
}

function isLegacy (value: unknown): boolean {
  const record = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
  return record(value) && !Object.hasOwn(value, '__proto__') && record(value['csp-report'])
}

t.test('no request to the CSP report route gets a 5xx, a cookie or an unbounded number of log lines', async (t) => {
  const clock = { now: 1_000_000 }
  const { app, logs } = await build(t, { env: { METRICS_PORT: '0' }, cspReports: { logLinesPerMinute: LINES_PER_MINUTE, now: () => clock.now } })
  const statuses = new Set<number>()
  let reports = 0
  await fc.assert(fc.asyncProperty(attack, async (request) => {
    const headers: Record<string, string> = {}
    if (request.contentType.header !== undefined) headers['content-type'] = request.contentType.header
    if (request.accept !== undefined) headers.accept = request.accept
    if (request.cookie !== undefined) headers.cookie = request.cookie
    const response = await app.inject({ method: 'POST', url: CSP_REPORT_PATH, headers, payload: request.body.payload })

    assert.ok(response.statusCode < 500, `no 5xx (got ${response.statusCode})`)
    assert.deepEqual(logs.filter((entry) => entry.level >= 50), [], 'no error logged')
    assert.equal(response.headers['set-cookie'], undefined, 'no cookie set')
    const expected = verdict(request)
    statuses.add(response.statusCode)
    assert.equal(response.statusCode, expected.status)
    if ('reports' in expected) {
      reports += expected.reports
      assert.equal(response.body, '')
    } else {
      assert.doesNotMatch(String(response.headers['content-type']), /html/, 'a refusal is never a page')
      assert.ok(response.body.length > 0, 'and says why')
    }
  }), { numRuns: RUNS })
  t.same([...statuses].sort(), [204, 400, 413, 415], 'the runs reached every outcome')

  const lines = logs.filter((line) => line.msg === 'CSP violation')
  t.equal(lines.length, Math.min(reports, LINES_PER_MINUTE), `${reports} reports, ${lines.length} lines: the cap holds`)
  for (const line of lines) {
    const csp = line.csp as Record<string, string>
    // The sample is code as the browser quoted it, cut short; the URLs lose their queries.
    t.notMatch(JSON.stringify([csp.document, csp.blocked]), /SECRET|token=/, 'no query string is logged')
    t.ok(csp.sample!.length <= 41, 'samples are cut short')
  }
  const counted = (await app.metrics!.registry.getSingleMetric('csp_reports_total')!.get()).values.reduce((sum, value) => sum + value.value, 0)
  t.equal(counted, reports, 'every report is counted')
  await assertServing(app)
})
