import type { FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import helmet, { contentSecurityPolicy, strictTransportSecurity, xContentTypeOptions, xFrameOptions } from 'helmet'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { CSP_REPORT_GROUP, CSP_REPORT_PATH } from '../../security/csp-report.js'
import type { Env } from '../../env.js'
import { createNonce } from '../../security/nonce.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route's answers are not documents; a page it sends after all (an error's) gets the documents' headers. */
    document?: false
  }
  interface FastifyInstance {
    /** Every response's security headers, the policy without a nonce: for answers sent before the hooks run. */
    readonly securityHeaders: Readonly<Record<string, string>>
    readonly answerHeaders: Readonly<Record<string, string>>
  }
  interface FastifyReply {
    /** This response's CSP nonce, drawn on first read: a response that never reads it gets a policy without one. */
    readonly cspNonce: { script: string }
    allowScriptsByHash (hashes: readonly string[]): FastifyReply
  }
}

const NONCE = Symbol('cspNonce')
type NonceSlot = { [NONCE]: FastifyReply['cspNonce'] | null }

const HSTS = { maxAge: 63072000, includeSubDomains: true, preload: true }
/** frame-ancestors 'none' for older browsers (helmet's SAMEORIGIN would let our pages frame us). */
const X_FRAME_OPTIONS = { action: 'deny' } as const

export const TRUSTED_TYPES_REPORT_ONLY = `require-trusted-types-for 'script'; report-to ${CSP_REPORT_GROUP}; report-uri ${CSP_REPORT_PATH}`

/**
 * Powerful features no page of the shell uses, turned off for it and all it embeds. Only names Chromium knows: it
 * warns in the console of any other (ambient-light-sensor, bluetooth). Helmet sets no Permissions-Policy
 * (helmetjs/helmet#470). OpenReplay's usability tests, which the shell does not turn on, would need camera and
 * microphone (docs/security.md).
 */
export const PERMISSIONS_POLICY = [
  'accelerometer', 'camera', 'display-capture', 'geolocation', 'gyroscope', 'hid', 'idle-detection', 'magnetometer',
  'microphone', 'midi', 'payment', 'screen-wake-lock', 'serial', 'usb', 'xr-spatial-tracking'
].map((feature) => `${feature}=()`).join(', ')

export const DEFAULT_INGEST_ORIGIN = 'https://api.openreplay.com'

export function ingestOrigin (env: Pick<Env, 'OPENREPLAY_INGEST_POINT'>): string {
  return env.OPENREPLAY_INGEST_POINT ? new URL(env.OPENREPLAY_INGEST_POINT).origin : DEFAULT_INGEST_ORIGIN
}

// helmet decides the headers once, at start-up (docs/performance.md); the nonce goes in when a response first reads it.
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
        // The tracker posts from a blob: worker to its ingest origin, and needs nothing else (openreplay#302).
        connectSrc: tracking ? ["'self'", ingestOrigin(env)] : ["'self'"],
        workerSrc: tracking ? ["'self'", 'blob:'] : ["'self'"],
        manifestSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(production ? { upgradeInsecureRequests: [] } : {}),
        // Chromium reads only report-to once both are there; report-uri serves browsers without the Reporting API.
        reportTo: [CSP_REPORT_GROUP],
        reportUri: [CSP_REPORT_PATH]
      }
    },
    strictTransportSecurity: production ? HSTS : false,
    xFrameOptions: X_FRAME_OPTIONS,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false,
    // For browsers long gone (IE's download prompt; the XSS auditors, removed by 2019). Each header costs every
    // document more than its bytes: past about twenty, a response's header object leaves V8's fast properties
    // (docs/performance.md).
    xDownloadOptions: false,
    xXssProtection: false
  }))
  const [beforeNonce, afterNonce = ''] = (headers['content-security-policy'] ?? '').split(` 'nonce-${placeholder}'`)
  headers['content-security-policy'] = beforeNonce + afterNonce
  headers['reporting-endpoints'] = `${CSP_REPORT_GROUP}="${CSP_REPORT_PATH}"`
  headers['permissions-policy'] = PERMISSIONS_POLICY
  // Trusted Types, report-only until what would break is known (docs/decisions/trusted-types.md).
  headers['content-security-policy-report-only'] = TRUSTED_TYPES_REPORT_ONLY

  // What OWASP asks of an answer that is not a document, not the documents' headers (docs/performance.md).
  const answerHeaders = {
    ...capture(contentSecurityPolicy({ useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } })),
    ...capture(xContentTypeOptions()),
    ...capture(xFrameOptions(X_FRAME_OPTIONS)),
    ...(production ? capture(strictTransportSecurity(HSTS)) : {})
  }

  app.decorate('securityHeaders', Object.freeze({ ...headers }))
  app.decorate('answerHeaders', Object.freeze({ ...answerHeaders }))
  // Every document allows its scripts by a nonce or by hashes, so that is where one sent by such a route gets its own.
  const asDocument = (reply: FastifyReply) => {
    if (reply.request.routeOptions.config.document === false) reply.headers(headers)
  }
  app.decorateReply(NONCE, null)
  app.decorateReply('cspNonce', {
    getter (this: FastifyReply) {
      const reply = this as FastifyReply & NonceSlot
      if (reply[NONCE] === null) {
        asDocument(reply)
        const script = createNonce()
        reply[NONCE] = { script }
        reply.header('content-security-policy', `${beforeNonce} 'nonce-${script}'${afterNonce}`)
      }
      return reply[NONCE]
    }
  })
  const hashedPolicies = new WeakMap<readonly string[], string>()
  app.decorateReply('allowScriptsByHash', function (this: FastifyReply, hashes: readonly string[]) {
    let policy = hashedPolicies.get(hashes)
    if (policy === undefined) hashedPolicies.set(hashes, policy = `${beforeNonce}${hashes.map((hash) => ` '${hash}'`).join('')}${afterNonce}`)
    asDocument(this)
    return this.header('content-security-policy', policy)
  })
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(request.routeOptions.config.document === false ? answerHeaders : headers)
    done()
  })
}, { name: 'security', fastify: '5.x' })

function capture (middleware: (request: IncomingMessage, response: ServerResponse, next: (error?: unknown) => void) => void): Record<string, string> {
  const headers: Record<string, string> = {}
  const response = {
    setHeader (name: string, value: string) { headers[name.toLowerCase()] = value },
    removeHeader (name: string) { delete headers[name.toLowerCase()] }
  }
  middleware({} as IncomingMessage, response as unknown as ServerResponse, (error) => { if (error) throw error })
  return headers
}
