import t from 'tap'
import { assertBlocksAreFixtures } from '../helpers/doc-blocks.js'

// docs/streaming.md's screen with deferred data runs as test/fixtures/streaming/ (test/server/streaming.test.ts and
// test/browser/streaming.test.ts run it) and its test as test/examples/weather.test.ts.
t.test('the streaming guide\'s example is the code the tests run', async (t) => {
  await assertBlocksAreFixtures(t, 'docs/streaming.md', {
    'src/screens/weather.tsx': 'test/fixtures/streaming/weather.tsx',
    'src/screens/weather.server.ts': 'test/fixtures/streaming/weather.server.ts',
    'test/server/weather.test.ts': 'test/examples/weather.test.ts'
  })
})
