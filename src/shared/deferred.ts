import { serializeForScript } from './serialize.js'

// Deferred loader data, the contract both sides keep: docs/streaming.md.

export type DeferredOutcome<Value = unknown> = { ok: true, value: Value } | { ok: false, message: string }

/** Thrown (or rejected with) by a loader's deferred work: its message is shown to the visitor as it is. */
export class DeferredError extends Error {
  constructor (message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'DeferredError'
  }
}

export const DEFERRED_FAILED = 'This part of the page could not be loaded. Please reload the page to try again.'
export const DEFERRED_TIMED_OUT = 'This part of the page took too long to load. Please reload the page to try again.'

/** Any other error may carry internals (a query, a host name): the visitor gets the general words. */
export function publicMessage (error: unknown): string {
  return error instanceof DeferredError ? error.message : DEFERRED_FAILED
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'

export interface SplitData {
  awaited: unknown
  deferred: Map<string, PromiseLike<unknown>>
}

/** Only the top level is looked at: a promise deeper in the data is a mistake JSON would turn into `{}`. */
export function splitDeferred (data: unknown): SplitData {
  const deferred = new Map<string, PromiseLike<unknown>>()
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { awaited: data, deferred }
  const awaited: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(data)) {
    if (isThenable(value)) deferred.set(key, value)
    else awaited[key] = value
  }
  return { awaited: deferred.size === 0 ? data : awaited, deferred }
}

export const DEFERRED_GLOBAL = '__DEFERRED__'

export type DeferredEntry = [key: string, outcome: DeferredOutcome]

export function deferredScript (key: string, outcome: DeferredOutcome): string {
  return `(self.${DEFERRED_GLOBAL}=self.${DEFERRED_GLOBAL}||[]).push(${serializeForScript([key, outcome])})`
}

/** As React's use() reads it: once `status` is set, rendering does not wait. */
export type Tracked<Value> = Promise<Value> & { status?: 'pending' | 'fulfilled' | 'rejected', value?: Value, reason?: unknown }

const OUTCOMES = new WeakMap<PromiseLike<unknown>, Promise<DeferredOutcome>>()

/** Each side records the outcome of the parts it hands to the page, so the page's error UI shows the same words. */
export function recordOutcome (part: PromiseLike<unknown>, outcome: Promise<DeferredOutcome>): void {
  OUTCOMES.set(part, outcome)
}

export function outcomeOf<Value> (part: PromiseLike<Value>): Promise<DeferredOutcome<Value>> {
  let outcome = OUTCOMES.get(part)
  if (!outcome) {
    outcome = Promise.resolve(part).then((value) => ({ ok: true, value }), (error: unknown) => ({ ok: false, message: publicMessage(error) }))
    OUTCOMES.set(part, outcome)
  }
  return outcome as Promise<DeferredOutcome<Value>>
}
