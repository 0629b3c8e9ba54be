import type { FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import { performance } from 'node:perf_hooks'
import type { CacheOutcome, DocumentOutcome } from '../metrics.js'

declare module 'fastify' {
  interface FastifyReply {
    /** Marks this response as a document of `page` whose render starts now; its first byte ends the render. */
    timeDocument (page: string, cache: CacheOutcome): void
    /** Marks the document's render as failed (the shell, or a part streamed after it). */
    documentFailed (): void
  }
}

export interface DocumentTiming {
  page: string
  cache: CacheOutcome
  /** performance.now() when the render started. */
  startedAt: number
  /** Set when the response's headers go out. */
  renderMs: number | undefined
  failed: boolean
}

const TIMING = Symbol('documentTiming')
type TimingSlot = { [TIMING]: DocumentTiming | null }

/** The document this response carries, if it is one: for metrics and traces. */
export function documentTiming (reply: FastifyReply): DocumentTiming | undefined {
  return (reply as FastifyReply & TimingSlot)[TIMING] ?? undefined
}

export function documentOutcome ({ page, cache, renderMs, failed }: DocumentTiming): DocumentOutcome {
  return { page, cache, renderSeconds: (renderMs ?? 0) / 1000, failed }
}

/**
 * `Server-Timing: render;dur=0.4, cache;desc=hit`, for the browser's
 * devtools: the render time to a tenth of a millisecond and whether the render
 * cache served the page. Nothing about the visitor.
 */
export function serverTiming (renderMs: number, cache: CacheOutcome): string {
  return `render;dur=${renderMs.toFixed(1)}, cache;desc=${cache}`
}

/**
 * Times documents, and only documents: redirects, JSON and the probes never
 * call timeDocument, so they get no Server-Timing header.
 */
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
