import type { ScreenRegistry, ScreenView } from '../../src/ui/define-screen.js'

/** A registry entry for a screen a test defines in place: its view, and its server module's exports (loader, action). */
export function screen<Data> (view: ScreenView<Data>, server?: object): ScreenRegistry[string] {
  return { view: async () => ({ default: view }), ...(server ? { server: async () => server } : {}) }
}
