import { DEFERRED_GLOBAL, recordOutcome, type DeferredEntry, type DeferredOutcome, type Tracked } from '../shared/deferred.js'
import { toast } from '../ui/toast.js'

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

/** Past the server's time limit and this much more, a part not arrived never will: the connection was lost mid-page. */
export const LOST_PART_GRACE_MS = 3000

// Chromium leaves a document whose connection dropped mid-stream loading, with no event: its fallbacks would show for good.
function tellLostParts (): void {
  toast.error('Part of this page did not arrive', { description: 'The connection was lost before the page finished loading. Reload the page to see all of it.' })
}

/** Settled by the scripts that arrived before hydration and after it, in the same response: no second fetch. A part
 * still missing once the server would have sent it, the document still loading, is lost: the visitor is told. */
export function takeDeferredParts (keys: readonly string[], streamTimeLimitMs: number, tellLost = tellLostParts): Map<string, Promise<unknown>> {
  const missing = new Set(keys)
  let lostAfter: ReturnType<typeof setTimeout> | undefined
  const settlers = new Map<string, (outcome: DeferredOutcome) => void>()
  const parts = new Map<string, Promise<unknown>>()
  for (const key of keys) {
    const outcome = pending<DeferredOutcome>()
    const part = outcome.promise.then((settled) => settled.ok ? settled.value : Promise.reject(new Error(settled.message)))
    part.catch(() => {})
    recordOutcome(part, outcome.promise)
    parts.set(key, part)
    settlers.set(key, (settled) => {
      missing.delete(key)
      if (missing.size === 0) clearTimeout(lostAfter)
      // Marked settled at once, so hydration renders an arrived part without waiting a turn.
      Object.assign(outcome.promise, { status: 'fulfilled', value: settled })
      outcome.resolve(settled)
    })
  }
  const take = ([key, outcome]: DeferredEntry) => settlers.get(key)?.(outcome)
  const arrived = window[DEFERRED_GLOBAL]
  if (Array.isArray(arrived)) for (const entry of arrived as DeferredEntry[]) take(entry)
  window[DEFERRED_GLOBAL] = { push: take }
  if (missing.size > 0) lostAfter = setTimeout(() => { if (document.readyState === 'loading') tellLost() }, streamTimeLimitMs + LOST_PART_GRACE_MS)
  return parts
}
