// The lazily loaded tracker chunk: the library touches `window` on import.
import Tracker from '@openreplay/tracker'
import type { PublicEnv } from '../shared/page-data.js'
import { trackerOptions } from './tracker-options.js'

export type TrackerOutcome =
  | { started: true, sessionID: string }
  | { started: false, reason: string }

let attempt: Promise<TrackerOutcome> | null = null

export function startTracker (env: PublicEnv): Promise<TrackerOutcome> {
  if (attempt) return Promise.resolve({ started: false, reason: 'start was already called on this page' })
  attempt = start(env)
  return attempt
}

async function start (env: PublicEnv): Promise<TrackerOutcome> {
  const projectKey = env.OPENREPLAY_PROJECT_KEY
  if (!projectKey) return { started: false, reason: 'no project key' }
  try {
    const tracker = new Tracker(trackerOptions({ ...env, OPENREPLAY_PROJECT_KEY: projectKey }, window.location.origin))
    tracker.use(closeTabChannelOnPageHide)
    // start() rejects or resolves `success: false`: both end here, never unhandled (openreplay#1463).
    const result = await tracker.start()
    return result.success ? { started: true, sessionID: result.sessionID } : { started: false, reason: result.reason }
  } catch (error: unknown) {
    return { started: false, reason: error instanceof Error ? error.message : String(error) }
  }
}

/** The library's open BroadcastChannel keeps the page out of the back/forward cache, and `forceSingleTab` (no
 * channel) never starts in 15.0.3: closed on pagehide, so a tab opened later starts a session of its own. */
function closeTabChannelOnPageHide (app: unknown): void {
  const withChannel = app as { bc?: BroadcastChannel | null } | null
  if (!withChannel?.bc) return
  addEventListener('pagehide', () => {
    withChannel.bc?.close()
    withChannel.bc = null
  }, { once: true })
}
