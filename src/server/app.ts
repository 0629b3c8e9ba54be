import { TypeBoxValidatorCompiler, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { LogController, type FastifyInstance, type FastifyPluginAsync, type FastifyServerOptions } from 'fastify'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as SCREENS from '../screens/index.js'
import type { AppRegistry, ScreenRegistry } from '../ui/define-screen.js'
import type { DevTools } from './dev/dev-tools.js'
import type { Env } from './env.js'
import { handleError } from './error-handler.js'
import { answerParserRefusal } from './http/client-errors.js'
import { createGenReqId, idSequence, trustedProxyPredicate } from './http/request-id.js'
import { timeoutOptions, type Timeouts } from './http/timeouts.js'
import { fastifyTrustProxy } from './http/trust-proxy.js'
import { LOG_HOOKS } from './observability/log-lines.js'
import { allowedMethods } from './plugins/app/allowed-methods.js'
import { documentTimingPlugin } from './plugins/app/document-timing.js'
import { flashToasts } from './plugins/app/flash-toasts.js'
import { gracefulClose } from './plugins/app/graceful-close.js'
import { unknownExpectations } from './plugins/app/expectations.js'
import { honeypot } from './plugins/app/honeypot.js'
import { malformedRequests } from './plugins/app/malformed-requests.js'
import { notFound } from './plugins/app/not-found.js'
import { pageLoading } from './plugins/app/page-loading.js'
import { pageRendering } from './plugins/app/page-rendering.js'
import { plainHttpWarning } from './plugins/app/plain-http-warning.js'
import { readiness } from './plugins/app/readiness.js'
import { themeCookie } from './plugins/app/theme-cookie.js'
import { refuseTunnels } from './plugins/app/tunnels.js'
import { compression } from './plugins/external/compression.js'
import { cookies } from './plugins/external/cookies.js'
import { formBodies } from './plugins/external/formbody.js'
import { loadShedding, type LoadSheddingOptions } from './plugins/external/load-shedding.js'
import { metrics } from './plugins/external/metrics.js'
import { security } from './plugins/external/security.js'
import { staticAssets } from './plugins/external/static-assets.js'
import { loadAssetManifest } from './rendering/assets.js'
import type { RenderCacheOptions } from './rendering/render-cache.js'
import { cspReportRoutes, type CspReportOptions } from './routes/csp-report.js'
import { pageRoutes } from './routes/pages.js'
import { probeRoutes } from './routes/probes.js'
import { themeSwitchRoutes } from './routes/theme-switch.js'
import { loadScreens } from './screens/load-screens.js'
import type { HoneypotOptions } from './security/honeypot.js'

/** Where build/paths.mjs writes; a built server is given the folder it was built into instead (main.ts). */
export const DIST_DIR = fileURLToPath(new URL('../../dist/', import.meta.url))

export interface AppOptions {
  env: Env
  logger?: FastifyServerOptions['logger']
  screens?: ScreenRegistry
  distDir?: string
  loadShedding?: LoadSheddingOptions
  honeypot?: Omit<HoneypotOptions, 'secret'>
  renderCache?: RenderCacheOptions
  timeouts?: Partial<Timeouts>
  cspReports?: CspReportOptions
  /** Registered before anything else, to see every route (tracing, when configured). */
  instrumentation?: FastifyPluginAsync
  routes?: (app: FastifyInstance) => void | Promise<void>
  devTools?: DevTools
}

/** Ids are drawn per process, not per app: instances built in one process (tests) never share one. */
const nextRequestId = idSequence()

// TypeBox, not Ajv, which coerces `{"theme":["dark"]}` to "dark" and loads at every start (docs/decisions/start-up.md).
type ValidatorFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']
const typeBoxValidators = (() => TypeBoxValidatorCompiler) as unknown as ValidatorFactory

/** Fastify's router and the allowed-methods router must read addresses alike. */
const ROUTER_OPTIONS = { maxParamLength: 200 }

export async function buildApp (options: AppOptions): Promise<FastifyInstance> {
  const { env } = options
  const distDir = options.distDir ?? DIST_DIR
  const timeouts = timeoutOptions(options.timeouts)
  const app = Fastify({
    logger: options.logger ?? { level: env.LOG_LEVEL, hooks: LOG_HOOKS },
    genReqId: createGenReqId(trustedProxyPredicate(env.TRUST_PROXY), nextRequestId),
    // The development server logs one line per request instead of two long ones.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: options.devTools !== undefined }),
    ...timeouts,
    bodyLimit: 64 * 1024,
    // request.ip, protocol and host come from X-Forwarded-* only from proxies the operator named.
    trustProxy: fastifyTrustProxy(env.TRUST_PROXY),
    routerOptions: ROUTER_OPTIONS,
    schemaController: { compilersFactory: { buildValidator: typeBoxValidators } },
    // Errors raised while routing get the app's answer, not Fastify's bare JSON; so do requests Node's parser refused.
    frameworkErrors: handleError,
    clientErrorHandler: answerParserRefusal,
    // Node answers a request without Host with a bare 400 and never tells the app; malformedRequests answers it instead.
    http: { ...timeouts.http, requireHostHeader: false }
  }).withTypeProvider<TypeBoxTypeProvider>()

  const registry: AppRegistry = { ...SCREENS, ...options.screens }
  const screens = await loadScreens(registry)
  const secure = env.NODE_ENV === 'production'

  if (options.instrumentation) await app.register(options.instrumentation)
  await app.register(allowedMethods, { routerOptions: ROUTER_OPTIONS })
  // Infrastructure first, in the order a request meets it.
  await app.register(gracefulClose)
  await app.register(unknownExpectations)
  await app.register(malformedRequests)
  await app.register(loadShedding, { maxEventLoopDelay: env.LOAD_SHEDDING_DELAY_MS, ...options.loadShedding })
  await app.register(readiness)
  await app.register(security, { env })
  await app.register(refuseTunnels)
  if (secure) await app.register(plainHttpWarning)
  await app.register(compression)
  await app.register(cookies, { secret: env.SESSION_SECRET, secure })
  await app.register(themeCookie)
  await app.register(flashToasts)
  await app.register(honeypot, { ...options.honeypot, secret: env.HONEYPOT_SECRET })
  await app.register(documentTimingPlugin, { header: (env.SERVER_TIMING ?? (secure ? 'false' : 'true')) === 'true' })
  await app.register(pageRendering, { env, assets: loadAssetManifest(join(distDir, 'manifest.json')), screens, cache: options.renderCache, devTools: options.devTools })
  await app.register(pageLoading, { loaders: screens.loaders })
  await app.register(metrics, { enabled: env.METRICS_PORT !== undefined })
  // Before the not-found handling, so that its request log sees those answers too.
  if (options.devTools) await app.register(options.devTools.plugin)
  // After cookies and security headers, before the body parsers: an unknown address is answered unread.
  await app.register(notFound)
  await app.register(formBodies)
  await app.register(staticAssets, { root: join(distDir, 'client'), sourceMaps: !secure || env.SERVE_SOURCE_MAPS === 'true' })

  app.setErrorHandler(handleError)

  await app.register(probeRoutes)
  await app.register(themeSwitchRoutes)
  await app.register(cspReportRoutes, options.cspReports ?? {})
  await app.register(pageRoutes, { screens })
  for (const form of screens.forms) await app.register(form)
  const { routes } = options
  if (routes) await app.register(async (scope) => { await routes(scope) })

  return app
}
