import type { FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import helmet from 'helmet'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Env } from '../env.js'
import { createNonce } from '../nonce.js'

declare module 'fastify' {
  interface FastifyReply {
    /**
     * This response's CSP nonce: inline scripts carry it, the policy allows
     * only them. Drawn on first read, which also puts it in the response's
     * policy: a response that never reads it (a redirect, JSON, the health
     * check) has no inline script and gets a policy with no nonce at all.
     */
    readonly cspNonce: { script: string }
  }
}

const NONCE = Symbol('cspNonce')
type NonceSlot = { [NONCE]: FastifyReply['cspNonce'] | null }

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
 * whose script nonce is fresh for each response that asks for one (reply.cspNonce).
 *
 * helmet decides the headers, but runs once, at start-up: @fastify/helmet
 * builds a new helmet per request (parsing and validating every directive)
 * and helmet then sets each header on the raw response, which together cost
 * more than serving a cached page. The headers are captured once, with a
 * placeholder where the nonce goes, and each response gets them through
 * reply.headers(); the policy is written again, with the nonce in place, when
 * the response first reads its nonce.
 */
export const security = fp<{ env: Env }>(async (app, { env }) => {
  const production = env.NODE_ENV === 'production'
  const tracking = Boolean(env.OPENREPLAY_PROJECT_KEY)
  const placeholder = createNonce()
  const headers = capture(helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", () => `'nonce-${placeholder}'`],
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
    // For browsers that predate frame-ancestors: the same answer as frame-ancestors 'none'
    // (helmet's default, SAMEORIGIN, would let our own pages frame us there).
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false
  }))
  const [beforeNonce, afterNonce = ''] = (headers['content-security-policy'] ?? '').split(` 'nonce-${placeholder}'`)
  headers['content-security-policy'] = beforeNonce + afterNonce

  app.decorateReply(NONCE, null)
  app.decorateReply('cspNonce', {
    getter (this: FastifyReply) {
      const reply = this as FastifyReply & NonceSlot
      if (reply[NONCE] === null) {
        const script = createNonce()
        reply[NONCE] = { script }
        reply.header('content-security-policy', `${beforeNonce} 'nonce-${script}'${afterNonce}`)
      }
      return reply[NONCE]
    }
  })
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers)
    done()
  })
}, { name: 'security', fastify: '5.x' })

/** The headers a helmet middleware sets, by lower-case name. */
function capture (middleware: ReturnType<typeof helmet>): Record<string, string> {
  const headers: Record<string, string> = {}
  const response = {
    setHeader (name: string, value: string) { headers[name.toLowerCase()] = value },
    removeHeader (name: string) { delete headers[name.toLowerCase()] }
  }
  middleware({} as IncomingMessage, response as unknown as ServerResponse, (error) => { if (error) throw error })
  return headers
}
