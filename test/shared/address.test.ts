import t from 'tap'
import { pathOf } from '../../src/shared/address.js'

t.test('an address\'s path is what comes before its query or its fragment', async (t) => {
  t.equal(pathOf('/notes/7'), '/notes/7', 'an address without either is its own path')
  t.equal(pathOf('/notes/7?tab=edit'), '/notes/7', 'the query goes')
  t.equal(pathOf('/notes/7#top'), '/notes/7', 'so does the fragment')
  t.equal(pathOf('/notes/7#top?x=1'), '/notes/7', 'whichever comes first')
  t.equal(pathOf('/a?next=/b#c'), '/a', 'an address inside the query is not read as a path')
  t.equal(pathOf('/?'), '/', 'an empty query leaves the root')
})
