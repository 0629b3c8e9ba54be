import { hydrateDocument } from './hydrate.js'

await hydrateDocument()
