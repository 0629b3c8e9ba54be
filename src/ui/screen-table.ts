import { createContext, use, useContext } from 'react'
import { SYSTEM_SCREENS, type ScreenEntry, type ScreenRegistry, type ScreenView } from './define-screen.js'

/** Passed down rather than imported, so ui/ never imports the screens that import it. */
export const ScreenTableContext = createContext<ScreenRegistry>({})

/** As React's use() reads it: once `status` is set, rendering does not wait. */
type Tracked<Value> = Promise<Value> & { status?: 'fulfilled' | 'rejected', value?: Value, reason?: unknown }

const loading = new WeakMap<ScreenEntry, Tracked<ScreenView<any>>>()

/** The server loads every screen before it listens, the browser its own before hydrating: rendering finds it ready. */
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

/** Suspends only if the screen was not loaded before rendering. */
export function useScreen (id: string): ScreenView<any> | undefined {
  const entry = screenEntry(useContext(ScreenTableContext), id)
  return entry ? use(loadScreen(entry)) : undefined
}
