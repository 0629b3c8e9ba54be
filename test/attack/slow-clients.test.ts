import type { Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import t, { type Test } from 'tap'
import { buildApp } from '../../src/server/app.js'
import { ERRORS } from '../../src/server/errors.js'
import type { Timeouts } from '../../src/server/http/timeouts.js'
import { build, testEnv } from '../helpers/app.js'
import { getFresh, largestServedFile, openConnection, parseResponse, receivedEnding, within, type RawConnection } from '../helpers/raw-http.js'
import { listen } from '../helpers/server.js'

/**
 * Slow and idle clients (slowloris) against a listening app. The timeouts are
 * shrunk to hundreds of milliseconds and spread far enough apart that the one
 * that cut a client off can be told from the others.
 */
const SHORT: Timeouts = {
  headersTimeout: 300,
  keepAliveTimeout: 500,
  connectionTimeout: 800,
  requestTimeout: 1200,
  connectionsCheckingInterval: 50
}

/** Scheduling noise allowed on a busy two-core machine, still less than the gap to the next timeout. */
const LATE_MS = 400

/**
 * Node 20 closes an idle keep-alive socket a second after the timeout it
 * advertises (Keep-Alive: timeout=N), so that a client honouring the header
 * lets go first; later versions call it keepAliveTimeoutBuffer (nodejs/node#59243).
 */
const KEEP_ALIVE_GRACE_MS = 1000

async function listenShort (t: Test, timeouts: Partial<Timeouts> = SHORT) {
  const listening = await listen(t, { timeouts })
  return { ...listening, port: Number(new URL(listening.url).port) }
}

/** Writes `text` one byte every `everyMs` until the connection closes. */
function trickle (connection: RawConnection, text: string, everyMs = 50) {
  let next = 0
  const timer = setInterval(() => {
    if (connection.socket.destroyed || next >= text.length) return clearInterval(timer)
    connection.socket.write(text[next++] ?? '')
  }, everyMs)
  void connection.closed.then(() => clearInterval(timer))
}

const REQUEST_TIMEOUT_408 = /^HTTP\/1\.1 408 Request Timeout\r\n/

t.test('the production timeouts are the documented values', async (t) => {
  const { app } = await build(t)
  // @types/node 20 does not declare connectionsCheckingInterval, which Node 18.12+ has.
  const server = app.server as typeof app.server & { connectionsCheckingInterval: number }
  const { headersTimeout, requestTimeout, keepAliveTimeout, timeout, connectionsCheckingInterval, maxRequestsPerSocket } = server
  t.same(
    { headersTimeout, requestTimeout, keepAliveTimeout, connectionTimeout: timeout, connectionsCheckingInterval, maxRequestsPerSocket },
    { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 10_000, connectionTimeout: 60_000, connectionsCheckingInterval: 1_000, maxRequestsPerSocket: 0 }
  )
})

t.test('a headers timeout longer than the request timeout is refused at build time', async (t) => {
  await t.rejects(buildApp({ env: testEnv(), logger: false, timeouts: { headersTimeout: 2000, requestTimeout: 1000 } }), { code: 'ERR_OUT_OF_RANGE' })
})

t.test('a connection that sends nothing is answered 408 and closed at the headers timeout', async (t) => {
  const { port } = await listenShort(t)
  const connection = await openConnection(t, port)
  const closed = await within(connection.closed, 3000, null)
  if (!closed) return t.fail('still open after 3 s')
  const afterMs = closed.at - connection.openedAt
  t.ok(afterMs >= SHORT.headersTimeout - 20 && afterMs < SHORT.headersTimeout + LATE_MS, `closed after ${Math.round(afterMs)} ms`)
  const answer = connection.received().toString('utf8')
  t.match(answer, REQUEST_TIMEOUT_408, 'with a 408, so it was not the connection timeout, which says nothing')
  t.ok(answer.endsWith(`\r\n\r\n${ERRORS.REQUEST_TIMEOUT.message}`), 'in the catalogue\'s words')
})

t.test('a client trickling its headers is answered 408 and closed at the headers timeout', async (t) => {
  const { port } = await listenShort(t)
  const connection = await openConnection(t, port)
  // A byte every 50 ms keeps the socket busy, so only the headers timeout can end it.
  trickle(connection, `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(200)}`)
  const closed = await within(connection.closed, 3000, null)
  if (!closed) return t.fail('still open after 3 s')
  const afterMs = closed.at - connection.openedAt
  t.ok(afterMs >= SHORT.headersTimeout - 20 && afterMs < SHORT.headersTimeout + LATE_MS, `closed after ${Math.round(afterMs)} ms, before the request timeout (${SHORT.requestTimeout} ms)`)
  t.match(connection.received().toString('latin1'), REQUEST_TIMEOUT_408)
})

t.test('a client trickling its body is answered 408 and closed at the request timeout', async (t) => {
  const { port } = await listenShort(t)
  const connection = await openConnection(t, port)
  connection.socket.write('POST /resources/theme-switch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n')
  trickle(connection, `theme=dark&redirectTo=${'a'.repeat(980)}`)
  const closed = await within(connection.closed, 4000, null)
  if (!closed) return t.fail('still open after 4 s')
  const afterMs = closed.at - connection.openedAt
  t.ok(afterMs >= SHORT.requestTimeout - 20 && afterMs < SHORT.requestTimeout + LATE_MS, `closed after ${Math.round(afterMs)} ms`)
  t.match(connection.received().toString('latin1'), REQUEST_TIMEOUT_408)
})

t.test('an idle keep-alive connection is closed at the keep-alive timeout', async (t) => {
  const { port } = await listenShort(t)
  const connection = await openConnection(t, port)
  connection.socket.write('GET /resources/healthcheck HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n')
  const answered = await receivedEnding(connection, '\r\n\r\nOK')
  if (!answered) return t.fail('no response within 3 s')
  t.match(parseResponse(connection.received()), { status: 200, headers: { connection: 'keep-alive' } }, 'kept alive at first')
  const closed = await within(connection.closed, 3000, null)
  if (!closed) return t.fail('still open 3 s after the response')
  const idleMs = closed.at - answered
  const expected = SHORT.keepAliveTimeout + KEEP_ALIVE_GRACE_MS
  t.ok(idleMs >= expected - 20 && idleMs < expected + LATE_MS, `closed after ${Math.round(idleMs)} ms idle`)
  t.equal(closed.error, undefined, 'closed cleanly, not reset')
  t.equal(parseResponse(connection.received()).body.toString(), 'OK', 'and nothing more was sent')
})

t.test('a client that stops reading its response is cut off at the connection timeout', async (t) => {
  const file = largestServedFile()
  const { app, port } = await listenShort(t)
  const serverSideClosed = new Map<number, Promise<number>>()
  app.server.on('connection', (socket: Socket) => {
    serverSideClosed.set(socket.remotePort ?? 0, new Promise((resolve) => socket.once('close', () => resolve(performance.now()))))
  })
  const connection = await openConnection(t, port, { paused: true })
  const sent = performance.now()
  // Pipelined, the responses outgrow what the kernel buffers on both ends (about 4 MiB here), so one stalls.
  const pipelined = 8
  connection.socket.write(`GET ${file.url} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n`.repeat(pipelined))
  const serverClosed = serverSideClosed.get(connection.socket.localPort ?? -1)
  if (!serverClosed) return t.fail('the server did not see the connection')
  // The requests were whole at once, so neither the headers nor the request timeout applies.
  const closedAt = await within(serverClosed, 4000, null)
  if (!closedAt) return t.fail('the server kept the stalled connection for 4 s')
  // Node spares a socket whose write moved since the timer was armed for one more period
  // (Socket.prototype._onTimeout in lib/net.js), so a stalled response is cut within two.
  const afterMs = closedAt - sent
  t.ok(afterMs >= SHORT.connectionTimeout - 20 && afterMs < 2 * SHORT.connectionTimeout + LATE_MS, `the server dropped it after ${Math.round(afterMs)} ms`)

  connection.socket.resume()
  await within(connection.closed, 3000, null)
  const received = connection.received()
  t.equal(parseResponse(received).status, 200, 'the responses had begun')
  t.ok(received.length < pipelined * file.bytes.length, `and were cut short: ${received.length} bytes, the files alone are ${pipelined * file.bytes.length}`)
})

t.test('300 slow clients neither starve the health check and the document nor outlive their timeouts', async (t) => {
  // Long enough to probe the server while every slow client still hangs on.
  const timeouts = { headersTimeout: 1500, requestTimeout: 3000, connectionsCheckingInterval: 100 }
  const { url, port } = await listenShort(t, timeouts)
  const opened = await Promise.all(Array.from({ length: 300 }, async (_, index) => {
    const connection = await openConnection(t, port)
    const kind = (['silent', 'headers', 'body'] as const)[index % 3] ?? 'silent'
    if (kind === 'headers') trickle(connection, `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${'a'.repeat(500)}`, 100)
    if (kind === 'body') {
      // Within the route's body limit (4 KiB), which would otherwise answer 413 at once.
      connection.socket.write('POST /resources/theme-switch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3000\r\n\r\n')
      trickle(connection, `theme=dark&x=${'a'.repeat(2900)}`, 100)
    }
    return { connection, kind }
  }))
  const openedBy = Math.max(...opened.map(({ connection }) => connection.openedAt))
  let open = opened.length
  for (const { connection } of opened) void connection.closed.then(() => { open-- })

  const health = await getFresh(`${url}/resources/healthcheck`)
  t.match(health, { status: 200, body: 'OK' }, 'the health check answers')
  const page = await getFresh(`${url}/`, { accept: 'text/html' })
  t.equal(page.status, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.match(page.body, /^<!DOCTYPE html>[\s\S]*<\/html>$/, 'the document renders whole')
  t.ok(performance.now() - openedBy < timeouts.headersTimeout, 'before any slow client could have timed out')
  t.equal(open, opened.length, 'while all 300 slow clients still hang on')

  const results = await within(Promise.all(opened.map(async ({ connection, kind }) => {
    const closed = await connection.closed
    return { kind, afterMs: closed.at - connection.openedAt, answer: connection.received().toString('latin1') }
  })), timeouts.requestTimeout + 3000, null)
  if (!results) return t.fail(`${open} slow clients still open ${timeouts.requestTimeout + 3000} ms later`)
  for (const kind of ['silent', 'headers', 'body'] as const) {
    const limit = kind === 'body' ? timeouts.requestTimeout : timeouts.headersTimeout
    const ofKind = results.filter((result) => result.kind === kind)
    // Never before the limit; after it, as soon as Node's connection check runs, which a busy 2-core machine delays.
    const cutOff = ofKind.filter(({ afterMs, answer }) => afterMs >= limit - 20 && afterMs < limit + 2500 && REQUEST_TIMEOUT_408.test(answer))
    t.equal(cutOff.length, ofKind.length, `every ${kind} client got a 408 at ${limit} ms (latest after ${Math.round(Math.max(...ofKind.map(({ afterMs }) => afterMs)))} ms)`)
  }
  t.match(await getFresh(`${url}/resources/healthcheck`), { status: 200, body: 'OK' }, 'and the server is still healthy')
})
