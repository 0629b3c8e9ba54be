import type { FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import { performance } from 'node:perf_hooks'
import type { CacheOutcome, DocumentOutcome } from '../../observability/metrics.js'

declare module 'fastify' {
  interface FastifyReply {
    /** Marks this response as a document of `page` whose render starts now; its first byte ends the render. */
    timeDocument (page: string, cache: CacheOutcome): void
    /** The shell, or a part streamed after it. */
    documentFailed (): void
  }
}

export interface DocumentTiming {
  page: string
  cache: CacheOutcome
  startedAt: number
  /** Set when the response's headers go out. */
  renderMs: number | undefined
  failed: boolean
}

const TIMING = Symbol('documentTiming')
type TimingSlot = { [TIMING]: DocumentTiming | null }

export function documentTiming (reply: FastifyReply): DocumentTiming | undefined {
  return (reply as FastifyReply & TimingSlot)[TIMING] ?? undefined
}

export function documentOutcome ({ page, cache, renderMs, failed }: DocumentTiming): DocumentOutcome {
  return { page, cache, renderSeconds: (renderMs ?? 0) / 1000, failed }
}

/** For the browser's devtools: nothing about the visitor. */
export function serverTiming (renderMs: number, cache: CacheOutcome): string {
  return `render;dur=${renderMs.toFixed(1)}, cache;desc=${cache}`
}

/** Redirects, JSON and the probes never call timeDocument, so they get no Server-Timing header. */
export const documentTimingPlugin = fp(async (app) => {
  app.decorateReply(TIMING, null)
  app.decorateReply('timeDocument', function (this: FastifyReply, page: string, cache: CacheOutcome) {
    (this as FastifyReply & TimingSlot)[TIMING] = { page, cache, startedAt: performance.now(), renderMs: undefined, failed: false }
  })
  app.decorateReply('documentFailed', function (this: FastifyReply) {
    const timing = documentTiming(this)
    if (timing) timing.failed = true
  })
  app.addHook('onSend', (_request, reply, payload, done) => {
    const timing = documentTiming(reply)
    if (timing && timing.renderMs === undefined) {
      timing.renderMs = performance.now() - timing.startedAt
      reply.header('Server-Timing', serverTiming(timing.renderMs, timing.cache))
    }
    done(null, payload)
  })
}, { name: 'document-timing', fastify: '5.x' })
