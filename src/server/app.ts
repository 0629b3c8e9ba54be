import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PAGES, type AnyPage } from '../ui/page-table.js'
import { loadAssetManifest } from './assets.js'
import type { Env } from './env.js'
import type { DevTools } from './dev/dev-tools.js'
import { handleError } from './error-handler.js'
import { flashToasts } from './flash-toast.js'
import type { HoneypotOptions } from './honeypot.js'
import { notFound } from './not-found.js'
import { LOADERS, type LoaderTable } from './pages/index.js'
import { allowedMethods } from './plugins/allowed-methods.js'
import { compression } from './plugins/compression.js'
import { gracefulClose } from './plugins/graceful-close.js'
import { honeypot } from './plugins/honeypot.js'
import { loadShedding, type LoadSheddingOptions } from './plugins/load-shedding.js'
import { pageRendering } from './plugins/page-rendering.js'
import { security } from './plugins/security.js'
import { staticAssets } from './plugins/static-assets.js'
import { probeRoutes } from './routes/probes.js'
import { pageRoutes } from './routes/pages.js'
import { themeSwitchRoutes } from './routes/theme-switch.js'
import { themeCookie } from './theme-cookie.js'
import { timeoutOptions, type Timeouts } from './timeouts.js'

/** Where build.mjs writes: two levels up from src/server/ or dist/server/. */
export const DIST_DIR = fileURLToPath(new URL('../../dist/', import.meta.url))

export interface AppOptions {
  env: Env
  logger?: FastifyServerOptions['logger']
  /** Tests pass more pages and loaders, and the options below. */
  pages?: readonly AnyPage[]
  loaders?: LoaderTable
  distDir?: string
  loadShedding?: LoadSheddingOptions
  honeypot?: Omit<HoneypotOptions, 'secret'>
  timeouts?: Partial<Timeouts>
  routes?: (app: FastifyInstance) => void | Promise<void>
  /** `npm run dev`'s additions (src/server/dev/), passed by main.ts only in a development build. */
  devTools?: DevTools
}

const REQUEST_ID = /^[\w.-]{1,128}$/
/** A random prefix per process, so instances never collide in shared logs, and a counter. */
const REQUEST_ID_PREFIX = randomBytes(6).toString('base64url')
let requestCount = 0
const nextRequestId = () => `${REQUEST_ID_PREFIX}-${(++requestCount).toString(36)}`

/** Fastify's router and the allowed-methods router must read addresses alike. */
const ROUTER_OPTIONS = { maxParamLength: 200 }

export async function buildApp (options: AppOptions): Promise<FastifyInstance> {
  const { env } = options
  const distDir = options.distDir ?? DIST_DIR
  const app = Fastify({
    logger: options.logger ?? { level: env.LOG_LEVEL },
    genReqId: (request) => {
      const given = request.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : nextRequestId()
    },
    // The development server logs one line per request instead of two long ones.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: options.devTools !== undefined }),
    ...timeoutOptions(options.timeouts),
    bodyLimit: 64 * 1024,
    routerOptions: ROUTER_OPTIONS,
    // Errors raised while routing get the app's answer, not Fastify's bare JSON.
    frameworkErrors: handleError
  }).withTypeProvider<TypeBoxTypeProvider>()

  const pages = options.pages ?? PAGES
  const secure = env.NODE_ENV === 'production'

  await app.register(allowedMethods, { routerOptions: ROUTER_OPTIONS })
  // Infrastructure first, in the order a request meets it.
  await app.register(gracefulClose)
  await app.register(loadShedding, { maxEventLoopDelay: env.LOAD_SHEDDING_DELAY_MS, ...options.loadShedding })
  await app.register(security, { env })
  await app.register(compression)
  await app.register(cookie, { secret: env.SESSION_SECRET })
  await app.register(themeCookie, { secure })
  await app.register(flashToasts, { secure })
  await app.register(honeypot, { ...options.honeypot, secret: env.HONEYPOT_SECRET })
  await app.register(pageRendering, { env, assets: loadAssetManifest(join(distDir, 'manifest.json')), pages, devTools: options.devTools })
  // Before the not-found handling, so that its request log sees those answers too.
  if (options.devTools) await app.register(options.devTools.plugin)
  // After cookies and security headers, before the body parsers: an unknown address is answered unread.
  await app.register(notFound)
  await app.register(formbody)
  await app.register(staticAssets, { root: join(distDir, 'client'), sourceMaps: !secure || env.SERVE_SOURCE_MAPS === 'true' })

  app.setErrorHandler(handleError)

  await app.register(probeRoutes)
  await app.register(themeSwitchRoutes)
  await app.register(pageRoutes, { pages, loaders: options.loaders ?? LOADERS })
  const { routes } = options
  if (routes) await app.register(async (scope) => { await routes(scope) })

  return app
}
