import { hydrateDocument } from './hydrate.js'

// Not awaited: a page chunk awaited here would wait for this module, whose React it imports (first-javascript.md).
void hydrateDocument()
