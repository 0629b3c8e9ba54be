import type { FastifyBaseLogger, FastifyInstance, FastifyReply } from 'fastify'
import { abortRequest, clientWentAway } from '../http/request-abort.js'
import { replySlot } from '../http/reply-slot.js'
import { DEFERRED_FAILED, DEFERRED_TIMED_OUT, deferredScript, publicMessage, recordOutcome, type DeferredOutcome, type Tracked } from '../../shared/deferred.js'

/** `awaited`: a boundary was waiting for the part, so React renders it again and writes it. */
type Listener = (key: string, script: string, awaited: boolean) => void

// Each part settles once: its value, its failure (logged here once, with the request id) or timed out.
export class DeferredParts {
  readonly parts: ReadonlyMap<string, PromiseLike<unknown>>
  readonly #expire: Array<() => void> = []
  readonly #settled: Array<[string, string, boolean]> = []
  #listener: Listener | null = null
  #pending: number
  #failed = false

  constructor (deferred: ReadonlyMap<string, PromiseLike<unknown>>, log: FastifyBaseLogger, signal: AbortSignal) {
    this.parts = deferred
    this.#pending = deferred.size
    for (const [key, part] of deferred) {
      let resolve!: (outcome: DeferredOutcome) => void
      const outcome: Tracked<DeferredOutcome> = new Promise((settle) => { resolve = settle })
      let done = false
      const settle = (given: DeferredOutcome) => {
        if (done) return
        done = true
        this.#pending--
        let settled = given
        let script: string
        try {
          script = deferredScript(key, settled)
        } catch (error) {
          // A value JSON cannot carry (a cycle, a "__proto__" key) would hydrate differently: it fails here instead.
          log.error({ err: error, part: key }, 'a deferred part of the page cannot be sent to the browser')
          settled = { ok: false, message: DEFERRED_FAILED }
          script = deferredScript(key, settled)
        }
        // A part whose client left is nobody's failure; one stopped by the time limit is the document's.
        if (!settled.ok && !clientWentAway(signal)) this.#failed = true
        const awaited = outcome.status === 'pending'
        Object.assign(outcome, { status: 'fulfilled', value: settled })
        resolve(settled)
        this.#settled.push([key, script, awaited])
        this.#listener?.(key, script, awaited)
      }
      part.then((value) => settle({ ok: true, value }), (error: unknown) => {
        // A part that failed because its client left (its loader saw the signal) is nobody's error.
        if (!done && !signal.aborted) log.error({ err: error, part: key }, 'a deferred part of the page failed')
        settle({ ok: false, message: publicMessage(error) })
      })
      recordOutcome(part, outcome)
      this.#expire.push(() => settle({ ok: false, message: DEFERRED_TIMED_OUT }))
    }
  }

  get keys (): string[] {
    return [...this.parts.keys()]
  }

  get pending (): number {
    return this.#pending
  }

  /** Whether a part failed or reached the time limit while its client was still there: the document counts as failed. */
  get failed (): boolean {
    return this.#failed
  }

  /** Hears every settled part, those settled before it was set first. */
  listen (listener: Listener): void {
    this.#listener = listener
    for (const [key, script, awaited] of this.#settled) listener(key, script, awaited)
  }

  expire (): void {
    for (const expire of this.#expire) expire()
  }
}

const PARTS = replySlot<DeferredParts>('deferredParts')

/** The slot on every reply, declared once by the plugin that fills it. */
export const declareDeferredParts = (app: FastifyInstance): void => PARTS.declare(app)

/** Set by the loading of a page, read by its render: one request's parts never reach another's. */
export const setDeferredParts = (reply: FastifyReply, parts: DeferredParts): void => PARTS.set(reply, parts)

export const deferredPartsOf = (reply: FastifyReply): DeferredParts | null => PARTS.get(reply)

/**
 * For a request whose own parts are never shown: its document came from the render cache with the parts it was kept
 * with (cacheDeferred), or was refused to a speculation. Its loader's slow work is stopped through `signal`, and a part
 * that fails is nobody's error.
 */
export function dropDeferredParts (reply: FastifyReply, why: string): void {
  if (PARTS.get(reply) === null) return
  PARTS.set(reply, null)
  abortRequest(reply, new Error(`${why}: its deferred parts are not needed`))
}
