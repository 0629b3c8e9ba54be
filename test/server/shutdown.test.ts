import { connect, type Socket } from 'node:net'
import t from 'tap'
import { byMarkedId, marked, startListening, type LogLine } from '../helpers/process.js'
import { getFresh, largestServedFile, openConnection, parseResponse, parseResponses, PIPELINED_COPIES, receivedEnding, refusedWithin, within } from '../helpers/raw-http.js'
import { listen } from '../helpers/server.js'

const isLog = (requestId: string, msg: string) => (line: LogLine) => line.requestId === requestId && line.msg === msg
const logged = (server: { logs: () => LogLine[] }, requestId: string, msg: string) => byMarkedId(server.logs()).some(isLog(requestId, msg))

t.test('a request in flight when SIGTERM arrives completes, new connections are refused, and the process exits 0', async (t) => {
  const file = largestServedFile()
  t.ok(file.bytes.length * PIPELINED_COPIES > 4.5 * 1024 * 1024, `the responses (${PIPELINED_COPIES} × ${file.url}, ${file.bytes.length} bytes) are larger than the socket buffers`)
  const server = await startListening(t)

  // A client that sends its requests at once, then reads nothing until the server is shutting down.
  const socket: Socket = connect(server.port, '127.0.0.1')
  t.teardown(() => { socket.destroy() })
  const chunks: Buffer[] = []
  const closedByServer = new Promise<true>((resolve) => socket.once('end', () => resolve(true)))
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.pause()
  const ids = Array.from({ length: PIPELINED_COPIES }, (_, index) => index === PIPELINED_COPIES - 1 ? 'in-flight' : `ahead-${index}`)
  socket.write(ids.map((id) => `GET ${marked(file.url, id)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n`).join(''))
  await server.waitForLog(() => logged(server, 'in-flight', 'incoming request'))

  server.child.kill('SIGTERM')
  await server.waitForLog((line) => line.msg === 'shutting down' && line.signal === 'SIGTERM')
  t.equal(await refusedWithin(server.port, 5000), 'ECONNREFUSED', 'new connections are refused once shutdown began')
  t.notOk(logged(server, 'in-flight', 'request completed'), 'the last response was still in flight when shutdown began')
  t.equal(server.child.exitCode, null, 'the process waits for it')

  // Now read: every response completes in full.
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.resume()
  const exit = await server.exited
  // Bounded: a connection left open would otherwise hang the test instead of failing it.
  const closed = await Promise.race([closedByServer, new Promise<false>((resolve) => setTimeout(resolve, 5000, false).unref())])
  const responses = parseResponses(Buffer.concat(chunks))
  t.equal(responses.length, PIPELINED_COPIES)
  t.same(responses.map((response) => response.status), ids.map(() => 200))
  t.ok(responses.every((response) => response.body.equals(file.bytes)), 'every byte of every copy arrived')
  t.ok(closed, 'the server closed the connection after them, though it was keep-alive')
  t.ok(logged(server, 'in-flight', 'request completed'), 'the last request completed')
  t.same(exit, { code: 0, signal: null }, 'then the process exits 0')
  t.equal(server.stderr(), '', 'nothing on stderr')
})

t.test('an idle keep-alive connection does not hold shutdown up', async (t) => {
  const server = await startListening(t)
  const socket = connect(server.port, '127.0.0.1')
  t.teardown(() => { socket.destroy() })
  const firstResponse = new Promise<Buffer>((resolve) => socket.once('data', resolve))
  socket.write('GET /resources/healthcheck HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n')
  t.match((await firstResponse).toString('latin1'), /^HTTP\/1\.1 200 OK[\s\S]*\r\n\r\nOK$/)
  const started = Date.now()
  server.child.kill('SIGTERM')
  t.same(await server.exited, { code: 0, signal: null })
  t.ok(Date.now() - started < 5000, 'well before the keep-alive timeout or the forced-exit delay')
})

t.test('a request that reached the server just as it began closing is answered 503 with Connection: close, not reset', async (t) => {
  const { app, url } = await listen(t)
  const connection = await openConnection(t, Number(new URL(url).port))
  const request = 'GET /resources/healthcheck HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'
  connection.socket.write(request)
  if (!await receivedEnding(connection, '\r\n\r\nOK')) return t.fail('no answer to the first request')
  // The connection is idle; its next request reaches the kernel in the same turn as close() begins,
  // before Node has read it: the moment a load balancer's request crosses the server's SIGTERM.
  const answered = connection.received().length
  connection.socket.write(request)
  const closing = app.close()
  const closed = await within(connection.closed, 5000, null)
  await closing
  if (!closed) return t.fail('the connection was left open')
  t.equal(closed.error, undefined, 'not reset')
  t.match(parseResponse(connection.received().subarray(answered)), { status: 503, headers: { connection: 'close' } })
})

t.test('a response started after closing began says Connection: close', async (t) => {
  let release = () => {}
  let entered = () => {}
  let began = () => {}
  const handlerEntered = new Promise<void>((resolve) => { entered = resolve })
  const closeBegan = new Promise<void>((resolve) => { began = resolve })
  const { app, url } = await listen(t, {
    routes: (scope) => {
      // Runs after the app's own preClose hooks.
      scope.addHook('preClose', async () => { began() })
      scope.get('/slow', async () => {
        entered()
        await new Promise<void>((resolve) => { release = resolve })
        return 'done'
      })
    }
  })
  const connection = await openConnection(t, Number(new URL(url).port))
  connection.socket.write('GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n')
  await handlerEntered
  const closing = app.close()
  await closeBegan
  release()
  const closed = await within(connection.closed, 5000, null)
  await closing
  t.match(parseResponse(connection.received()), { status: 200, headers: { connection: 'close' }, body: Buffer.from('done') }, 'so a keep-alive client sends nothing more on it')
  if (!closed) return t.fail('the connection was left open')
  t.equal(closed.error, undefined, 'and the server closed it cleanly')
})

t.test('SIGTERM drains: readiness fails at once, pages are served through the delay, then open connections are told to close and the process exits 0', async (t) => {
  const server = await startListening(t, { SHUTDOWN_DELAY_MS: '2000', SHUTDOWN_IDLE_GRACE_MS: '1500' })
  const connection = await openConnection(t, server.port)
  /** One request on the kept-alive connection, and its response. */
  const ask = async (path: string) => {
    const before = connection.received().length
    const answered = new Promise((resolve) => {
      const check = () => {
        if (connection.received().length === before || !/(Ready|<\/html>|\r\n0\r\n\r\n)$/.test(connection.received().toString('latin1'))) return
        connection.socket.off('data', check)
        resolve(null)
      }
      connection.socket.on('data', check)
    })
    connection.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/html\r\n\r\n`)
    await within(answered, 3000, null)
    return parseResponse(connection.received().subarray(before))
  }
  t.equal((await ask('/resources/readiness')).status, 200, 'ready before the signal')
  // Rendered and kept before the signal: the page asked for during the delay is a cache hit, no render racing it.
  for (let visit = 0; visit < 2; visit++) t.equal((await ask('/')).status, 200)

  server.child.kill('SIGTERM')
  await server.waitForLog((line) => line.msg === 'shutting down')
  t.match(await getFresh(`${server.url}/resources/readiness`), { status: 503, headers: { 'retry-after': '5' } }, 'readiness fails at once, on a new connection too')
  const during = await ask('/')
  t.equal(during.status, 200, 'a page during the delay')
  t.match(during.headers['server-timing'], /cache;desc=hit/, 'from the cache')
  t.not(during.headers.connection, 'close', 'with keep-alive: nothing but readiness changes during the delay')

  t.equal(await refusedWithin(server.port, 4000), 'ECONNREFUSED', 'after the delay the listener is closed')
  const after = await ask('/')
  t.equal(after.status, 200, 'a request on an open connection is still served')
  t.equal(after.headers.connection, 'close', 'and told to close its connection')
  t.same(await server.exited, { code: 0, signal: null }, 'then the process exits 0')
})

t.test('a second signal during the drain exits at once', async (t) => {
  const server = await startListening(t, { SHUTDOWN_DELAY_MS: '60000' })
  server.child.kill('SIGTERM')
  await server.waitForLog((line) => line.msg === 'shutting down')
  const started = Date.now()
  server.child.kill('SIGINT')
  const exit = await within(server.exited, 5000, null)
  t.ok(exit, 'the process ended')
  t.ok(Date.now() - started < 5000, 'without waiting out the delay')
  t.ok(server.logs().some((line) => line.level === 50 && line.msg === 'second SIGINT, exiting'), 'saying why in the JSON log')
  t.equal(server.stderr(), '', 'not on stderr')
})

t.test('after the delay only the listener closes: an idle keep-alive connection is left to its client for the grace, then closed', async (t) => {
  const { app, url } = await listen(t)
  const port = Number(new URL(url).port)
  const connection = await openConnection(t, port)
  const request = 'GET /resources/healthcheck HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'
  connection.socket.write(request)
  if (!await receivedEnding(connection, '\r\n\r\nOK')) return t.fail('no answer to the first request')

  let closedAt: number | undefined
  const drained = app.drain({ delayMs: 0, idleGraceMs: 800 }).then(() => { closedAt = performance.now() })
  t.equal(await refusedWithin(port, 2000), 'ECONNREFUSED', 'new connections are refused')
  t.equal(await within(connection.closed, 100, 'open'), 'open', 'the idle connection is not destroyed with the listener (a proxy may be reusing it)')

  // The proxy reuses it: served, and told to close.
  const answered = connection.received().length
  const second = new Promise((resolve) => connection.socket.once('data', resolve))
  connection.socket.write(request)
  if (!await within(second, 2000, null) || !await receivedEnding(connection, '\r\n\r\nOK')) return t.fail('no answer on the kept connection')
  t.match(parseResponse(connection.received().subarray(answered)), { status: 200, headers: { connection: 'close' } })
  const closed = await within(connection.closed, 2000, null)
  t.ok(closed && closed.error === undefined, 'then the server closes it cleanly')
  await drained
  t.ok(closedAt, 'and the app closes')
})

t.test('an idle connection its client keeps past the grace is closed then, and the app closes', async (t) => {
  const { app, url } = await listen(t)
  const connection = await openConnection(t, Number(new URL(url).port))
  connection.socket.write('GET /resources/healthcheck HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
  if (!await receivedEnding(connection, '\r\n\r\nOK')) return t.fail('no answer')
  const started = performance.now()
  await app.drain({ delayMs: 0, idleGraceMs: 300 })
  const closed = await within(connection.closed, 2000, null)
  t.ok(closed, 'closed by the server')
  t.ok(closed && closed.at - started >= 250, `not before the grace (${closed && Math.round(closed.at - started)} ms)`)
})
