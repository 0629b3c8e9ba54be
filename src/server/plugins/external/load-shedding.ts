import underPressure from '@fastify/under-pressure'
import fp from 'fastify-plugin'

export interface LoadSheddingOptions {
  /** Event-loop delay in ms above which requests are shed with 503; 0 never sheds. */
  maxEventLoopDelay?: number
  retryAfterSeconds?: number
}

/** Sheds load with 503 and Retry-After when the event loop falls behind, so a saturated instance recovers. */
export const loadShedding = fp<LoadSheddingOptions>(async (app, options) => {
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelay ?? 1000,
    retryAfter: options.retryAfterSeconds ?? 10,
    message: 'The server is busy. Please retry shortly.'
  })
}, { name: 'load-shedding', fastify: '5.x' })
