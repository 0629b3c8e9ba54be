import { hydrateDocument } from './hydrate.js'

// Not awaited at the top level: chunks loaded later take React from this
// module (build.mjs folds the shell into one file), and while it awaited
// the page's chunk, that chunk would wait for it, and hydration never come.
void hydrateDocument()
