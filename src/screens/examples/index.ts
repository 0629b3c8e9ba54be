/**
 * The example screens, as registry lines: src/screens/index.ts spreads them into SCREENS. Removing the examples is
 * deleting this folder, test/screens/examples/, and that line with its import (docs/examples.md); the home page links
 * to them only while the registry lists them.
 */
export const EXAMPLES = {
  examples: { view: () => import('./examples.js') },
  'examples-form': { view: () => import('./form.js'), server: () => import('./form.server.js') },
  'examples-streaming': { view: () => import('./streaming.js'), server: () => import('./streaming.server.js') },
  'examples-time': { view: () => import('./time.js'), server: () => import('./time.server.js') }
}
