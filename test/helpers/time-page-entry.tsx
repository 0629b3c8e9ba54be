import { hydrateDocument } from '../../src/client/hydrate.js'
import { PAGES_WITH_MEETING } from './time-page.js'

// The client entry of a build that knows the meeting page too (see buildTestClient).
await hydrateDocument(PAGES_WITH_MEETING)
