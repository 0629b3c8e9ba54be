import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { EnvError, loadEnv, type LoadedEnv } from './env.js'

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
// build.mjs defines NODE_ENV per bundle: a production bundle holds none of the development tools.
const devTools = process.env.NODE_ENV === 'development' ? (await import('./dev/dev-tools.js')).devTools() : undefined
const app = await buildApp({
  env,
  devTools,
  logger: {
    level: env.LOG_LEVEL,
    ...(process.env.LOG_PRETTY === 'true' ? { transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss', ignore: 'pid,hostname' } } } : {})
  }
})
for (const warning of warnings) app.log.warn(warning)

// Drain (plugins/graceful-close.ts), then exit 0; a second signal exits at once, and a drain past its bound exits 1.
const drain = { delayMs: env.SHUTDOWN_DELAY_MS, idleGraceMs: env.SHUTDOWN_IDLE_GRACE_MS }
closeWithGrace({ delay: drain.delayMs + drain.idleGraceMs + 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an error')
  else app.log.info({ signal, ...drain }, 'shutting down')
  await app.drain(err ? { delayMs: 0, idleGraceMs: 0 } : drain)
})

try {
  await devTools?.beforeListen()
  await app.listen({ port: env.PORT, host: env.HOST })
} catch (error) {
  app.log.fatal({ err: error }, 'could not start listening')
  process.exit(1)
}
