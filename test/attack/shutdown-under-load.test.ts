import { Agent, request } from 'node:http'
import { connect } from 'node:net'
import t from 'tap'
import { pageData } from '../helpers/app.js'
import { byMarkedId, marked, startListening, type LogLine } from '../helpers/process.js'
import { largestServedFile, parseResponses, PIPELINED_COPIES, within } from '../helpers/raw-http.js'

/**
 * SIGTERM in the middle of steady traffic, as during a rolling deploy. The
 * slow-reader case is test/server/shutdown.test.ts; here many ordinary
 * keep-alive clients are mid-request at once.
 */

const CLIENTS = 20
/** What Fastify logs for a request that arrives while it closes (lib/log-controller.js). */
const CLOSING_503 = 'request aborted - refusing to accept new requests as server is closing'
/** The body of that refusal (lib/route.js). */
const CLOSING_503_BODY = '{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}'
const VISITOR_COOKIES = 'en_theme=dark; CH-prefers-color-scheme=dark; CH-time-zone=Europe%2FParis'

interface Outcome {
  id: string
  path: string
  status?: number
  headers?: Record<string, string | string[] | undefined>
  body?: Buffer
  /** Node's IncomingMessage.complete: the whole message arrived. */
  complete?: boolean
  error?: string
}

/**
 * Requests the large file eight times at once on its own connection and stops reading after the first chunk, so a
 * response is certain to be under way at the signal; reading resumes when `resume` settles.
 */
function sendPausedAfterFirstChunk (port: number, path: string, resume: Promise<unknown>): { started: Promise<void>, outcomes: Promise<Outcome[]> } {
  let started = () => {}
  const startedPromise = new Promise<void>((resolve) => { started = resolve })
  const ids = Array.from({ length: PIPELINED_COPIES }, (_, index) => `paused-reader-${index}`)
  const outcomes = new Promise<Outcome[]>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.once('connect', () => socket.write(ids.map((id) => `GET ${marked(path, id)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/html\r\n\r\n`).join('')))
    socket.on('data', (chunk: Buffer) => {
      if (chunks.push(chunk) === 1) {
        socket.pause()
        started()
        void resume.then(() => socket.resume())
      }
    })
    socket.once('error', () => {})
    socket.once('close', () => {
      const responses = parseResponses(Buffer.concat(chunks))
      resolve(ids.map((id, index) => {
        const response = responses[index]
        if (!response) return { id, path, error: 'no response' }
        const { status, headers, body } = response
        return { id, path, status, headers, body, complete: body.length === Number(headers['content-length']) }
      }))
    })
  })
  return { started: startedPromise, outcomes }
}

function send (agent: Agent, port: number, id: string, path: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const outcome: Outcome = { id, path }
    const headers = { accept: 'text/html', cookie: VISITOR_COOKIES }
    const req = request({ agent, host: '127.0.0.1', port, path: marked(path, id), headers }, (response) => {
      // Kept as bytes: decoding every file would make this process, not the server, the bottleneck.
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.once('close', () => {
        resolve({ ...outcome, status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks), complete: response.complete })
      })
    })
    req.once('error', (error: NodeJS.ErrnoException) => resolve({ ...outcome, error: error.code ?? error.message }))
    req.end()
  })
}

/** A whole, valid answer: the document to its last tag, the health check's OK, the file byte for byte, or the 503 Fastify gives requests that arrive while it closes. */
function problemWith (outcome: Outcome, file: { url: string, bytes: Buffer }): string | undefined {
  if (outcome.error) return `failed with ${outcome.error}`
  if (!outcome.complete) return `truncated after ${outcome.body?.length} bytes`
  const { status, headers = {}, body = Buffer.alloc(0) } = outcome
  if (status === 503) return headers.connection === 'close' ? undefined : '503 without Connection: close'
  if (status !== 200) return `answered ${status}`
  if (outcome.path === file.url) return body.equals(file.bytes) ? undefined : `${body.length} bytes, not the file`
  const text = body.toString('utf8')
  if (outcome.path === '/resources/healthcheck') return text === 'OK' ? undefined : `health check body ${JSON.stringify(text)}`
  if (!/^<!DOCTYPE html>[\s\S]*<\/html>$/.test(text)) return 'the document is not whole'
  try {
    pageData(text)
  } catch (error) {
    return `no page data: ${(error as Error).message}`
  }
  return undefined
}

t.test('SIGTERM under steady traffic: accepted requests complete, new connections are refused, exit 0', async (t) => {
  const server = await startListening(t)
  // A large file takes the server several turns of its event loop to send: some are mid-response at the signal.
  const file = largestServedFile()
  const paths = ['/', '/resources/healthcheck', file.url]
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS })
  t.teardown(() => agent.destroy())

  const outcomes: Outcome[] = []
  let stop = false
  let warmedUp = () => {}
  const warm = new Promise<true>((resolve) => { warmedUp = () => resolve(true) })
  const clients = Array.from({ length: CLIENTS }, async (_, client) => {
    for (let n = 0; !stop; n++) {
      const outcome = await send(agent, server.port, `c${client}-${n}`, paths[(client + n) % paths.length] ?? '/')
      if (outcomes.push(outcome) === 300) warmedUp()
      // Refused: nothing listens any more, and this client is done.
      if (outcome.error === 'ECONNREFUSED') return
    }
  })
  t.teardown(async () => {
    stop = true
    await Promise.all(clients)
  })

  t.ok(await within(warm, 10_000, false), `traffic flowing: ${outcomes.length} responses before the signal`)
  // Ordinary requests finish within a turn or two of the server's loop, so whether one is under way
  // at the signal is luck; this one is certainly mid-response, and must still arrive whole.
  let signalSent = () => {}
  const afterSignal = new Promise<void>((resolve) => { signalSent = resolve })
  const paused = sendPausedAfterFirstChunk(server.port, file.url, afterSignal.then(() => new Promise((resolve) => setTimeout(resolve, 200))))
  t.ok(await within(paused.started.then(() => true), 5000, false), 'a response is under way')

  const signalled = Date.now()
  server.child.kill('SIGTERM')
  signalSent()
  outcomes.push(...await paused.outcomes)
  const exit = await within(server.exited, 10_000, null)
  t.same(exit, { code: 0, signal: null }, `the process exits 0 (after ${Date.now() - signalled} ms)`)
  t.ok(Date.now() - signalled < 5000, 'within 5 s, before close-with-grace would force an exit 1 at 10 s')
  t.equal(server.stderr(), '', 'nothing on stderr')

  // Every client ends on a refused connection once the listener is gone.
  const ended = await within(Promise.all(clients).then(() => true), 5000, false)
  t.ok(ended, 'every client stopped at a refused connection')

  const logs = byMarkedId(server.logs())
  const shutdownAt = logs.findIndex((line) => line.msg === 'shutting down' && line.signal === 'SIGTERM')
  t.ok(shutdownAt > 0, 'the server logged the signal')
  const loggedIds = new Set(logs.map((line: LogLine) => line.requestId).filter((id): id is string => typeof id === 'string'))
  const firstLine = (id: string, msg: string) => logs.findIndex((line) => line.requestId === id && line.msg === msg)

  const inFlight = [...loggedIds].filter((id) => {
    const incoming = firstLine(id, 'incoming request')
    return incoming >= 0 && incoming < shutdownAt && firstLine(id, 'request completed') > shutdownAt
  })
  t.ok(inFlight.length > 0, `${inFlight.length} requests were in flight when shutdown began`)

  const accepted = outcomes.filter((outcome) => loggedIds.has(outcome.id))
  const broken = accepted.map((outcome) => ({ id: outcome.id, problem: problemWith(outcome, file) })).filter(({ problem }) => problem)
  t.same(broken, [], `every one of the ${accepted.length} accepted requests got a whole, valid response`)
  t.ok(inFlight.every((id) => outcomes.find((outcome) => outcome.id === id)?.status === 200), 'those in flight at the signal got their 200')

  // A request the server never read may fail, in the two ways a closing server allows: refused by
  // a closed listener, or reset with a connection closed as it arrived (RFC 9112 §9.3.1: clients retry these).
  const failed = outcomes.filter((outcome) => outcome.error)
  t.same(failed.filter((outcome) => loggedIds.has(outcome.id)), [], 'no request the server accepted failed')
  t.same(failed.filter((outcome) => outcome.error !== 'ECONNREFUSED' && outcome.error !== 'ECONNRESET'), [], 'none failed otherwise')
  const refused = failed.filter((outcome) => outcome.error === 'ECONNREFUSED')
  t.equal(refused.length, CLIENTS, 'new connections are refused: each client ended on one')

  // Requests read after close began are refused by Fastify with a 503 that closes the connection,
  // logged as that refusal alone (no "incoming request" line, so without the URL that names the test's id).
  const unavailable = outcomes.filter((outcome) => outcome.status === 503)
  const refusals = logs.flatMap((line, index) => line.msg === CLOSING_503 ? [index] : [])
  t.ok(refusals.every((index) => index > shutdownAt), 'Fastify refused requests as closing only after shutdown began')
  t.same(unavailable.filter((outcome) => outcome.body?.toString('utf8') !== CLOSING_503_BODY).map(({ id }) => id), [],
    'every 503 is that refusal, by its body')
  // Logged at info, so not for the health check, whose route logs from warn up (src/server/routes/probes.ts).
  // A refusal can also be cut off by the closing connection: the client then sees a reset.
  const logged = unavailable.filter((outcome) => outcome.path !== '/resources/healthcheck')
  t.ok(logged.length <= refusals.length, `every 503 off the health check is one of those logged refusals (${logged.length} of ${refusals.length})`)
  t.same(unavailable.filter((outcome) => firstLine(outcome.id, 'incoming request') >= 0), [], 'and none went to a request the server had taken in')
  t.comment(`${outcomes.length} requests: ${accepted.length} accepted (${unavailable.length} of them answered 503), ${refused.length} refused, ${failed.length - refused.length} reset before being read`)
})
