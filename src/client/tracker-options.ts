// Type-only import, erased at build time: this module loads in Node (its unit
// test) without the library, which touches `window` on import.
import type { Options } from '@openreplay/tracker'
import type { PublicEnv } from '../shared/page-data.js'

/**
 * The OpenReplay tracker's options, built only from the public env. Nothing
 * else reaches the tracker: no secret, no cookie value, no user id or
 * metadata. Its masking defaults (every text input's value obscured, a text
 * node that is an email obscured) are deliberately left alone.
 */
export function trackerOptions (env: PublicEnv & { OPENREPLAY_PROJECT_KEY: string }, pageOrigin: string): Options {
  return {
    projectKey: env.OPENREPLAY_PROJECT_KEY,
    // Unset means the library's own default (https://api.openreplay.com/ingest).
    ...(env.OPENREPLAY_INGEST_POINT ? { ingestPoint: env.OPENREPLAY_INGEST_POINT } : {}),
    // The library refuses plain-http pages unless told otherwise; only for development and tests.
    ...(env.OPENREPLAY_INSECURE ? { __DISABLE_SECURE_MODE: true } : {}),
    respectDoNotTrack: true,
    // Spelled out in full: the library's Options type demands every field here.
    network: {
      // Request and response bodies may carry form data and tokens: record metadata only.
      capturePayload: false,
      // The library's defaults: cookies (the theme cookie among them) and credentials are never recorded.
      ignoreHeaders: ['cookie', 'set-cookie', 'authorization'],
      failuresOnly: false,
      captureInIframes: true,
      // X-OpenReplay-SessionToken lets our own server correlate its logs with a
      // recording; the matcher keeps it off every third-party request.
      sessionTokenHeader: true,
      tokenUrlMatcher: (url) => isOwnOrigin(url, pageOrigin)
    }
  }
}

/**
 * Whether `url` (absolute, protocol-relative or relative, as handed to fetch
 * or XMLHttpRequest.open) points at `pageOrigin`. Anything unparsable is
 * treated as foreign.
 */
export function isOwnOrigin (url: string, pageOrigin: string): boolean {
  try {
    return new URL(url, `${pageOrigin}/`).origin === pageOrigin
  } catch {
    return false
  }
}
