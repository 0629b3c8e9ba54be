// The lazily loaded tracker chunk (see start-tracker.ts). It imports the
// library statically so that the whole tracker is this one chunk, and it is
// only ever evaluated in the browser: the library touches `window` on import.
import Tracker from '@openreplay/tracker'
import type { PublicEnv } from '../shared/page-data.js'
import { trackerOptions } from './tracker-options.js'

export type TrackerOutcome =
  | { started: true, sessionID: string }
  | { started: false, reason: string }

let attempt: Promise<TrackerOutcome> | null = null

/**
 * Starts session recording, once per page load. Never rejects and never
 * throws: every failure becomes a `started: false` outcome with the reason,
 * which the caller logs.
 */
export function startTracker (env: PublicEnv): Promise<TrackerOutcome> {
  // A second call is refused, like the library's start() on a started
  // instance; it also keeps a second `new Tracker()` from logging
  // "one tracker instance has been initialised already".
  if (attempt) return Promise.resolve({ started: false, reason: 'start was already called on this page' })
  attempt = start(env)
  return attempt
}

async function start (env: PublicEnv): Promise<TrackerOutcome> {
  const projectKey = env.OPENREPLAY_PROJECT_KEY
  if (!projectKey) return { started: false, reason: 'no project key' }
  try {
    // Do Not Track and missing browser APIs are caught by the constructor,
    // which reports them to /v1/web/not-started and logs its own
    // console.error; start() then rejects with a string.
    const tracker = new Tracker(trackerOptions({ ...env, OPENREPLAY_PROJECT_KEY: projectKey }, window.location.origin))
    // Other failures (a non-200 or malformed answer, a blocked network)
    // resolve with `success: false` instead; both paths end here, never as an
    // unhandled rejection (openreplay#1463).
    const result = await tracker.start()
    return result.success ? { started: true, sessionID: result.sessionID } : { started: false, reason: result.reason }
  } catch (error: unknown) {
    return { started: false, reason: error instanceof Error ? error.message : String(error) }
  }
}
