/**
 * Every screen of the app: one export each, named for its id, read whole as `import * as SCREENS`. `view` is what the
 * browser runs (the component, its path and meta); `server`, beside it, what only the server runs (its loader and form
 * action). See docs/building-a-screen.md.
 */
export const home = { view: () => import('./home.js') }
export * from './examples/index.js' // The worked examples (docs/examples.md): to remove them, delete this line and the folder.
// Chosen by the server for errors: no address, titles from the error catalogue, no canonical.
export const notFound = { view: () => import('./not-found.js') }
export const clientError = { view: () => import('./client-error.js') }
export const serverError = { view: () => import('./server-error.js') }
