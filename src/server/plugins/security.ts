import type { FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import helmet from 'helmet'
import type { ServerResponse } from 'node:http'
import type { Env } from '../env.js'
import { createNonce } from '../nonce.js'

declare module 'fastify' {
  interface FastifyReply {
    /** This response's CSP nonce: inline scripts carry it, the policy allows only them. */
    cspNonce: { script: string }
  }
}

const NONCE = Symbol('cspNonce')
type NoncedResponse = ServerResponse & { [NONCE]?: string }

/**
 * The tracker's default ingest origin, used when no self-hosted ingest point
 * is configured: @openreplay/tracker 15.0.3 has DEFAULT_INGEST_POINT =
 * "https://api.openreplay.com/ingest" (dist/lib/main/app/index.d.ts).
 */
export const DEFAULT_INGEST_ORIGIN = 'https://api.openreplay.com'

export function ingestOrigin (env: Pick<Env, 'OPENREPLAY_INGEST_POINT'>): string {
  return env.OPENREPLAY_INGEST_POINT ? new URL(env.OPENREPLAY_INGEST_POINT).origin : DEFAULT_INGEST_ORIGIN
}

/**
 * Security headers on every response and an enforced Content-Security-Policy
 * whose script nonce is fresh for each request (reply.cspNonce).
 *
 * helmet sets the headers; @fastify/helmet is not used because it builds a
 * new helmet, parsing and validating every directive, on every request,
 * which cost more than serving a cached page. Here helmet is built once and
 * only the nonce is computed per response.
 */
export const security = fp<{ env: Env }>(async (app, { env }) => {
  const production = env.NODE_ENV === 'production'
  const tracking = Boolean(env.OPENREPLAY_PROJECT_KEY)
  const setHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", (_request, response) => `'nonce-${(response as NoncedResponse)[NONCE]}'`],
        // No inline styles at all: sonner's injected stylesheet is turned off at build time.
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'"],
        // The tracker posts recordings to its ingest origin from a blob: worker
        // (openreplay#302: "No worker found: perhaps, CSP is not set."). That is
        // all it needs: it records image and stylesheet URLs as data (the
        // replay player fetches them) and loads nothing else into the page.
        // Not allowed: its usability-test widget, which injects a <style>.
        connectSrc: tracking ? ["'self'", ingestOrigin(env)] : ["'self'"],
        workerSrc: tracking ? ["'self'", 'blob:'] : ["'self'"],
        manifestSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(production ? { upgradeInsecureRequests: [] } : {})
      }
    },
    // HSTS only where the site is served over HTTPS.
    strictTransportSecurity: production ? { maxAge: 63072000, includeSubDomains: true, preload: true } : false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false
  })

  app.decorateReply<FastifyReply['cspNonce'] | null>('cspNonce', null)
  app.addHook('onRequest', (request, reply, done) => {
    const script = createNonce()
    reply.cspNonce = { script }
    ;(reply.raw as NoncedResponse)[NONCE] = script
    setHeaders(request.raw, reply.raw, (error) => done(error as Error | undefined))
  })
}, { name: 'security', fastify: '5.x' })
