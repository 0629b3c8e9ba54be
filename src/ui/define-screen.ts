import type { ComponentType } from 'react'
import type { SurvivesJson } from '../shared/survives-json.js'

// Types and an identity function only: a screen never sees the registry, and no import cycle can leave an entry
// undefined.

export type ScreenText<Data> = string | ((screen: { status: number, data: Data }) => string)

/** What the document's <head> says about a screen; React escapes every value. */
export interface ScreenMeta<Data = unknown> {
  title?: ScreenText<Data>
  description?: ScreenText<Data>
  /** The screen's preferred address (<link rel="canonical">): a path of this site, or an absolute http(s) URL. */
  canonical?: ScreenText<Data>
}

export type ScreenComponent<Data = unknown> = ComponentType<{ data: Data }>

export interface ScreenView<Data = unknown> {
  /** None for the error screens, which the server chooses. */
  path?: string
  meta?: ScreenMeta<Data>
  component: ScreenComponent<Data>
  /** false when the component reads more than its data (the clock): rendered on every request. */
  cache?: boolean
  /** true when its deferred parts follow from its other data alone (and the address, theme and hints): only then is a
   * document with deferred data served from the render cache, so a part that reads a cookie would reach another
   * visitor (docs/streaming.md). */
  cacheDeferred?: boolean
}

/** Its data is its loader's, hydrated from JSON: a type JSON would change (a Date, a Map) is refused here too. */
export function defineScreen<Data extends SurvivesJson<Data>> (view: ScreenView<Data>): ScreenView<Data> {
  return view
}

/** `server` (src/screens/<name>.server.ts) never reaches the browser bundle: the build leaves it out and refuses
 * any other import of a `.server` module from browser code. */
export interface ScreenEntry {
  view: () => Promise<{ default: ScreenView<any> }>
  server?: () => Promise<object>
}

export type ScreenRegistry = Readonly<Record<string, ScreenEntry>>

/** Every registry has them. */
export const SYSTEM_SCREENS = { notFound: 'notFound', clientError: 'clientError', serverError: 'serverError' } as const

export type AppRegistry = ScreenRegistry & Readonly<Record<typeof SYSTEM_SCREENS[keyof typeof SYSTEM_SCREENS], ScreenEntry>>
