import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { LogController, type FastifyInstance, type FastifyPluginAsync, type FastifyServerOptions } from 'fastify'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PAGES, type AnyPage } from '../ui/page-table.js'
import { loadAssetManifest } from './assets.js'
import type { Env } from './env.js'
import type { DevTools } from './dev/dev-tools.js'
import { handleError } from './error-handler.js'
import { flashToasts } from './flash-toast.js'
import type { FormRoute } from './forms/define-form-route.js'
import { FORM_ROUTES } from './forms/index.js'
import type { HoneypotOptions } from './honeypot.js'
import { notFound } from './not-found.js'
import { LOADERS, type LoaderTable } from './pages/index.js'
import { allowedMethods } from './plugins/allowed-methods.js'
import { compression } from './plugins/compression.js'
import { cookieAttributes } from './plugins/cookie-attributes.js'
import { documentTimingPlugin } from './plugins/document-timing.js'
import { gracefulClose } from './plugins/graceful-close.js'
import { honeypot } from './plugins/honeypot.js'
import { loadShedding, type LoadSheddingOptions } from './plugins/load-shedding.js'
import { metrics } from './plugins/metrics.js'
import { pageLoading } from './plugins/page-loading.js'
import { pageRendering } from './plugins/page-rendering.js'
import { plainHttpWarning } from './plugins/plain-http-warning.js'
import { readiness } from './plugins/readiness.js'
import type { RenderCacheOptions } from './render-cache.js'
import { security } from './plugins/security.js'
import { staticAssets } from './plugins/static-assets.js'
import { createGenReqId, idSequence, trustedProxyPredicate } from './request-id.js'
import { cspReportRoutes, type CspReportOptions } from './routes/csp-report.js'
import { probeRoutes } from './routes/probes.js'
import { pageRoutes } from './routes/pages.js'
import { themeSwitchRoutes } from './routes/theme-switch.js'
import { themeCookie } from './theme-cookie.js'
import { timeoutOptions, type Timeouts } from './timeouts.js'
import { fastifyTrustProxy } from './trust-proxy.js'

/** Where build.mjs writes: two levels up from src/server/ or dist/server/. */
export const DIST_DIR = fileURLToPath(new URL('../../dist/', import.meta.url))

export interface AppOptions {
  env: Env
  logger?: FastifyServerOptions['logger']
  /** Tests pass more pages, loaders and form routes, and the options below. */
  pages?: readonly AnyPage[]
  loaders?: LoaderTable
  forms?: readonly FormRoute[]
  distDir?: string
  loadShedding?: LoadSheddingOptions
  honeypot?: Omit<HoneypotOptions, 'secret'>
  renderCache?: RenderCacheOptions
  timeouts?: Partial<Timeouts>
  cspReports?: CspReportOptions
  /** Registered before anything else, to see every route: tracing (src/server/tracing.ts) when configured. */
  instrumentation?: FastifyPluginAsync
  routes?: (app: FastifyInstance) => void | Promise<void>
  /** `npm run dev`'s additions (src/server/dev/), passed by main.ts only in a development build. */
  devTools?: DevTools
}

/** Ids are drawn per process, not per app: instances built in one process (tests) never share one. */
const nextRequestId = idSequence()

/** Fastify's router and the allowed-methods router must read addresses alike. */
const ROUTER_OPTIONS = { maxParamLength: 200 }

export async function buildApp (options: AppOptions): Promise<FastifyInstance> {
  const { env } = options
  const distDir = options.distDir ?? DIST_DIR
  const app = Fastify({
    logger: options.logger ?? { level: env.LOG_LEVEL },
    genReqId: createGenReqId(trustedProxyPredicate(env.TRUST_PROXY), nextRequestId),
    // The development server logs one line per request instead of two long ones.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: options.devTools !== undefined }),
    ...timeoutOptions(options.timeouts),
    bodyLimit: 64 * 1024,
    // request.ip, protocol and host come from X-Forwarded-* only from proxies the operator named.
    trustProxy: fastifyTrustProxy(env.TRUST_PROXY),
    routerOptions: ROUTER_OPTIONS,
    // Errors raised while routing get the app's answer, not Fastify's bare JSON.
    frameworkErrors: handleError
  }).withTypeProvider<TypeBoxTypeProvider>()

  const pages = options.pages ?? PAGES
  const loaders = options.loaders ?? LOADERS
  const forms = options.forms ?? FORM_ROUTES
  const secure = env.NODE_ENV === 'production'

  if (options.instrumentation) await app.register(options.instrumentation)
  await app.register(allowedMethods, { routerOptions: ROUTER_OPTIONS })
  // Infrastructure first, in the order a request meets it.
  await app.register(gracefulClose)
  await app.register(loadShedding, { maxEventLoopDelay: env.LOAD_SHEDDING_DELAY_MS, ...options.loadShedding })
  await app.register(readiness)
  await app.register(security, { env })
  if (secure) await app.register(plainHttpWarning)
  await app.register(compression)
  // Newest first: @fastify/cookie signs with the first secret and verifies with any.
  await app.register(cookie, { secret: [...env.SESSION_SECRET] })
  await app.register(cookieAttributes, { secure })
  await app.register(themeCookie, { secure })
  await app.register(flashToasts, { secure })
  await app.register(honeypot, { ...options.honeypot, secret: env.HONEYPOT_SECRET })
  await app.register(documentTimingPlugin)
  await app.register(pageRendering, { env, assets: loadAssetManifest(join(distDir, 'manifest.json')), pages, formActions: forms.map((form) => form.path), cache: options.renderCache, devTools: options.devTools })
  await app.register(pageLoading, { loaders })
  await app.register(metrics, { enabled: env.METRICS_PORT !== undefined })
  // Before the not-found handling, so that its request log sees those answers too.
  if (options.devTools) await app.register(options.devTools.plugin)
  // After cookies and security headers, before the body parsers: an unknown address is answered unread.
  await app.register(notFound)
  await app.register(formbody)
  await app.register(staticAssets, { root: join(distDir, 'client'), sourceMaps: !secure || env.SERVE_SOURCE_MAPS === 'true' })

  app.setErrorHandler(handleError)

  await app.register(probeRoutes)
  await app.register(themeSwitchRoutes)
  await app.register(cspReportRoutes, options.cspReports ?? {})
  await app.register(pageRoutes, { pages, loaders })
  for (const form of forms) await app.register(form)
  const { routes } = options
  if (routes) await app.register(async (scope) => { await routes(scope) })

  return app
}
