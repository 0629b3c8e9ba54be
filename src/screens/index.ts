import { defineScreens } from '../ui/define-screen.js'
import { EXAMPLES } from './examples/index.js'

/**
 * Every screen of the app, by id: one line each. `view` is what the browser runs (the component, its path and meta);
 * `server`, beside it, what only the server runs (its loader and form action). See docs/building-a-screen.md.
 */
export const SCREENS = defineScreens({
  home: { view: () => import('./home.js') },
  // The worked examples (docs/examples.md): to remove them, delete this line, its import, src/screens/examples/ and test/screens/examples/.
  ...EXAMPLES,
  // Chosen by the server for errors: no address, titles from the error catalogue, no canonical.
  'not-found': { view: () => import('./not-found.js') },
  'client-error': { view: () => import('./client-error.js') },
  'server-error': { view: () => import('./server-error.js') }
})
