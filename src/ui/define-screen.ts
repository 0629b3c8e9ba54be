import type { ComponentType } from 'react'
import type { SurvivesJson } from '../shared/survives-json.js'

// What a screen's author writes: a view (src/screens/<name>.tsx) and its registry line (src/screens/index.ts).
// Types and an identity function only: a screen never sees the registry, and no import cycle can leave an entry
// undefined.

export type ScreenText<Data> = string | ((screen: { status: number, data: Data }) => string)

/** What the document's <head> says about a screen; React escapes every value. */
export interface ScreenMeta<Data = unknown> {
  title?: ScreenText<Data>
  /** The shell's description when absent. */
  description?: ScreenText<Data>
  /** The screen's preferred address (<link rel="canonical">): a path of this site, or an absolute http(s) URL. */
  canonical?: ScreenText<Data>
}

export type ScreenComponent<Data = unknown> = ComponentType<{ data: Data }>

/** What the browser runs of a screen: the default export of src/screens/<name>.tsx. */
export interface ScreenView<Data = unknown> {
  /** Its address; none for a screen the server chooses (the error screens). */
  path?: string
  meta?: ScreenMeta<Data>
  component: ScreenComponent<Data>
  /** false when the component reads more than its data (the clock): rendered on every request. */
  cache?: boolean
  /**
   * true when its deferred parts follow from the rest of its data and the request alone: only then may a document
   * with deferred data be served from the render cache (docs/streaming.md).
   */
  cacheDeferred?: boolean
}

/** Its data is its loader's, hydrated from JSON: a type JSON would change (a Date, a Map) is refused here too. */
export function defineScreen<Data extends SurvivesJson<Data>> (view: ScreenView<Data>): ScreenView<Data> {
  return view
}

/**
 * One line of the registry. `view` is a chunk of its own, which the screen's documents preload; `server` (its
 * loader and form action, src/screens/<name>.server.ts) is never part of the browser bundle: the build leaves it out
 * and refuses any other import of a `.server` module from browser code.
 */
export interface ScreenEntry {
  view: () => Promise<{ default: ScreenView<any> }>
  server?: () => Promise<object>
}

/** Screen ids (the registry's keys) to their entries. */
export type ScreenRegistry = Readonly<Record<string, ScreenEntry>>

/** The screens the server chooses for errors; every registry has them. */
export const SYSTEM_SCREENS = { notFound: 'notFound', clientError: 'clientError', serverError: 'serverError' } as const

/** A registry the app can run: src/screens/index.ts (`import * as SCREENS`), plus any screens a test adds. */
export type AppRegistry = ScreenRegistry & Readonly<Record<typeof SYSTEM_SCREENS[keyof typeof SYSTEM_SCREENS], ScreenEntry>>
