import { hydrateDocument } from './hydrate.js'

// Not awaited at the top level: later chunks import React from this module, so a page chunk awaited here
// would wait for it and hydration never come (docs/decisions/first-javascript.md).
void hydrateDocument()
