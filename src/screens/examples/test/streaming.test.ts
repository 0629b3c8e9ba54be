import t from 'tap'
import { BAD_DELAY, readDelay } from '../streaming.server.js'
import { build, TEST_SECRETS } from '../../../../test/helpers/app.js'
import { startListening } from '../../../../test/helpers/process.js'
import { listen } from '../../../../test/helpers/server.js'
import { openStreamed } from '../../../../test/helpers/streamed-response.js'
import { withGatedWaits } from './gated-waits.js'

const STREAMING_PATH = '/examples/streaming'

/**
 * The streaming example (src/screens/examples/streaming.tsx and streaming.server.ts): the page at once, "Loading…"
 * where the slow part goes, then "Loaded after N ms"; a part that fails (outside production) says so in place, the rest
 * intact; a bad delay is a 400; the loader's wait stops when its signal fires.
 */

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36'
/** A browser that ran our scripts (only a script sets the hint cookies): it gets the page streamed. */
const RUNS_SCRIPTS = { accept: 'text/html', 'user-agent': BROWSER, cookie: 'CH-time-zone=Europe%2FLisbon; CH-prefers-color-scheme=light' }
const FIRST_VISIT = { accept: 'text/html', 'user-agent': BROWSER }

t.test('the delay a person may ask for: whole milliseconds from 0 to 10000, 1500 unasked', async (t) => {
  t.equal(readDelay(null), 1500)
  t.same(['0', '250', '10000', '00042'].map(readDelay), [0, 250, 10000, 42])
  for (const wrong of ['', 'soon', '-1', '1.5', '1e3', '0x10', ' 5', '10001', '99999999']) t.equal(readDelay(wrong), undefined, JSON.stringify(wrong))
})

t.test('the page, then the slow part where "Loading…" was, in the same response', async (t) => {
  const { waits, firstWait, screens } = await withGatedWaits(t)
  const { url } = await listen(t, { screens })
  const response = openStreamed(`${url}${STREAMING_PATH}?delay=2500`, RUNS_SCRIPTS)
  t.equal((await response.headers).status, 200)
  const shell = await response.waitFor(/<h1>Streaming<\/h1>[\s\S]*Loading…/)
  t.match(shell, '<title>Streaming | Agent Stack</title>')
  t.match(shell, /<meta name="description" content="An example screen that shows at once[^"]*"/)
  t.match(shell, 'This page asked for a part that takes 2500 ms.')
  t.match(shell, '<a href="/examples">Back to the examples</a>')
  t.notMatch(shell, 'Loaded after', 'the slow part is not there yet')
  t.equal((await firstWait).delay, 2500, 'the loader waits as long as asked')
  waits[0]!.done.open()
  t.match(await response.ended, /<p class="slow-part">Loaded after 2500 ms<\/p>[\s\S]*<\/html>/)
})

t.test('a first visit gets the finished page, the slow part in place; the delay is 1500 ms unless asked', async (t) => {
  const { firstWait, screens } = await withGatedWaits(t)
  const { app } = await build(t, { screens })
  const page = app.inject({ url: STREAMING_PATH, headers: FIRST_VISIT })
  const wait = await firstWait
  t.equal(wait.delay, 1500)
  wait.done.open()
  const { statusCode, body } = await page
  t.equal(statusCode, 200)
  t.match(body, '<p class="slow-part">Loaded after 1500 ms</p>')
})

t.test('?fail=1: the slow part says it could not be loaded, the page answers 200 and the rest is intact', async (t) => {
  // The real loader, waiting nothing: a rejected part is logged once at error level (docs/streaming.md).
  const { app } = await build(t, { allowErrorLogs: true })
  for (const headers of [FIRST_VISIT, RUNS_SCRIPTS]) {
    const { statusCode, body } = await app.inject({ url: `${STREAMING_PATH}?delay=0&fail=1`, headers })
    t.equal(statusCode, 200)
    t.match(body, /<p class="slow-part" role="alert">This part could not be loaded[^<]*<\/p>/)
    t.match(body, '<h1>Streaming</h1>')
    t.match(body, 'This page asked for a part that takes 0 ms.')
    t.match(body, '<a href="/examples">Back to the examples</a>')
    t.match(body, '<a href="/examples/streaming?delay=0">with none</a>, or <a href="/examples/streaming?fail=1">with a part that fails</a>.', 'offered outside production')
    t.notMatch(body, 'Loaded after')
  }
})

t.test('in production ?fail=1 is not offered: any client could write error logs and count failed documents with it', async (t) => {
  // The built server, as `npm start` runs it: the build, not the environment, says production.
  const server = await startListening(t, { ...TEST_SECRETS, NODE_ENV: 'production' })
  const response = await fetch(`${server.url}${STREAMING_PATH}?delay=0&fail=1`, { headers: FIRST_VISIT })
  t.equal(response.status, 200)
  const body = await response.text()
  t.match(body, '<p class="slow-part">Loaded after 0 ms</p>', 'the slow part loads as if unasked')
  t.match(body, 'with a 5 s wait</a> or <a href="/examples/streaming?delay=0">with none</a>.</p>', 'and the page offers no failure')
  // The request's own line is written once the response ends: every line of this request is in by then.
  await server.waitForLog((line) => line.msg === 'request completed')
  t.same(server.logs().filter((line) => (line.level ?? 0) >= 50), [], 'nothing logged as an error')
})

t.test('a delay that is not whole milliseconds from 0 to 10000 is a 400 with the client-error page', async (t) => {
  const { app } = await build(t)
  for (const delay of ['soon', '-1', '1.5', '10001']) {
    const response = await app.inject({ url: `${STREAMING_PATH}?delay=${delay}`, headers: FIRST_VISIT })
    t.equal(response.statusCode, 400, delay)
    t.match(response.body, '<h1>That request could not be processed</h1>')
    t.match(response.body, BAD_DELAY)
  }
})

t.test('the loader honours its signal: a visitor who leaves stops the wait', async (t) => {
  const { firstWait, screens } = await withGatedWaits(t)
  const { url } = await listen(t, { screens })
  const response = openStreamed(`${url}${STREAMING_PATH}`, RUNS_SCRIPTS)
  await response.waitFor(/Loading…/)
  const wait = await firstWait
  t.equal(wait.signal.aborted, false)
  const stopped = wait.done.promise.catch((error: unknown) => error)
  response.abandon()
  t.equal(((await stopped) as Error).name, 'ClientGoneError', 'the wait was stopped, with the reason')
})
