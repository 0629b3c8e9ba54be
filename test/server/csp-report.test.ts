import t from 'tap'
import { gzipSync } from 'node:zlib'
import { MinuteBudget, ReportLog } from '../../src/server/security/csp-report-log.js'
import { CSP_REPORT_PATH, readLegacyReport, readReportBatch, REPORTS_PER_BODY, type CspViolation } from '../../src/server/security/csp-report.js'
import { CSP_REPORT_BODY_LIMIT } from '../../src/server/routes/csp-report.js'
import { build, type TestApp } from '../helpers/app.js'
import { scrape, valueOf } from '../helpers/metrics.js'

const BATCH = 'application/reports+json'
const LEGACY = 'application/csp-report'

/** A report as Chromium sends it through the Reporting API. */
function chromiumReport (overrides: Record<string, unknown> = {}) {
  return {
    type: 'csp-violation',
    age: 12,
    url: 'https://shop.example/account?session=SECRET-TOKEN',
    user_agent: 'Mozilla/5.0',
    body: {
      documentURL: 'https://shop.example/account?session=SECRET-TOKEN',
      referrer: '',
      blockedURL: 'https://tracker.example/pixel.gif?user=SECRET-USER',
      effectiveDirective: 'img-src',
      originalPolicy: "default-src 'self'; report-to csp-endpoint",
      sourceFile: 'https://shop.example/assets/entry.js',
      sample: '',
      disposition: 'enforce',
      statusCode: 200,
      lineNumber: 3,
      columnNumber: 9,
      ...overrides
    }
  }
}

/** A report as Firefox (and Chromium without report-to) sends it to report-uri. */
const LEGACY_REPORT = {
  'csp-report': {
    'document-uri': 'https://shop.example/?q=secret',
    referrer: '',
    'violated-directive': 'script-src-elem',
    'effective-directive': 'script-src-elem',
    'original-policy': "script-src 'self'",
    disposition: 'enforce',
    'blocked-uri': 'inline',
    'script-sample': 'alert(document.cookie); /* and then a great deal more code follows here */',
    'status-code': 200
  }
}

t.test('a Reporting API batch gives its CSP violations: path without query, origin of what was blocked, other reports skipped', async (t) => {
  const violations = readReportBatch([
    chromiumReport(),
    { type: 'deprecation', body: { id: 'x' } },
    chromiumReport({ effectiveDirective: 'script-src-elem', blockedURL: 'inline', sample: 'x'.repeat(100), disposition: 'report' }),
    chromiumReport({ effectiveDirective: 'made-up-src', blockedURL: 'data:image/png;base64,AAAA', documentURL: 'not a url' }),
    'garbage', null, { type: 'csp-violation', body: 'not an object' }
  ])
  t.same(violations, [
    { document: '/account', directive: 'img-src', blocked: 'https://tracker.example', sample: '', disposition: 'enforce' },
    { document: '/account', directive: 'script-src-elem', blocked: 'inline', sample: `${'x'.repeat(40)}…`, disposition: 'report' },
    { document: '(unreadable)', directive: 'other', blocked: 'data:', sample: '', disposition: 'enforce' }
  ])
  t.same(readReportBatch([]), [], 'an empty batch is a batch')
  for (const notBatch of [{}, 'x', null, 42, LEGACY_REPORT]) t.equal(readReportBatch(notBatch), undefined, JSON.stringify(notBatch))
})

t.test('a legacy report gives one violation; an older browser\'s violated-directive is read by its name', async (t) => {
  t.same(readLegacyReport(LEGACY_REPORT), { document: '/', directive: 'script-src-elem', blocked: 'inline', sample: 'alert(document.cookie); /* and then a gr…', disposition: 'enforce' })
  t.same(readLegacyReport({ 'csp-report': { 'document-uri': 'http://x.example/a/b', 'violated-directive': "Style-Src 'self' https:", 'blocked-uri': 'https://cdn.example:8443/x.css?v=1' } }),
    { document: '/a/b', directive: 'style-src', blocked: 'https://cdn.example:8443', sample: '', disposition: 'enforce' })
  t.same(readLegacyReport({ 'csp-report': {} }), { document: '(unreadable)', directive: 'other', blocked: '', sample: '', disposition: 'enforce' })
  for (const notReport of [[], {}, { 'csp-report': 'x' }, { 'csp-report': [] }, null, 'x']) t.equal(readLegacyReport(notReport), undefined, JSON.stringify(notReport))
})

t.test('an address longer than any a browser reports is left unparsed, and reads as unreadable', async (t) => {
  const long = `https://shop.example/${'a'.repeat(8192)}`
  const [violation] = readReportBatch([chromiumReport({ documentURL: long, blockedURL: long })])!
  t.same(violation, { document: '(unreadable)', directive: 'img-src', blocked: '(unreadable)', sample: '', disposition: 'enforce' })
})

t.test('a batch is read no further than its first entries', async (t) => {
  const batch = Array.from({ length: REPORTS_PER_BODY + 30 }, (_, i) => chromiumReport({ blockedURL: `https://b${i}.example/` }))
  const violations = readReportBatch(batch)!
  t.equal(violations.length, REPORTS_PER_BODY)
  t.equal(violations.at(-1)!.blocked, `https://b${REPORTS_PER_BODY - 1}.example`)
})

t.test('the minute budget admits all of a take or none of it, and opens again a minute on', async (t) => {
  const clock = { now: 1_000_000 }
  const budget = new MinuteBudget(10, () => clock.now)
  t.same([budget.take(6), budget.take(5), budget.take(4), budget.take(1)], [true, false, true, false])
  clock.now += 59_000
  t.equal(budget.secondsLeft(), 1)
  t.notOk(budget.take(1), 'still the same minute')
  clock.now += 1_000
  t.equal(budget.secondsLeft(), 1, 'never 0, though the minute ends between a refusal and its answer: Retry-After: 0 asks for an instant retry')
  t.ok(budget.take(10), 'a new minute')
})

const violationOf = (overrides: Partial<CspViolation> = {}): CspViolation => ({ document: '/', directive: 'img-src', blocked: 'https://tracker.example', sample: '', disposition: 'enforce', ...overrides })

t.test('the report log keeps one line per kind, a share per client, and says once what it left out', async (t) => {
  const clock = { now: 1_000_000 }
  const log = new ReportLog({ linesPerMinute: 4, linesPerClient: 2 }, () => clock.now)
  const fates = (entries: Array<[Partial<CspViolation>, string]>) => entries.map(([overrides, client]) => log.record(violationOf(overrides), client).fate)
  t.same(fates([
    [{}, 'a'], [{}, 'a'], [{ sample: 'other text' }, 'b'],
    [{ blocked: 'https://x.example' }, 'a'], [{ document: '/other' }, 'a'],
    [{ directive: 'script-src-elem' }, 'b'], [{ disposition: 'report' }, 'c'], [{ document: '/third' }, 'd']
  ]), ['logged', 'repeat', 'repeat', 'logged', 'over-budget', 'logged', 'logged', 'over-budget'],
  'a repeat of a kind, whatever its sample, is not logged again; a client has two lines; the minute has four')
  clock.now += 60_000
  t.same(log.record(violationOf(), 'a'), { fate: 'logged', unloggedBefore: { repeats: 2, overBudget: 2 } }, 'a new minute, and the count of the last')
  t.same(log.record(violationOf(), 'a'), { fate: 'repeat', unloggedBefore: undefined }, 'told once')
})

function post (app: TestApp['app'], contentType: string | undefined, payload: string | Buffer, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url: CSP_REPORT_PATH, headers: { ...(contentType ? { 'content-type': contentType } : {}), ...headers }, payload })
}

const cspLines = (logs: TestApp['logs']) => logs.filter((line) => line.msg === 'CSP violation')

t.test('POST /resources/csp-report answers 204 to a batch and to a legacy report, with one warn line per violation', async (t) => {
  const { app, logs } = await build(t, { env: { METRICS_PORT: '0' } })
  const batch = await post(app, BATCH, JSON.stringify([chromiumReport(), chromiumReport({ effectiveDirective: 'connect-src', blockedURL: 'wss://live.example/socket' })]), { cookie: 'en_theme=dark; __Host-en_toast=x' })
  t.equal(batch.statusCode, 204)
  t.equal(batch.body, '')
  t.equal(batch.headers['set-cookie'], undefined, 'no cookie is set')
  t.equal(batch.headers['cache-control'], 'no-store')
  const single = await post(app, `${LEGACY}; charset=utf-8`, JSON.stringify(LEGACY_REPORT))
  t.equal(single.statusCode, 204)

  const lines = cspLines(logs)
  t.equal(lines.length, 3)
  t.ok(lines.every((line) => line.level === 40), 'at warn')
  t.same(lines.map((line) => line.csp), [
    { document: '/account', directive: 'img-src', blocked: 'https://tracker.example', sample: '', disposition: 'enforce' },
    { document: '/account', directive: 'connect-src', blocked: 'wss://live.example', sample: '', disposition: 'enforce' },
    { document: '/', directive: 'script-src-elem', blocked: 'inline', sample: 'alert(document.cookie); /* and then a gr…', disposition: 'enforce' }
  ])
  t.notMatch(JSON.stringify(logs), /SECRET|q=secret/, 'no query string reaches the logs')
  t.notOk(logs.some((line) => line.msg === 'incoming request' || line.msg === 'request completed'), 'no access log for reports')

  const samples = await scrape(app)
  t.equal(valueOf(samples, 'csp_reports_total', { directive: 'img-src' }), 1)
  t.equal(valueOf(samples, 'csp_reports_total', { directive: 'script-src-elem' }), 1)
})

t.test('a flood of decoys cannot hide a real report: it is logged within the minute, and the counter moves within the limits', async (t) => {
  const clock = { now: 5_000_000 }
  const { app, logs } = await build(t, { env: { METRICS_PORT: '0', TRUST_PROXY: '127.0.0.1' }, cspReports: { requestsPerClient: 10, reportsPerMinute: 400, logLinesPerMinute: 30, logLinesPerClient: 5, now: () => clock.now } })
  const from = (address: string) => ({ 'x-forwarded-for': address })
  const decoys = JSON.stringify(Array.from({ length: 60 }, () => chromiumReport()))
  const variedDecoys = JSON.stringify(Array.from({ length: 60 }, (_, i) => chromiumReport({ blockedURL: `https://decoy${i}.example/` })))
  const statuses = []
  for (let i = 0; i < 15; i++) statuses.push((await post(app, BATCH, i % 2 ? decoys : variedDecoys, from('203.0.113.9'))).statusCode)
  t.same(statuses, [...Array(10).fill(204), ...Array(5).fill(429)], 'one address: ten requests a minute, then 429')
  const real = await post(app, BATCH, JSON.stringify([chromiumReport({ effectiveDirective: 'script-src-elem', blockedURL: 'https://injected.example/x.js' })]), from('198.51.100.7'))
  t.equal(real.statusCode, 204, 'another address is still heard')
  t.same(cspLines(logs).filter((line) => (line.csp as CspViolation).blocked === 'https://injected.example').map((line) => line.csp),
    [{ document: '/account', directive: 'script-src-elem', blocked: 'https://injected.example', sample: '', disposition: 'enforce' }], 'the real report is logged')
  t.equal(cspLines(logs).length, 6, 'the flood took its five lines, no more')
  const counted = (await scrape(app)).filter((sample) => sample.name === 'csp_reports_total').reduce((sum, sample) => sum + sample.value, 0)
  t.equal(counted, 10 * REPORTS_PER_BODY + 1, 'only accepted reports are counted: the first entries of each accepted body')

  clock.now += 60_000
  await post(app, LEGACY, JSON.stringify(LEGACY_REPORT), from('198.51.100.7'))
  const summary = logs.filter((line) => line.unlogged !== undefined)
  t.same(summary.map((line) => [line.level, line.msg]), [[40, '195 CSP reports were not logged in the last minute: 20 repeated a kind already logged, 175 came past the budget of 30 lines']])
})

t.test('past the overall budget every address gets 429 with Retry-After, until the minute is over', async (t) => {
  const clock = { now: 5_000_000 }
  const { app } = await build(t, { env: { TRUST_PROXY: '127.0.0.1' }, cspReports: { reportsPerMinute: 3, now: () => clock.now } })
  const send = (address: string) => post(app, BATCH, JSON.stringify([chromiumReport(), chromiumReport()]), { 'x-forwarded-for': address, accept: 'application/json' })
  t.equal((await send('203.0.113.1')).statusCode, 204)
  const refused = await send('203.0.113.2')
  t.equal(refused.statusCode, 429)
  t.equal(refused.headers['retry-after'], '60')
  t.match(refused.json(), { statusCode: 429, error: 'Too Many Requests', message: /Too many CSP reports/ })
  clock.now += 60_000
  t.equal((await send('203.0.113.2')).statusCode, 204)
})

t.test('one address past its budget gets 429 in words with Retry-After; the proxy\'s X-Forwarded-For names it only when trusted', async (t) => {
  const { app } = await build(t, { cspReports: { requestsPerClient: 2 } })
  const send = (address: string) => post(app, LEGACY, JSON.stringify(LEGACY_REPORT), { 'x-forwarded-for': address })
  t.same([(await send('203.0.113.1')).statusCode, (await send('203.0.113.2')).statusCode], [204, 204])
  const refused = await send('203.0.113.3')
  t.equal(refused.statusCode, 429, 'an untrusted X-Forwarded-For is no new address')
  t.ok(Number(refused.headers['retry-after']) > 0)
  t.match(refused.headers['content-type'], /^text\/plain/)
  t.match(refused.body, /from this address/)
})

t.test('an IPv6 client\'s budget is its /64\'s, which one household or host holds: another address in it is no new client', async (t) => {
  const { app } = await build(t, { env: { TRUST_PROXY: '127.0.0.1' }, cspReports: { requestsPerClient: 2 } })
  const send = (address: string) => post(app, LEGACY, JSON.stringify(LEGACY_REPORT), { 'x-forwarded-for': address })
  t.same([(await send('2001:db8:1:2::1')).statusCode, (await send('2001:db8:1:2::ffff')).statusCode], [204, 204])
  t.equal((await send('2001:db8:1:2:abcd::9')).statusCode, 429, 'the same /64')
  t.equal((await send('2001:db8:1:3::1')).statusCode, 204, 'the next /64 is another client')
})

t.test('a compressed report is refused unread: its size would hide what it expands to', async (t) => {
  const { app, logs } = await build(t, { env: { METRICS_PORT: '0' } })
  const body = gzipSync(JSON.stringify(Array.from({ length: 2000 }, () => chromiumReport())))
  for (const encoding of ['gzip', 'br', 'deflate', 'GZIP', 'identity, gzip']) {
    const response = await post(app, BATCH, body, { 'content-encoding': encoding })
    t.equal(response.statusCode, 415, encoding)
    t.match(response.body, /uncompressed/)
  }
  // Content codings are case-insensitive (RFC 9110 §8.4.1).
  for (const encoding of ['identity', ' Identity ']) {
    t.equal((await post(app, BATCH, JSON.stringify([chromiumReport()]), { 'content-encoding': encoding })).statusCode, 204, `${encoding} is no encoding`)
  }
  t.equal(cspLines(logs).length, 1, 'the second is the same kind of report')
  t.equal(valueOf(await scrape(app), 'csp_reports_total', { directive: 'img-src' }), 2)
})

t.test('other content types get 415, large bodies 413, and bodies that are no report 400: in words, never a page', async (t) => {
  const { app } = await build(t)
  const cases: Array<[string | undefined, string | Buffer, number, RegExp]> = [
    ['application/json', JSON.stringify([chromiumReport()]), 415, /application\/reports\+json or application\/csp-report/],
    ['application/x-www-form-urlencoded', 'a=b', 415, /application\/reports\+json/],
    ['text/plain', 'x', 415, /application\/reports\+json/],
    [undefined, '', 415, /application\/reports\+json/],
    // The JSON parser reads UTF-8: a report in another charset would be misread.
    [`${BATCH}; charset=utf-16`, JSON.stringify([chromiumReport()]), 415, /read as UTF-8/],
    [`${LEGACY}; charset=ISO-8859-1`, JSON.stringify(LEGACY_REPORT), 415, /read as UTF-8/],
    [BATCH, JSON.stringify([chromiumReport({ sample: 'x'.repeat(70 * 1024) })]), 413, /too large/],
    [BATCH, '{"not": "a batch"}', 400, /must be a JSON array of reports/],
    [LEGACY, '[]', 400, /must be a JSON object with a "csp-report" object/],
    [BATCH, '[{', 400, /not valid JSON/],
    [LEGACY, '', 400, /empty/],
    [LEGACY, '{"__proto__": {"csp-report": {}}}', 400, /./]
  ]
  for (const [type, payload, status, message] of cases) {
    const response = await post(app, type, payload, { accept: 'text/html', cookie: '__Host-en_toast=x' })
    t.equal(response.statusCode, status, `${type}: ${status}`)
    t.match(response.headers['content-type'], /^text\/plain/, 'in words, not a page')
    t.match(response.body, message)
    t.equal(response.headers['set-cookie'], undefined, 'and no cookie set')
  }
  const json = await post(app, 'text/plain', 'x', { accept: 'application/json' })
  t.same(json.json(), { statusCode: 415, error: 'Unsupported Media Type', message: 'CSP reports are accepted as application/reports+json or application/csp-report.' }, 'JSON to a client that asks for it')
  for (const charset of ['utf-8', 'UTF-8', 'us-ascii']) {
    t.equal((await post(app, `${BATCH}; charset=${charset}`, JSON.stringify([chromiumReport()]))).statusCode, 204, `charset=${charset} is read`)
  }
  const get = await app.inject({ url: CSP_REPORT_PATH, headers: { accept: 'application/json' } })
  t.equal(get.statusCode, 405, 'only POST')
})

t.test('the route\'s own body limit holds under the larger app-wide one', async (t) => {
  const { app } = await build(t)
  const padded = (bytes: number) => { const body = JSON.stringify([chromiumReport({ sample: '' })]); return body.replace('"sample":""', `"sample":"${'x'.repeat(bytes - body.length)}"`) }
  t.equal((await post(app, BATCH, padded(CSP_REPORT_BODY_LIMIT))).statusCode, 204, 'at the route\'s limit')
  const over = await post(app, BATCH, padded(CSP_REPORT_BODY_LIMIT + 1))
  t.equal(over.statusCode, 413, 'a byte over it, though far under the app\'s 64 KiB')
  t.ok(CSP_REPORT_BODY_LIMIT < 64 * 1024)
})

t.test('Trusted Types are asked for report-only, and their reports are read and counted like any CSP report', async (t) => {
  const { app, logs } = await build(t, { env: { METRICS_PORT: '0' } })
  const page = await app.inject({ url: '/', headers: { accept: 'text/html' } })
  t.equal(page.headers['content-security-policy-report-only'], "require-trusted-types-for 'script'; report-to csp-endpoint; report-uri /resources/csp-report")
  const report = chromiumReport({ effectiveDirective: 'require-trusted-types-for', blockedURL: 'trusted-types-sink', sample: 'Element innerHTML|<b>x</b>', disposition: 'report' })
  t.equal((await post(app, BATCH, JSON.stringify([report]))).statusCode, 204)
  t.same(cspLines(logs).map((line) => line.csp), [{ document: '/account', directive: 'require-trusted-types-for', blocked: 'trusted-types-sink', sample: 'Element innerHTML|<b>x</b>', disposition: 'report' }])
  t.equal(valueOf(await scrape(app), 'csp_reports_total', { directive: 'require-trusted-types-for' }), 1)
})

t.test('every document\'s policy reports to the route, by report-to with Reporting-Endpoints and by report-uri', async (t) => {
  const { app } = await build(t)
  const page = await app.inject({ url: '/', headers: { accept: 'text/html' } })
  const policy = String(page.headers['content-security-policy'])
  t.match(policy, /(^|;)report-to csp-endpoint(;|$)/)
  t.match(policy, /(^|;)report-uri \/resources\/csp-report(;|$)/)
  t.match(policy, /'nonce-[^']+'/, 'the nonce is still there')
  t.equal(page.headers['reporting-endpoints'], 'csp-endpoint="/resources/csp-report"')
})
