import { setTimeout as wait } from 'node:timers/promises'
import { clientError } from '../../server/errors.js'
import { defineLoader } from '../../server/screens/index.js'
import { DeferredError } from '../../shared/deferred.js'
import type { SlowPart, StreamingData } from './streaming.js'

// A failure any client may ask for writes an error log line and counts a failed document at will: production leaves it
// out. The server build defines NODE_ENV, so its bundle holds none of it, as src/server/serve.ts leaves out dev tools.
const FAILURE_OFFERED = process.env.NODE_ENV !== 'production'

export const DEFAULT_DELAY_MS = 1500
export const MAX_DELAY_MS = 10_000
export const BAD_DELAY = `The delay must be a whole number of milliseconds from 0 to ${MAX_DELAY_MS}.`

/** The `delay` query as written by a person: digits only (no `1e3`, no `0x10`, no sign), within range; undefined otherwise. */
export function readDelay (query: string | null): number | undefined {
  if (query === null) return DEFAULT_DELAY_MS
  if (!/^\d{1,5}$/.test(query)) return undefined
  const delay = Number(query)
  return delay <= MAX_DELAY_MS ? delay : undefined
}

/** Stands in for a slow service: it answers after `delay`, or stops as soon as `signal` fires. */
async function loadSlowPart (delay: number, fails: boolean, signal: AbortSignal): Promise<SlowPart> {
  await wait(delay, undefined, { signal })
  // A DeferredError's words are shown as written; any other error shows general ones.
  if (fails) throw new DeferredError('This part could not be loaded: the slow service failed, as ?fail=1 asked it to.')
  return { delay }
}

export const loader = defineLoader<StreamingData>(({ url, signal }) => {
  const delay = readDelay(url.searchParams.get('delay'))
  if (delay === undefined) throw clientError('BAD_REQUEST', BAD_DELAY)
  // Not awaited: the page renders now, and the slow part streams in where its fallback is.
  const fails = FAILURE_OFFERED && url.searchParams.get('fail') === '1'
  return { delay, failureOffered: FAILURE_OFFERED, slow: loadSlowPart(delay, fails, signal) }
})
