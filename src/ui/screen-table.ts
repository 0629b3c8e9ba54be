import { createContext, use, useContext } from 'react'
import { SYSTEM_SCREENS, type ScreenEntry, type ScreenRegistry, type ScreenView } from './define-screen.js'

/**
 * The registry the tree renders from: the browser entry's and the server's (src/screens/index.ts, plus a test's
 * screens). Passed down rather than imported, so ui/ never imports the screens that import it.
 */
export const ScreenTableContext = createContext<ScreenRegistry>({})

/** A promise as React's use() reads it: once settled, its status says so and rendering does not wait. */
type Tracked<Value> = Promise<Value> & { status?: 'fulfilled' | 'rejected', value?: Value, reason?: unknown }

const loading = new WeakMap<ScreenEntry, Tracked<ScreenView<any>>>()

/**
 * Once per entry; the server loads every screen before it listens and the browser its own
 * before hydrating, so rendering finds it ready.
 */
export function loadScreen (entry: ScreenEntry): Promise<ScreenView<any>> {
  let promise = loading.get(entry)
  if (!promise) {
    const tracked: Tracked<ScreenView<any>> = entry.view().then((module) => module.default)
    tracked.then((value) => { tracked.status = 'fulfilled'; tracked.value = value }, (reason: unknown) => { tracked.status = 'rejected'; tracked.reason = reason })
    loading.set(entry, promise = tracked)
  }
  return promise
}

/** The entry of `id`; a screen this registry does not know (a newer server's) shows the server-error screen. */
export function screenEntry (registry: ScreenRegistry, id: string): ScreenEntry | undefined {
  return Object.hasOwn(registry, id) ? registry[id] : registry[SYSTEM_SCREENS.serverError]
}

/** The view of the screen `id`, loaded: it suspends only if it was not loaded before rendering. */
export function useScreen (id: string): ScreenView<any> | undefined {
  const entry = screenEntry(useContext(ScreenTableContext), id)
  return entry ? use(loadScreen(entry)) : undefined
}
