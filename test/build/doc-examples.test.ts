import t from 'tap'
import { assertBlocksAreFixtures } from '../helpers/doc-blocks.js'

// docs/streaming.md's page with deferred data runs as test/fixtures/streaming/ (test/server/streaming.test.ts and
// test/browser/streaming.test.ts run it).
t.test('the streaming guide\'s example is the code the tests run', async (t) => {
  await assertBlocksAreFixtures(t, 'docs/streaming.md', {
    'src/ui/weather-page.ts': 'test/fixtures/streaming/page.ts',
    'src/ui/pages/weather.tsx': 'test/fixtures/streaming/view.tsx',
    'src/server/pages/weather.ts': 'test/fixtures/streaming/loader.ts'
  })
})
