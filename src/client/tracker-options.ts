import type { Options } from '@openreplay/tracker'
import type { PublicEnv } from '../shared/page-data.js'

export function trackerOptions (env: PublicEnv & { OPENREPLAY_PROJECT_KEY: string }, pageOrigin: string): Options {
  return {
    projectKey: env.OPENREPLAY_PROJECT_KEY,
    ...(env.OPENREPLAY_INGEST_POINT ? { ingestPoint: env.OPENREPLAY_INGEST_POINT } : {}),
    // The library refuses plain-http pages unless told otherwise; only for development and tests.
    ...(env.OPENREPLAY_INSECURE ? { __DISABLE_SECURE_MODE: true } : {}),
    respectDoNotTrack: true,
    network: {
      // Request and response bodies may carry form data and tokens: record metadata only.
      capturePayload: false,
      ignoreHeaders: ['cookie', 'set-cookie', 'authorization'],
      failuresOnly: false,
      captureInIframes: true,
      sessionTokenHeader: true,
      tokenUrlMatcher: (url) => isOwnOrigin(url, pageOrigin)
    }
  }
}

export function isOwnOrigin (url: string, pageOrigin: string): boolean {
  try {
    return new URL(url, `${pageOrigin}/`).origin === pageOrigin
  } catch {
    return false
  }
}
