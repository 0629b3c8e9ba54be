import type { FastifyServerOptions } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { randomBytes } from 'node:crypto'
import proxyAddr from 'proxy-addr'
import type { TrustProxy } from './trust-proxy.js'

// An incoming id only from a trusted proxy: anyone else could write into our logs or pass as another's requests.

export type IsTrustedProxy = (address: string) => boolean

/** The same rule Fastify applies to `trustProxy`, for the nearest hop only (proxy-addr's `compile`, as Fastify uses it). */
export function trustedProxyPredicate (trust: TrustProxy | string = false): IsTrustedProxy {
  if (trust === true) return () => true
  if (trust === false) return () => false
  if (typeof trust === 'number') return () => trust > 0
  const addresses = typeof trust === 'string' ? trust.split(',').map((part) => part.trim()).filter(Boolean) : trust
  const trusted = proxyAddr.compile([...addresses])
  return (address) => trusted(address, 0)
}

// version-traceid-parentid-flags, lower-case hex (https://www.w3.org/TR/trace-context/#traceparent-header).
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/
const ZERO_TRACE = '0'.repeat(32)
const ZERO_PARENT = '0'.repeat(16)

export function traceIdOf (traceparent: unknown): string | undefined {
  if (typeof traceparent !== 'string') return undefined
  const match = TRACEPARENT.exec(traceparent)
  if (!match) return undefined
  const [, version, traceId, parentId, , rest] = match
  // Version ff is forbidden; version 00 has exactly four fields; a later version may append more.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined
  if (traceId === ZERO_TRACE || parentId === ZERO_PARENT) return undefined
  return traceId
}

const REQUEST_ID = /^[\w.-]{1,128}$/

export function requestIdOf (header: unknown): string | undefined {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : undefined
}

/** A random prefix per process, so instances never collide in shared logs. */
export function idSequence (prefix = randomBytes(6).toString('base64url')): () => string {
  let count = 0
  return () => `${prefix}-${(++count).toString(36)}`
}

/** The trust check runs only when an id arrived, so a request without one pays for nothing but the counter. */
export function createGenReqId (isTrustedProxy: IsTrustedProxy, next = idSequence()): NonNullable<FastifyServerOptions['genReqId']> {
  return (request: IncomingMessage) => {
    const { traceparent, 'x-request-id': requestId } = request.headers
    if (traceparent === undefined && requestId === undefined) return next()
    const address = request.socket?.remoteAddress
    if (address === undefined || !isTrustedProxy(address)) return next()
    return traceIdOf(traceparent) ?? requestIdOf(requestId) ?? next()
  }
}
