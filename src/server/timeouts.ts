import type { ServerOptions } from 'node:http'

/**
 * How long the server waits on a client, in milliseconds. Each one bounds a
 * way a slow or idle client (slowloris) can hold a socket and its memory;
 * test/attack/slow-clients.test.ts shows each one cutting a client off.
 *
 * maxRequestsPerSocket stays unlimited (Node's default): every request on a
 * socket is already bounded by these, so capping their number would only add
 * reconnects. Set it where a layer-4 balancer must spread keep-alive clients
 * over new instances.
 */
export interface Timeouts {
  /** From a request's first byte, or the connection's opening, to the end of its headers; then 408 and close. */
  headersTimeout: number
  /** From a request's first byte to the end of its body; then 408 and close. Node requires it ≥ headersTimeout. */
  requestTimeout: number
  /**
   * A keep-alive connection idle between two requests; then closed. Node 20 waits a second more
   * than the Keep-Alive: timeout=N it advertises, so clients honouring it let go first (nodejs/node#59243).
   */
  keepAliveTimeout: number
  /**
   * A socket silent both ways, such as a client that stopped reading its response; then destroyed.
   * Node gives a write that moved since the timer was armed one more period: up to twice this.
   */
  connectionTimeout: number
  /** How often Node looks for requests past headersTimeout or requestTimeout: by how much either may overrun. */
  connectionsCheckingInterval: number
}

const PRODUCTION_TIMEOUTS: Readonly<Timeouts> = {
  // Browsers send their headers at once; 10 s leaves room for a lossy mobile link.
  // Left to Node, as Fastify creates the server, it was 60 s: six times as long for a slowloris.
  headersTimeout: 10_000,
  // The largest body accepted (bodyLimit, 64 KiB) still arrives at about 2 KiB/s.
  requestTimeout: 30_000,
  // Outlasts the pause between a document and the requests for its assets, without
  // piling up idle sockets. Behind a proxy, raise it above the proxy's idle timeout,
  // or the proxy may reuse a connection just as we close it (a 502).
  keepAliveTimeout: 10_000,
  // Well past the render timeout (10 s, page-response.ts), so only a stalled client hits it.
  connectionTimeout: 60_000,
  // Node's default (30 s) would let a 10 s headersTimeout stretch to 40 s.
  connectionsCheckingInterval: 1_000
}

/**
 * The Fastify options that apply `timeouts`. Fastify takes three of them
 * itself; headersTimeout and connectionsCheckingInterval only reach Node
 * through its `http` option. requestTimeout goes there too, because Node
 * checks headersTimeout ≤ requestTimeout only against what it is given at
 * creation (Fastify sets its own afterwards, unchecked).
 */
export function timeoutOptions (overrides: Partial<Timeouts> = {}) {
  const { headersTimeout, requestTimeout, keepAliveTimeout, connectionTimeout, connectionsCheckingInterval } = { ...PRODUCTION_TIMEOUTS, ...overrides }
  const http: ServerOptions = { headersTimeout, requestTimeout, connectionsCheckingInterval }
  return { connectionTimeout, keepAliveTimeout, requestTimeout, http }
}
