import type { PublicEnv } from '../shared/page-data.js'
import { whenActivated } from '../ui/when-activated.js'
import { whenIdle } from '../ui/when-idle.js'

/** The browser tests look for this prefix. */
export const NOT_STARTED = 'Session recording did not start:'

let scheduled = false

/** A failure is one console.info line: a blocker or Do Not Track is expected, not a fault of the page. */
export function startTrackerWhenIdle (env: PublicEnv): void {
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
  // Not while prerendered: the session would record a visit that may never happen.
  whenActivated(() => whenIdle(start, 5000))
}
