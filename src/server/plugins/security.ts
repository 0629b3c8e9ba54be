import helmet from '@fastify/helmet'
import fp from 'fastify-plugin'
import type { Env } from '../env.js'

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
 * whose script and style nonces are fresh for each request (reply.cspNonce).
 */
export const security = fp<{ env: Env }>(async (app, { env }) => {
  const production = env.NODE_ENV === 'production'
  const tracking = Boolean(env.OPENREPLAY_PROJECT_KEY)
  await app.register(helmet, {
    enableCSPNonces: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
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
    // For browsers that predate frame-ancestors: the same answer as frame-ancestors 'none'
    // (helmet's default, SAMEORIGIN, would let our own pages frame us there).
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false
  })
}, { name: 'security', fastify: '5.x' })
