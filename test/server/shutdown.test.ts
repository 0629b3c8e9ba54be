import { readdirSync, readFileSync, statSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { DIST_DIR } from '../../src/server/app.js'
import { startListening, type LogLine } from '../helpers/process.js'

/**
 * A response only stays in flight while the client is not reading it if it
 * is larger than what the kernel buffers on both ends: take the largest file
 * the build serves (a source map of over a megabyte) and read it slowly.
 */
function largestServedFile (): { url: string, bytes: Buffer } {
  const dir = join(DIST_DIR, 'client', 'assets')
  const [name] = readdirSync(dir)
    .filter((file) => !/\.(br|gz)$/.test(file))
    .sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size)
  if (!name) throw new Error(`nothing built in ${dir}`)
  return { url: `/assets/${name}`, bytes: readFileSync(join(dir, name)) }
}

/** Resolves once a connection is refused: the server stopped accepting. Polled, bounded. */
async function refusedWithin (port: number, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const outcome = await new Promise<string>((resolve) => {
      const probe = connect(port, '127.0.0.1')
      probe.once('connect', () => { probe.destroy(); resolve('accepted') })
      probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    })
    // Accepted, or reset from the backlog while the listener closes: not refused yet.
    if (outcome === 'ECONNREFUSED' || Date.now() > deadline) return outcome
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** Splits a raw HTTP/1.1 response with a Content-Length into status, headers and body. */
function parseResponse (raw: Buffer) {
  const end = raw.indexOf('\r\n\r\n')
  const [statusLine = '', ...headerLines] = raw.subarray(0, end).toString('latin1').split('\r\n')
  const headers = Object.fromEntries(headerLines.map((line) => {
    const colon = line.indexOf(':')
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]
  }))
  return { status: Number(statusLine.split(' ')[1]), headers, body: raw.subarray(end + 4) }
}

const isLog = (requestId: string, msg: string) => (line: LogLine) => line.requestId === requestId && line.msg === msg

t.test('a request in flight when SIGTERM arrives completes, new connections are refused, and the process exits 0', async (t) => {
  const file = largestServedFile()
  t.ok(file.bytes.length > 1024 * 1024, `the response (${file.url}, ${file.bytes.length} bytes) is larger than the socket buffers`)
  const server = await startListening(t)

  // A client that sends its request, then reads nothing until the server is shutting down.
  const socket: Socket = connect(server.port, '127.0.0.1')
  t.teardown(() => { socket.destroy() })
  const chunks: Buffer[] = []
  const closedByServer = new Promise<true>((resolve) => socket.once('end', () => resolve(true)))
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.pause()
  socket.write(`GET ${file.url} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\nX-Request-Id: in-flight\r\n\r\n`)
  await server.waitForLog(isLog('in-flight', 'incoming request'))

  server.child.kill('SIGTERM')
  await server.waitForLog((line) => line.msg === 'shutting down' && line.signal === 'SIGTERM')
  t.equal(await refusedWithin(server.port, 5000), 'ECONNREFUSED', 'new connections are refused once shutdown began')
  t.notOk(server.logs().some(isLog('in-flight', 'request completed')), 'the response was still in flight when shutdown began')
  t.equal(server.child.exitCode, null, 'the process waits for it')

  // Now read: the response completes in full.
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.resume()
  const exit = await server.exited
  // Bounded: a connection left open would otherwise hang the test instead of failing it.
  const closed = await Promise.race([closedByServer, new Promise<false>((resolve) => setTimeout(resolve, 5000, false).unref())])
  const response = parseResponse(Buffer.concat(chunks))
  t.equal(response.status, 200)
  t.equal(response.headers['content-length'], String(file.bytes.length))
  t.ok(response.body.equals(file.bytes), 'every byte of the file arrived')
  t.ok(closed, 'the server closed the connection after it, though it was keep-alive')
  t.ok(server.logs().some(isLog('in-flight', 'request completed')), 'the request completed')
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
