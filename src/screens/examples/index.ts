// The example screens, as registry lines: src/screens/index.ts re-exports them. Removing the examples is deleting
// this folder, with its tests, and that one line (docs/examples.md); the home page links to them only while the
// registry lists them.
export const examples = { view: () => import('./examples.js') }
export const examplesForm = { view: () => import('./form.js'), server: () => import('./form.server.js') }
export const examplesStreaming = { view: () => import('./streaming.js'), server: () => import('./streaming.server.js') }
export const examplesTime = { view: () => import('./time.js'), server: () => import('./time.server.js') }
