import type { HintSources, Hints } from './client-hints.js'
import type { ThemePreference } from './theme.js'
import type { ToastSchema } from './toast-schema.js'
import type { Static } from 'typebox'

/**
 * The server → browser contract. Everything the browser learns about a
 * request travels in one PageData object, rendered into the HTML and parsed
 * once before hydration, so server and client render from the same value.
 */

/** The only configuration the browser ever sees (see server/env.ts publicEnv). */
export interface PublicEnv {
  MODE: 'production' | 'development' | 'test'
  ALLOW_INDEXING: boolean
  OPENREPLAY_PROJECT_KEY: string | null
  OPENREPLAY_INGEST_POINT: string | null
  OPENREPLAY_INSECURE: boolean
}

export interface RequestInfo {
  /** The browser's hints, or their fallbacks (light, UTC). */
  hints: Hints
  /** Where each hint came from: a `fallback` theme hint lets the stylesheet follow the OS scheme. */
  hintSources: HintSources
  userPrefs: { theme: ThemePreference }
  /** Bots get no client-hint reload: they index the first response. */
  isBot: boolean
  /** Path and query of the current page, used as the theme switch's return address. */
  path: string
}

export type Toast = Static<typeof ToastSchema>
export type ToastType = Toast['type']

/** Names and encrypted timestamp of a form's honeypot fields (see server/honeypot.ts). */
export interface HoneyProps {
  nameFieldName: string
  validFromFieldName: string
  encryptedValidFrom: string
}

export interface Assets {
  /** Hashed stylesheets, in order. */
  styles: string[]
  /** The client entry module. */
  entry: string
  /** Chunks the entry imports statically, preloaded so they arrive in parallel. */
  preloads: string[]
}

/** The page being shown: which component and the data its loader produced. */
export interface PageState {
  id: string
  status: number
  data: unknown
}

export interface PageData {
  requestInfo: RequestInfo
  env: PublicEnv
  honeyProps: HoneyProps
  toast: Toast | null
  /** When the page failed, the server's error page: nothing of the failure reaches the browser. */
  page: PageState
  assets: Assets
}
