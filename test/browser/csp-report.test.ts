import t from 'tap'
import type { TestApp } from '../helpers/app.js'
import { launchBrowser, visit } from '../helpers/browser.js'
import { listen } from '../helpers/server.js'
import { tlsFront } from '../helpers/tls-front.js'

/** Waits, bounded, for the app to log a line that matches. */
async function waitForLog (logs: TestApp['logs'], matches: (line: TestApp['logs'][number]) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const found = logs.find(matches)
    if (found) return found
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`no such log line within ${timeoutMs} ms; the app logged: ${JSON.stringify(logs.map((line) => line.msg))}`)
}

// Chromium reads Reporting-Endpoints on https pages only, so the app sits behind a TLS front,
// and sends reports at once rather than after a minute with --short-reporting-delay.
t.test('a real violation in Chromium is reported to POST /resources/csp-report and logged without its query', async (t) => {
  const { url, logs } = await listen(t)
  const front = await tlsFront(t, url)
  const browser = await launchBrowser(t, { args: ['--ignore-certificate-errors', '--short-reporting-delay'] })
  const { page, problems } = await visit(browser, front.url, { ignoreHTTPSErrors: true })

  await page.evaluate(() => {
    const image = document.createElement('img')
    image.src = 'https://blocked.example/pixel.gif?token=SECRET'
    document.body.append(image)
  })
  const line = await waitForLog(logs, (entry) => entry.msg === 'CSP violation')
  t.same(line.csp, { document: '/', directive: 'img-src', blocked: 'https://blocked.example', sample: '', disposition: 'enforce' })
  t.equal(line.level, 40, 'at warn')
  const reports = front.requests.filter((request) => request.url === '/resources/csp-report')
  t.same(reports.map((request) => [request.method, request.contentType]), [['POST', 'application/reports+json']], 'sent once, through the Reporting API (report-to)')
  t.ok(problems.some((problem) => /Content Security Policy/.test(problem)), 'the browser refused the image')
  t.notMatch(JSON.stringify(logs), /SECRET/, 'the token in the blocked URL never reached the logs')
})
