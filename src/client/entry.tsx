import { hydrateDocument } from './hydrate.js'

hydrateDocument()
