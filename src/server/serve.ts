import closeWithGrace from 'close-with-grace'
import type { FastifyInstance } from 'fastify'
import { buildApp, type AppOptions } from './app.js'
import { EnvError, loadEnv, type LoadedEnv } from './env.js'
import { LOG_HOOKS } from './observability/log-lines.js'
import { listenForMetrics } from './observability/metrics-server.js'
import { drainBoundMs } from './plugins/app/graceful-close.js'

/** A second signal exits at once, and a drain past its bound exits 1 (plugins/app/graceful-close.ts). */
export async function serve (options: Omit<AppOptions, 'env' | 'logger'> = {}): Promise<void> {
  let loaded: LoadedEnv
  try {
    loaded = loadEnv()
  } catch (error) {
    if (!(error instanceof EnvError)) throw error
    // One line per bad variable and no stack trace: this is an operator's mistake, not a bug.
    for (const problem of error.problems) process.stderr.write(`${problem}\n`)
    process.exit(1)
  }

  const { env, warnings } = loaded
  const tracing = env.OTEL_EXPORTER_OTLP_ENDPOINT
    ? await (await import('./observability/tracing.js')).startTracing({ ...env, OTEL_EXPORTER_OTLP_ENDPOINT: env.OTEL_EXPORTER_OTLP_ENDPOINT })
    : undefined
  // The build defines NODE_ENV per server build (build/server.mjs): a production bundle holds none of the development tools.
  const devTools = process.env.NODE_ENV === 'development' ? (await import('./dev/dev-tools.js')).devTools() : undefined
  const app = await buildApp({
    ...options,
    env,
    devTools,
    instrumentation: tracing?.plugin,
    logger: {
      level: env.LOG_LEVEL,
      hooks: LOG_HOOKS,
      ...(env.LOG_PRETTY === 'true' ? { transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss', ignore: 'pid,hostname' } } } : {})
    }
  })
  for (const warning of warnings) app.log.warn(warning)

  let metricsListener: FastifyInstance | undefined
  const drain = { delayMs: env.SHUTDOWN_DELAY_MS, idleGraceMs: env.SHUTDOWN_IDLE_GRACE_MS }
  // The library's own lines (a second signal, the bound passed) go to the app's log, as JSON, not to the console.
  closeWithGrace({ delay: drainBoundMs(drain), logger: app.log }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error')
    else app.log.info({ signal, ...drain }, 'shutting down')
    await app.drain(err ? { delayMs: 0, idleGraceMs: 0 } : drain)
    // Scraped until the end, so the drain shows in the metrics.
    await metricsListener?.close()
    // A collector that is down loses the last spans; the instance still stopped cleanly.
    await tracing?.shutdown().catch((error: unknown) => app.log.warn({ err: error }, 'the last spans could not be exported'))
  })

  // Which settings the failed listen came from: the error names only an address, and both listeners log one.
  let settings = 'HOST and PORT'
  try {
    await app.listen({ port: env.PORT, host: env.HOST })
    if (app.metrics && env.METRICS_PORT !== undefined) {
      settings = 'METRICS_HOST and METRICS_PORT'
      metricsListener = await listenForMetrics(app.metrics.registry, { port: env.METRICS_PORT, host: env.METRICS_HOST }, app.log)
    }
    // Which Node serves: the image's and the one npm scripts run (node_modules/.bin/node) are set apart.
    app.log.info({ node: process.versions.node }, 'ready')
  } catch (error) {
    const failure = `could not start listening at ${settings}`
    app.log.fatal({ err: error }, failure)
    // LOG_LEVEL=silent writes nothing, and an instance must not stop without a word.
    if (app.log.level === 'silent') process.stderr.write(`${failure}: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  }
}
