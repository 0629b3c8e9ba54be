import t from 'tap'
import { loadOnce } from '../../src/ui/load-once.js'

t.test('a module is loaded once, however many ask for it, and again after a failed load', async (t) => {
  let loads = 0
  let fail = true
  const load = loadOnce(async () => {
    loads++
    if (fail) throw new Error('offline')
    return { loaded: loads }
  })
  await t.rejects(load(), /offline/, 'a failed load reaches the caller')
  fail = false
  const [first, second] = await Promise.all([load(), load()])
  t.equal(first, second, 'callers at the same time share one load')
  t.same(first, { loaded: 2 }, 'loaded again after the failure')
  t.equal(await load(), first, 'and not again once it has loaded')
  t.equal(loads, 2)
})
