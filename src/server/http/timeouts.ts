import type { ServerOptions } from 'node:http'

export interface Timeouts {
  headersTimeout: number
  requestTimeout: number
  /** Node waits a second more than the timeout it advertises, so clients let go first (nodejs/node#59243). */
  keepAliveTimeout: number
  connectionTimeout: number
  connectionsCheckingInterval: number
}

const PRODUCTION_TIMEOUTS: Readonly<Timeouts> = {
  // Room for a lossy mobile link; Node's 60 s is six times as long for a slowloris.
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  // Longer than a proxy's upstream keepalive_timeout, or it may reuse a connection as we close it (a 502).
  keepAliveTimeout: 10_000,
  connectionTimeout: 60_000,
  connectionsCheckingInterval: 1_000
}

/** Fastify's options for `timeouts`: two of them reach Node only through `http`, and Node checks requestTimeout there. */
export function timeoutOptions (overrides: Partial<Timeouts> = {}) {
  const { headersTimeout, requestTimeout, keepAliveTimeout, connectionTimeout, connectionsCheckingInterval } = { ...PRODUCTION_TIMEOUTS, ...overrides }
  const http: ServerOptions = { headersTimeout, requestTimeout, connectionsCheckingInterval }
  return { connectionTimeout, keepAliveTimeout, requestTimeout, http }
}
