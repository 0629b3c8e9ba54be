import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { randomUUID } from 'node:crypto'
import { PassThrough } from 'node:stream'
import { Type } from 'typebox'
import { Value } from 'typebox/value'
import { ONE_LINE_REQUEST_LOG } from '../error-handler.js'
import { devScript } from './dev-script.js'
import { BuildErrorSchema, buildFailureOverlay, failureOverlay, type Failure, type Overlay } from './overlay.js'

// `npm run dev`'s additions: serve.ts imports this module in a development build alone.
export interface DevTools {
  plugin: FastifyPluginAsync
  documentScript: (failure: Failure | null) => string
}

export const DEV_EVENTS_PATH = '/__dev/events'

const BuildStatusSchema = Type.Object({ type: Type.Literal('build-status'), errors: Type.Array(BuildErrorSchema) })

/** `process` when build/dev.mjs started this server, or a stand-in in tests. */
export interface Channel {
  on (event: 'message', listener: (message: unknown) => void): unknown
  on (event: 'disconnect', listener: () => void): unknown
  off (event: 'message', listener: (message: unknown) => void): unknown
  off (event: 'disconnect', listener: () => void): unknown
}

export interface DevToolsOptions {
  channel?: Channel | null
  /** When build/dev.mjs is gone (killed, crashed), this server must not outlive it holding the port. */
  onWatcherGone?: () => void
}

// A file name ends the route of a static file: those requests are not logged unless they fail.
const ASSET_ROUTE = /\.\w+$/
// Written to open streams now and then: a connection that stays silent is closed by the server's timeout.
const KEEP_ALIVE_MS = 30_000

export function devTools ({ channel = process.send ? process : null, onWatcherGone = () => process.kill(process.pid, 'SIGTERM') }: DevToolsOptions = {}): DevTools {
  const build = randomUUID()
  let buildOverlay: Overlay | null = null
  const streams = new Set<PassThrough>()
  const event = () => `data: ${JSON.stringify({ build, overlay: buildOverlay })}\n\n`

  const onMessage = (message: unknown) => {
    if (!Value.Check(BuildStatusSchema, message)) return
    buildOverlay = message.errors.length > 0 ? buildFailureOverlay(message.errors) : null
    for (const stream of streams) stream.write(event())
  }

  const plugin = fp(async (app: FastifyInstance) => {
    channel?.on('message', onMessage)
    channel?.on('disconnect', onWatcherGone)
    const keepAlive = setInterval(() => { for (const stream of streams) stream.write(': keep-alive\n\n') }, KEEP_ALIVE_MS).unref()
    app.addHook('onClose', async () => {
      clearInterval(keepAlive)
      channel?.off('message', onMessage)
      channel?.off('disconnect', onWatcherGone)
    })
    // Open streams would hold app.close() until its deadline: they end first, and the pages reconnect.
    app.addHook('preClose', async () => {
      for (const stream of streams) stream.end()
      streams.clear()
    })

    // A stream, not a compressed body: compression would hold the events back.
    app.get(DEV_EVENTS_PATH, { compress: false }, (request, reply) => {
      const stream = new PassThrough()
      streams.add(stream)
      request.raw.once('close', () => {
        streams.delete(stream)
        stream.end()
      })
      stream.write(event())
      reply.header('Content-Type', 'text/event-stream; charset=utf-8').header('Cache-Control', 'no-store').send(stream)
    })

    app.decorate(ONE_LINE_REQUEST_LOG, true)
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? ''
      if (route !== DEV_EVENTS_PATH && (reply.statusCode >= 400 || !ASSET_ROUTE.test(route))) {
        app.log.info(`${request.method} ${request.url} ${reply.statusCode} ${reply.elapsedTime.toFixed(0)} ms`)
      }
      done()
    })
  }, { name: 'dev-tools', fastify: '5.x' })

  return {
    plugin,
    documentScript: (failure) => devScript({ build, events: DEV_EVENTS_PATH, failure: failure ? failureOverlay(failure) : null })
  }
}
