import t from 'tap'
import { assertBlocksAreFixtures } from '../helpers/doc-blocks.js'

// The README's form example is a page, a route and a test at the paths a product would give them; each runs here
// as a fixture at a test path (test/examples/newsletter.test.ts runs the test).
t.test('the README\'s form example is the code the tests run', async (t) => {
  await assertBlocksAreFixtures(t, 'README.md', {
    'src/ui/newsletter-page.ts': 'test/fixtures/newsletter/page.ts',
    'src/ui/pages/newsletter.tsx': 'test/fixtures/newsletter/view.tsx',
    'src/server/forms/newsletter.ts': 'test/fixtures/newsletter/form.ts',
    'test/server/newsletter.test.ts': 'test/examples/newsletter.test.ts'
  })
})
