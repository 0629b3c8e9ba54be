import t from 'tap'
import { CSP_REPORT_PATH, LineBudget, readLegacyReport, readReportBatch } from '../../src/server/security/csp-report.js'
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

t.test('the line budget admits so many lines a minute, and hands back how many it refused once the minute is over', async (t) => {
  const clock = { now: 1_000_000 }
  const budget = new LineBudget(2, () => clock.now)
  t.same([budget.take(), budget.take(), budget.take(), budget.take()], [
    { admitted: true, refusedBefore: 0 }, { admitted: true, refusedBefore: 0 }, { admitted: false, refusedBefore: 0 }, { admitted: false, refusedBefore: 0 }
  ])
  clock.now += 59_999
  t.same(budget.take(), { admitted: false, refusedBefore: 0 }, 'still the same minute')
  clock.now += 1
  t.same(budget.take(), { admitted: true, refusedBefore: 3 }, 'the next minute starts by saying three were left out')
  t.same(budget.take(), { admitted: true, refusedBefore: 0 }, 'once')
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

t.test('a flood of reports writes at most the cap of lines a minute, then says how many it left out', async (t) => {
  const clock = { now: 5_000_000 }
  const { app, logs } = await build(t, { env: { METRICS_PORT: '0' }, cspReports: { logLinesPerMinute: 5, now: () => clock.now } })
  for (let i = 0; i < 40; i++) t.equal((await post(app, BATCH, JSON.stringify([chromiumReport(), chromiumReport()]))).statusCode, 204)
  t.equal(cspLines(logs).length, 5, 'five lines for eighty reports')
  clock.now += 60_000
  await post(app, LEGACY, JSON.stringify(LEGACY_REPORT))
  const summary = logs.filter((line) => line.unlogged !== undefined)
  t.same(summary.map((line) => [line.level, line.unlogged, line.msg]), [[40, 75, '75 CSP reports were not logged in the last minute (at most 5 lines a minute)']])
  t.equal(cspLines(logs).length, 6, 'and the new minute logs again')
  t.equal(valueOf(await scrape(app), 'csp_reports_total', { directive: 'img-src' }), 80, 'the metric counts every report')
})

t.test('other content types get 415, large bodies 413, and bodies that are no report 400: in words, never a page', async (t) => {
  const { app } = await build(t)
  const cases: Array<[string | undefined, string | Buffer, number, RegExp]> = [
    ['application/json', JSON.stringify([chromiumReport()]), 415, /application\/reports\+json or application\/csp-report/],
    ['application/x-www-form-urlencoded', 'a=b', 415, /application\/reports\+json/],
    ['text/plain', 'x', 415, /application\/reports\+json/],
    [undefined, '', 415, /application\/reports\+json/],
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
  const get = await app.inject({ url: CSP_REPORT_PATH, headers: { accept: 'application/json' } })
  t.equal(get.statusCode, 405, 'only POST')
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
