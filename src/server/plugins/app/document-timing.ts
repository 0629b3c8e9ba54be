import type { FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import { performance } from 'node:perf_hooks'
import type { CacheOutcome, DocumentOutcome } from '../../observability/metrics.js'
import { replySlot } from '../../http/reply-slot.js'
import { deferredPartsOf } from '../../rendering/deferred-parts.js'
import type { Delivery } from '../../rendering/render.js'

declare module 'fastify' {
  interface FastifyReply {
    /** Marks this response as a document of `page` whose render starts now; its first byte ends the render. */
    timeDocument (page: string, cache: CacheOutcome): void
    documentFailed (): void
    documentDelivery (delivery: Delivery): void
    documentHeadSent (): void
  }
}

export interface DocumentTiming {
  page: string
  cache: CacheOutcome
  startedAt: number
  /** Set when the response's headers go out. */
  renderMs: number | undefined
  delivery: Delivery
  /** When React wrote the head of a document that waits; a whole one's head leaves with its headers. */
  headMs: number | undefined
  failed: boolean
}

const TIMING = replySlot<DocumentTiming>('documentTiming')

export function documentTiming (reply: FastifyReply): DocumentTiming | undefined {
  return TIMING.get(reply) ?? undefined
}

// Read when the response has ended. A document failed when its shell did, or a deferred part did while its client was there.
export function documentOutcome (reply: FastifyReply, now = performance.now()): DocumentOutcome | undefined {
  const timing = documentTiming(reply)
  if (timing === undefined) return undefined
  const { page, cache, renderMs, delivery, headMs, startedAt } = timing
  const renderSeconds = (renderMs ?? 0) / 1000
  const failed = timing.failed || deferredPartsOf(reply)?.failed === true
  return { page, cache, renderSeconds, delivery, headSeconds: headMs === undefined ? renderSeconds : headMs / 1000, lastByteSeconds: (now - startedAt) / 1000, failed }
}

// Nothing about the visitor. A waiting document's `render` is the time to its headers: they leave before its last byte.
export function serverTiming (renderMs: number, cache: CacheOutcome, delivery: Delivery = 'whole'): string {
  return `render;dur=${renderMs.toFixed(1)}, cache;desc=${cache}${delivery === 'whole' ? '' : `, delivery;desc=${delivery}`}`
}

export interface DocumentTimingOptions {
  /** Whether documents say their timing in Server-Timing (SERVER_TIMING); the timing is kept for metrics either way. */
  header: boolean
}

export const documentTimingPlugin = fp<DocumentTimingOptions>(async (app, { header }) => {
  TIMING.declare(app)
  app.decorateReply('timeDocument', function (this: FastifyReply, page: string, cache: CacheOutcome) {
    TIMING.set(this, { page, cache, startedAt: performance.now(), renderMs: undefined, delivery: 'whole', headMs: undefined, failed: false })
  })
  app.decorateReply('documentDelivery', function (this: FastifyReply, delivery: Delivery) {
    const timing = documentTiming(this)
    if (timing) timing.delivery = delivery
  })
  app.decorateReply('documentHeadSent', function (this: FastifyReply) {
    const timing = documentTiming(this)
    if (timing && timing.headMs === undefined) timing.headMs = performance.now() - timing.startedAt
  })
  app.decorateReply('documentFailed', function (this: FastifyReply) {
    const timing = documentTiming(this)
    if (timing) timing.failed = true
  })
  app.addHook('onSend', (_request, reply, payload, done) => {
    const timing = documentTiming(reply)
    if (timing && timing.renderMs === undefined) {
      timing.renderMs = performance.now() - timing.startedAt
      if (header) reply.header('Server-Timing', serverTiming(timing.renderMs, timing.cache, timing.delivery))
    }
    done(null, payload)
  })
}, { name: 'document-timing', fastify: '5.x' })
