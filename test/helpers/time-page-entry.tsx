import { hydrateDocument } from '../../src/client/hydrate.js'
import * as SCREENS from '../../src/screens/index.js'
import { MEETING_SCREENS } from './time-page.js'

// The client entry of a build that knows the meeting screen too (see buildTestClient).
await hydrateDocument({ ...SCREENS, ...MEETING_SCREENS })
