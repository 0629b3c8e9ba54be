import underPressure from '@fastify/under-pressure'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Read per route by @fastify/under-pressure in place of its own answer; returning nothing lets the request through. */
    pressureHandler?: () => undefined
  }
}

export const NEVER_SHED = { pressureHandler: () => undefined }

/** under-pressure's default, a second, lets a stall go unseen that long: this sheds before probes time out. */
export const SAMPLE_INTERVAL_MS = 100

export interface LoadSheddingOptions {
  /** Event-loop delay in ms above which requests are shed with 503; 0 never sheds. */
  maxEventLoopDelay?: number
  retryAfterSeconds?: number
}

export const loadShedding = fp<LoadSheddingOptions>(async (app, options) => {
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelay ?? 1000,
    sampleInterval: SAMPLE_INTERVAL_MS,
    retryAfter: options.retryAfterSeconds ?? 10,
    message: 'The server is busy. Please retry shortly.'
  })
}, { name: 'load-shedding', fastify: '5.x' })
