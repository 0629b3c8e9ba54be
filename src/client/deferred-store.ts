import { DEFERRED_GLOBAL, recordOutcome, type DeferredEntry, type DeferredOutcome, type Tracked } from '../shared/deferred.js'

declare global {
  interface Window {
    [DEFERRED_GLOBAL]?: { push: (entry: DeferredEntry) => unknown }
  }
}

/** Promise.withResolvers is not in every browser we serve yet. */
function pending<Value> (): { promise: Tracked<Value>, resolve: (value: Value) => void } {
  let resolve!: (value: Value) => void
  const promise: Tracked<Value> = new Promise<Value>((settle) => { resolve = settle })
  return { promise, resolve }
}

/** Settled by the scripts that arrived before hydration and after it, in the same response: no second fetch. */
export function takeDeferredParts (keys: readonly string[]): Map<string, Promise<unknown>> {
  const settlers = new Map<string, (outcome: DeferredOutcome) => void>()
  const parts = new Map<string, Promise<unknown>>()
  for (const key of keys) {
    const outcome = pending<DeferredOutcome>()
    const part = outcome.promise.then((settled) => settled.ok ? settled.value : Promise.reject(new Error(settled.message)))
    part.catch(() => {})
    recordOutcome(part, outcome.promise)
    parts.set(key, part)
    settlers.set(key, (settled) => {
      // Marked settled at once, so hydration renders an arrived part without waiting a turn.
      Object.assign(outcome.promise, { status: 'fulfilled', value: settled })
      outcome.resolve(settled)
    })
  }
  const take = ([key, outcome]: DeferredEntry) => settlers.get(key)?.(outcome)
  const arrived = window[DEFERRED_GLOBAL]
  if (Array.isArray(arrived)) for (const entry of arrived as DeferredEntry[]) take(entry)
  window[DEFERRED_GLOBAL] = { push: take }
  return parts
}
