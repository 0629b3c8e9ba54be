import { readdirSync, readFileSync, statSync } from 'node:fs'
import { request, type IncomingHttpHeaders } from 'node:http'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { Test } from 'tap'
import { DIST_DIR } from '../../src/server/app.js'

/**
 * Tests that play a misbehaving client speak HTTP over raw sockets: an HTTP
 * library would finish the headers, read the response and retry for them.
 */

export interface RawConnection {
  socket: Socket
  /** performance.now() when the connection was established. */
  openedAt: number
  /** Every byte the server sent so far. */
  received: () => Buffer
  /** Settles when the connection is closed, by either side: the moment, and the error code if it was reset. */
  closed: Promise<{ at: number, error?: string }>
}

/** Opens a connection to 127.0.0.1:`port`, destroyed at teardown; `paused` reads nothing until resumed. */
export async function openConnection (t: Test, port: number, { paused = false } = {}): Promise<RawConnection> {
  const socket = connect(port, '127.0.0.1')
  t.teardown(() => { socket.destroy() })
  const chunks: Buffer[] = []
  let error: string | undefined
  socket.on('error', (cause: NodeJS.ErrnoException) => { error = cause.code ?? cause.message })
  const closed = new Promise<{ at: number, error?: string }>((resolve) => {
    socket.once('close', () => resolve({ at: performance.now(), ...(error ? { error } : {}) }))
  })
  await new Promise((resolve, reject) => { socket.once('connect', resolve).once('error', reject) })
  if (paused) socket.pause()
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  return { socket, openedAt: performance.now(), received: () => Buffer.concat(chunks), closed }
}

/** Resolves with performance.now() once what the server sent so far ends with `suffix`; bounded by `timeoutMs`. */
export function receivedEnding (connection: RawConnection, suffix: string, timeoutMs = 3000): Promise<number | null> {
  return within(new Promise<number>((resolve) => {
    const check = () => {
      if (!connection.received().toString('latin1').endsWith(suffix)) return
      connection.socket.off('data', check)
      resolve(performance.now())
    }
    connection.socket.on('data', check)
    check()
  }), timeoutMs, null)
}

/** Settles with `promise`, or with `fallback` after `ms`: a hang fails the test instead of stalling it. */
export function within<T, F> (promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<F>((resolve) => { timer = setTimeout(resolve, ms, fallback) })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** Status, headers (names in lower case, repeats joined) and body of one HTTP/1.1 response; a chunked body is decoded. */
export function parseResponse (raw: Buffer): { status: number, headers: Record<string, string>, body: Buffer } {
  const end = raw.indexOf('\r\n\r\n')
  if (end < 0) throw new Error(`not an HTTP response: ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`)
  const [statusLine = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value
  }
  const content = raw.subarray(end + 4)
  const body = /chunked/i.test(headers['transfer-encoding'] ?? '') ? dechunk(content) : content
  return { status: Number(statusLine.split(' ')[1]), headers, body }
}

/**
 * How many copies of the largest file a client that reads nothing asks for at once: more than the kernel takes in
 * (a send buffer of up to 4 MB), so the last is still under way whatever the buffers grew to.
 */
export const PIPELINED_COPIES = 8

/** Responses sent back to back on one connection, each with its Content-Length; the last may be cut short. */
export function parseResponses (raw: Buffer): Array<ReturnType<typeof parseResponse>> {
  const responses: Array<ReturnType<typeof parseResponse>> = []
  let rest = raw
  while (rest.includes('\r\n\r\n')) {
    const response = parseResponse(rest)
    const length = Number(response.headers['content-length'])
    responses.push({ ...response, body: response.body.subarray(0, length) })
    rest = rest.subarray(rest.indexOf('\r\n\r\n') + 4 + length)
  }
  return responses
}

function dechunk (content: Buffer): Buffer {
  const parts: Buffer[] = []
  let offset = 0
  for (;;) {
    const lineEnd = content.indexOf('\r\n', offset)
    if (lineEnd < 0) throw new Error('a chunked body cut short')
    const size = parseInt(content.subarray(offset, lineEnd).toString('latin1'), 16)
    if (size === 0) return Buffer.concat(parts)
    parts.push(content.subarray(lineEnd + 2, lineEnd + 2 + size))
    offset = lineEnd + 2 + size + 2
  }
}

/** Resolves once a connection is refused: the server stopped accepting. Polled, bounded. */
export async function refusedWithin (port: number, timeoutMs: number): Promise<string> {
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

/**
 * A response only stays in flight while the client is not reading it if it
 * is larger than what the kernel buffers on both ends: take the largest file
 * the build serves (a source map of over a megabyte).
 */
export function largestServedFile (): { url: string, bytes: Buffer } {
  const dir = join(DIST_DIR, 'client', 'assets')
  const [name] = readdirSync(dir)
    .filter((file) => !/\.(br|gz)$/.test(file))
    .sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size)
  if (!name) throw new Error(`nothing built in ${dir}`)
  return { url: `/assets/${name}`, bytes: readFileSync(join(dir, name)) }
}

export interface FreshResponse {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/** A GET on a connection of its own, as a new visitor or a load balancer's probe makes it. */
export function getFresh (url: string, headers: Record<string, string> = {}): Promise<FreshResponse> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false, headers }, (response) => {
      let body = ''
      response.setEncoding('utf8').on('data', (chunk: string) => { body += chunk })
      response.once('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }))
      response.once('error', reject)
    }).once('error', reject).end()
  })
}
