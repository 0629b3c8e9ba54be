import Fastify, { type FastifyReply } from 'fastify'
import { EventEmitter } from 'node:events'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'
import type { Test } from 'tap'

/**
 * A stand-in for OpenReplay's ingest point, for browser tests: it records
 * every request and answers the calls @openreplay/tracker 15.0.3 makes
 * (read from node_modules/@openreplay/tracker/dist/lib/index.js):
 *   POST {ingest}/v1/web/start        start a session (page, fetch)
 *   POST {ingest}/v1/web/not-started  a start failure (page, XMLHttpRequest, text body)
 *   GET  {ingest}/v1/web/tags         watched tags, after a start
 *   POST {ingest}/v1/web/i?batch=…    recorded events (the blob: worker, Bearer token, maybe gzip)
 */

/** How the stand-in answers POST /v1/web/start. */
export type StartAnswer =
  | 'session' // a valid start response
  | 'server-error' // 500, as when the ingest point is down
  | 'not-json' // 200 whose body is not JSON
  | 'wrong-shape' // 200 JSON without the fields the tracker checks

export interface IngestRequest {
  method: string
  /** Path and query, as received. */
  url: string
  /** The path below the ingest point (`/v1/web/start`), or the full path for anything else. */
  endpoint: string
  headers: Record<string, string | string[] | undefined>
  /** The raw body; gunzipped when sent with Content-Encoding: gzip. */
  body: Buffer
}

/** Mirrors the real ingest point's path: OpenReplay's default is https://api.openreplay.com/ingest. */
const PREFIX = '/ingest'

export const STAND_IN_SESSION = {
  token: 'stand-in-session-token',
  userUUID: 'stand-in-user-uuid',
  projectID: 1,
  beaconSizeLimit: 200_000,
  compressionThreshold: 24_000,
  delay: 0,
  sessionID: '7000000000000000001',
  userBrowser: 'Chrome',
  userCity: 'Unknown',
  userCountry: 'UN',
  userDevice: '',
  userOS: 'Linux',
  userState: 'Unknown',
  canvasEnabled: false,
  canvasQuality: 'low',
  canvasFPS: 1,
  assistOnly: false,
  features: { 'feature-flags': false, 'usability-test': false }
}

/**
 * CORS as the tracker needs it: every call is cross-origin, without
 * credentials; start is JSON (preflighted) and batches carry Authorization
 * and Content-Encoding. The list is fixed on purpose: a tracker that sent
 * another header would fail its preflight here, as it could in production.
 */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type, Authorization, Content-Encoding',
  'access-control-max-age': '600'
}

export interface IngestStandIn {
  /** The value for OPENREPLAY_INGEST_POINT: http://127.0.0.1:PORT/ingest. */
  ingestPoint: string
  /** http://127.0.0.1:PORT */
  origin: string
  /** Every request so far, preflights included, in arrival order. */
  requests: IngestRequest[]
  /** Requests to one endpoint (`/v1/web/start`), preflights excluded. */
  calls: (endpoint: string) => IngestRequest[]
  /** The first recorded request that matches, waiting up to `timeoutMs` for it. */
  waitFor: (what: string, matches: (request: IngestRequest) => boolean, timeoutMs?: number) => Promise<IngestRequest>
}

export async function ingestStandIn (t: Test, { start = 'session' }: { start?: StartAnswer } = {}): Promise<IngestStandIn> {
  const requests: IngestRequest[] = []
  const recorded = new EventEmitter()
  const app = Fastify({ logger: false, bodyLimit: 10 * 1024 * 1024 })
  // Keep every body as sent: batches are binary and have no Content-Type,
  // not-started is JSON sent as text/plain.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => { done(null, body) })

  app.all('/*', async (request, reply) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
    const path = request.url.split('?')[0] ?? ''
    const entry: IngestRequest = {
      method: request.method,
      url: request.url,
      endpoint: path.startsWith(`${PREFIX}/`) ? path.slice(PREFIX.length) : path,
      headers: request.headers,
      body: request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw
    }
    requests.push(entry)
    recorded.emit('request', entry)

    reply.headers(CORS)
    if (request.method === 'OPTIONS') return reply.code(204).send()
    switch (`${request.method} ${entry.endpoint}`) {
      case 'POST /v1/web/start': return answerStart(start, reply)
      case 'GET /v1/web/tags': return reply.send({ tags: [] })
      case 'POST /v1/web/not-started':
      case 'POST /v1/web/i': return reply.code(200).send()
      // Anything else, e.g. a test's "third-party" request below the ingest point's origin.
      default: return reply.code(200).type('text/plain').send('stand-in')
    }
  })

  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`

  return {
    ingestPoint: `${origin}${PREFIX}`,
    origin,
    requests,
    calls: (endpoint) => requests.filter((request) => request.method !== 'OPTIONS' && request.endpoint === endpoint),
    waitFor: (what, matches, timeoutMs = 15_000) => {
      const seen = requests.find(matches)
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const onRequest = (request: IngestRequest) => {
          if (!matches(request)) return
          clearTimeout(timer)
          recorded.off('request', onRequest)
          resolve(request)
        }
        const timer = setTimeout(() => {
          recorded.off('request', onRequest)
          reject(new Error(`the ingest stand-in got no ${what} within ${timeoutMs} ms; it got: ${requests.map((r) => `${r.method} ${r.url}`).join(', ') || 'nothing'}`))
        }, timeoutMs)
        recorded.on('request', onRequest)
      })
    }
  }
}

function answerStart (start: StartAnswer, reply: FastifyReply) {
  switch (start) {
    case 'session': return reply.send({ ...STAND_IN_SESSION, startTimestamp: Date.now() })
    case 'server-error': return reply.code(500).type('text/plain').send('stand-in is down')
    case 'not-json': return reply.code(200).type('text/html').send('<html>captive portal</html>')
    case 'wrong-shape': return reply.send({ token: 42, sessionID: null })
  }
}

/** A request body parsed as JSON (start and not-started send JSON, the latter as text/plain). */
export function jsonBody (request: IngestRequest): Record<string, unknown> {
  return JSON.parse(request.body.toString('utf8'))
}
