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

t.test('a load still on its way at the time limit fails its callers, and later ones at once, until it settles', async (t) => {
  let loads = 0
  const fetches: Array<{ arrive: (module: string) => void, fail: (error: Error) => void }> = []
  const load = loadOnce(() => {
    loads++
    return new Promise<string>((resolve, reject) => { fetches.push({ arrive: resolve, fail: reject }) })
  }, 50)
  const startedAt = Date.now()
  await t.rejects(load(), /did not arrive within 0.05 s/, 'the caller is told the code did not come, and takes its fallback')
  t.ok(Date.now() - startedAt >= 45, 'at the time limit, not before')
  const askedAt = Date.now()
  await t.rejects(load(), /did not arrive/, 'a caller while the fetch is still on its way')
  t.ok(Date.now() - askedAt < 40, 'fails at once: it would only wait on the same fetch again')
  t.equal(loads, 1)

  fetches[0]?.fail(new Error('offline'))
  await Promise.resolve()
  const next = load()
  t.equal(loads, 2, 'once that fetch failed, the next caller starts another')
  fetches[1]?.arrive('code')
  t.equal(await next, 'code')
})

t.test('code that arrives after the time limit is kept for the callers after it', async (t) => {
  let arrive: (module: string) => void = () => {}
  let loads = 0
  const load = loadOnce(() => { loads++; return new Promise<string>((resolve) => { arrive = resolve }) }, 20)
  await t.rejects(load(), /did not arrive/)
  arrive('late code')
  await Promise.resolve()
  t.equal(await load(), 'late code', 'no new fetch: the late one is used')
  t.equal(loads, 1)
})

t.test('a load that settles in time clears its timer: nothing fires after it', async (t) => {
  const cleared: unknown[] = []
  const realClear = globalThis.clearTimeout
  globalThis.clearTimeout = ((timer: Parameters<typeof clearTimeout>[0]) => { cleared.push(timer); realClear(timer) }) as typeof clearTimeout
  t.teardown(() => { globalThis.clearTimeout = realClear })
  const load = loadOnce(async () => 'code', 60_000)
  t.equal(await load(), 'code')
  t.equal(cleared.length, 1, 'its timer was cleared')
})
