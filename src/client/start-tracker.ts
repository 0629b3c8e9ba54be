import type { PublicEnv } from '../shared/page-data.js'

/**
 * Starts the session-recording tracker once the page is interactive, off the
 * critical path: its code is a separate chunk fetched on idle, and only when
 * a project key is configured.
 */
export function startTrackerWhenIdle (env: PublicEnv): void {
  if (!env.OPENREPLAY_PROJECT_KEY) {
    console.debug('Session recording is off: no OPENREPLAY_PROJECT_KEY.')
    return
  }
  const start = () => {
    import('./tracker.js')
      .then(({ startTracker }) => startTracker(env))
      .catch((error: unknown) => console.warn('Session recording could not start:', error))
  }
  if ('requestIdleCallback' in window) window.requestIdleCallback(start, { timeout: 5000 })
  else setTimeout(start, 1)
}
