import type { HintSources, Hints } from './client-hints.js'
import type { FormState } from './form-state.js'
import type { ThemePreference } from './theme.js'
import type { ToastSchema } from './toast-schema.js'
import type { Static } from 'typebox'

/** The only configuration the browser ever sees (server/env.ts publicEnv). */
export interface PublicEnv {
  MODE: 'production' | 'development' | 'test'
  ALLOW_INDEXING: boolean
  OPENREPLAY_PROJECT_KEY: string | null
  OPENREPLAY_INGEST_POINT: string | null
  OPENREPLAY_INSECURE: boolean
  /** How long the server lets a document wait on its data: a part not arrived well after it never will. */
  STREAM_TIME_LIMIT_MS: number
}

export interface RequestInfo {
  hints: Hints
  hintSources: HintSources
  userPrefs: { theme: ThemePreference }
  /** Bots get no client-hint reload: they index the first response. */
  isBot: boolean
  path: string
  /** Reduced by safeRedirect. */
  returnTo: string
  /** The origin the visitor asked for (a trusted proxy's, behind one); null when the Host header names none. */
  origin: string | null
}

export type Toast = Static<typeof ToastSchema>
export type ToastType = Toast['type']

export interface HoneyProps {
  nameFieldName: string
  validFromFieldName: string
  encryptedValidFrom: string
}

export interface Assets {
  styles: string[]
  entry: string
  preloads: string[]
}

export interface PageState {
  id: string
  status: number
  data: unknown
  deferred?: string[]
  /** A refused form submission shown on the page: one visitor's, so never cached. */
  form?: FormState
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

export type SentPageData = Omit<PageData, 'env'>
