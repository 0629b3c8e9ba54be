import { createServer, type AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { freePort, startListening, startServer } from '../helpers/process.js'

const SECRETS = {
  SESSION_SECRET: 'startup-test-session-secret-0123456789abcdef',
  HONEYPOT_SECRET: 'startup-test-honeypot-secret-0123456789abcdef'
}

/** Starts the built server with a bad environment and returns how it stopped. */
async function refusedStart (t: Test, env: Record<string, string>) {
  const server = startServer(t, env)
  const { code } = await server.exited
  return { code, lines: server.stderr().split('\n').filter(Boolean), logs: server.logs() }
}

t.test('an invalid variable stops start-up with one line naming it, and no stack trace', async (t) => {
  const { code, lines, logs } = await refusedStart(t, { ...SECRETS, PORT: '80x' })
  t.not(code, 0, 'exits with an error')
  t.same(lines, ['Invalid environment variable PORT="80x": expected a port number from 0 to 65535.'])
  t.same(logs, [], 'nothing else was started, so nothing was logged')
})

t.test('an ingest point that would break the CSP stops start-up with one line, not a stack trace', async (t) => {
  const { code, lines } = await refusedStart(t, { ...SECRETS, OPENREPLAY_PROJECT_KEY: 'key', OPENREPLAY_INGEST_POINT: 'https://x;script-src *' })
  t.not(code, 0)
  t.equal(lines.length, 1)
  t.match(lines[0], /^Invalid environment variable OPENREPLAY_INGEST_POINT="https:\/\/x;script-src \*": expected an http\(s\) URL/)
})

t.test('a secret missing in production stops start-up with one line per variable', async (t) => {
  const { code, lines } = await refusedStart(t, { NODE_ENV: 'production' })
  t.not(code, 0)
  t.same(lines, [
    'Missing environment variable SESSION_SECRET: required in production (a random string of at least 32 characters, or a comma-separated list of them, newest first).',
    'Missing environment variable HONEYPOT_SECRET: required in production (a random string of at least 32 characters, or a comma-separated list of them, newest first).'
  ])
})

t.test('every problem is reported in one go, one line each, with no stack trace', async (t) => {
  const { code, lines } = await refusedStart(t, { NODE_ENV: 'production', PORT: '70000', LOG_LEVEL: 'loud', SESSION_SECRET: 'too-short-and-never-echoed' })
  t.not(code, 0)
  t.same(lines.map((line) => /^(?:Invalid|Missing) environment variable (\w+)/.exec(line)?.[1]), ['PORT', 'LOG_LEVEL', 'SESSION_SECRET', 'HONEYPOT_SECRET'])
  t.notMatch(lines.join('\n'), /^\s+at |Error:/m, 'no stack trace')
  t.notMatch(lines.join('\n'), /too-short-and-never-echoed/, 'the rejected secret is not echoed')
})

t.test('a valid environment starts the server, which answers and then stops cleanly on SIGTERM', async (t) => {
  const server = await startListening(t)
  t.ok(server.logs().some((line) => line.level === 40 && String(line.msg).startsWith('SESSION_SECRET is not set')), 'a generated secret is warned about')

  const health = await fetch(`${server.url}/resources/healthcheck`)
  t.equal(health.status, 200)
  t.equal(await health.text(), 'OK')
  const home = await fetch(`${server.url}/`, { headers: { accept: 'text/html' } })
  t.equal(home.status, 200)
  t.match(await home.text(), /<title>Agent Stack<\/title>/)
  // Awaited: the log line of a response may reach stdout just after the response itself.
  t.ok(await server.waitForLog((line) => line.msg === 'request completed' && typeof line.requestId === 'string'), 'requests are logged with their id')

  server.child.kill('SIGTERM')
  t.same(await server.exited, { code: 0, signal: null }, 'exits 0')
  t.ok(server.logs().some((line) => line.msg === 'shutting down' && line.signal === 'SIGTERM'), 'says why it stops')
  t.equal(server.stderr(), '', 'nothing on stderr')
})

t.test('SIGINT (Ctrl-C) stops it cleanly too', async (t) => {
  const server = await startListening(t, SECRETS)
  t.notOk(server.logs().some((line) => line.level === 40), 'no warning when the secrets are given')
  server.child.kill('SIGINT')
  t.same(await server.exited, { code: 0, signal: null })
})

t.test('with METRICS_PORT the metrics are served on their own listener at METRICS_HOST, never on the public port or HOST', async (t) => {
  const metricsPort = await freePort()
  // HOST (127.0.0.1) and METRICS_HOST apart: a listener on the wrong one is refused below.
  const server = await startListening(t, { ...SECRETS, METRICS_PORT: String(metricsPort), METRICS_HOST: '127.0.0.2' })
  const listening = await server.waitForLog((line) => line.listener === 'metrics' && String(line.msg).startsWith('Server listening at'))
  t.match(listening.msg, `http://127.0.0.2:${metricsPort}`)
  await (await fetch(`${server.url}/`)).text()
  await t.rejects(fetch(`http://127.0.0.1:${metricsPort}/metrics`), 'nothing listens for metrics on HOST')
  const scraped = await fetch(`http://127.0.0.2:${metricsPort}/metrics`)
  t.equal(scraped.status, 200)
  t.match(await scraped.text(), /^http_request_duration_seconds_count\{[^}]*route="\/"[^}]*\} 1$/m)
  const publicMetrics = await fetch(`${server.url}/metrics`)
  t.equal(publicMetrics.status, 404, 'the public port answers 404')

  server.child.kill('SIGTERM')
  t.same(await server.exited, { code: 0, signal: null }, 'both listeners close and the process exits 0')
  t.equal(server.stderr(), '')
})

t.test('a port already taken stops start-up with a fatal line naming the variables it came from', async (t) => {
  const taken = createServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  t.teardown(() => taken.close())
  const { port } = taken.address() as AddressInfo
  const server = startServer(t, { ...SECRETS, NODE_ENV: 'test', PORT: String(await freePort()), METRICS_PORT: String(port) })
  const { code } = await server.exited
  t.equal(code, 1)
  t.ok(server.logs().some((line) => line.level === 60 && line.msg === 'could not start listening at METRICS_HOST and METRICS_PORT'), 'says why, and which setting')

  // The public listener's failure names its own settings, not the metrics'.
  const publicTaken = startServer(t, { ...SECRETS, NODE_ENV: 'test', PORT: String(port), METRICS_PORT: String(await freePort()) })
  t.equal((await publicTaken.exited).code, 1)
  t.ok(publicTaken.logs().some((line) => line.level === 60 && line.msg === 'could not start listening at HOST and PORT'))

  // A silent log still says why the instance stopped.
  const silent = startServer(t, { ...SECRETS, NODE_ENV: 'test', LOG_LEVEL: 'silent', PORT: String(port) })
  t.equal((await silent.exited).code, 1)
  t.match(silent.stderr(), /^could not start listening at HOST and PORT: listen EADDRINUSE[^\n]*\n$/, 'one line on stderr')
})
