import type { PublicEnv } from '../shared/page-data.js'

/** Prefix of the one console line a failed start leaves (the browser tests look for it). */
export const NOT_STARTED = 'Session recording did not start:'

let scheduled = false

/**
 * Starts the session-recording tracker off the critical path. Call it once
 * hydration has committed (entry.tsx does, from an effect): its code is a
 * separate chunk, fetched only when a project key is configured and only
 * when the browser is idle, so first paint and hydration never wait for it.
 *
 * Every failure (server error, malformed answer, blocked network, Do Not
 * Track, unsupported browser, a chunk that cannot be downloaded) ends as one
 * console.info line. Info, not warn: a visitor's blocker or Do Not Track is an
 * expected state of an optional add-on, not a fault of the page, and console
 * warnings are what our tests (and monitoring) treat as bugs.
 */
export function startTrackerWhenIdle (env: PublicEnv): void {
  // Once per page load, even if the caller's effect runs twice (StrictMode in development).
  if (scheduled) return
  scheduled = true
  if (!env.OPENREPLAY_PROJECT_KEY) {
    console.debug('Session recording is off: no OPENREPLAY_PROJECT_KEY.')
    return
  }
  const start = () => {
    import('./tracker.js')
      .then(({ startTracker }) => startTracker(env))
      .then((outcome) => { if (!outcome.started) console.info(NOT_STARTED, outcome.reason) })
      .catch((error: unknown) => console.info(NOT_STARTED, 'its code could not be loaded.', error))
  }
  // Safari has no requestIdleCallback; the timeout bounds the wait on a page that is never idle.
  if ('requestIdleCallback' in window) window.requestIdleCallback(start, { timeout: 5000 })
  else setTimeout(start, 1)
}
