import t, { type Test } from 'tap'
import { LOST_PART_GRACE_MS, takeDeferredParts } from '../../src/client/deferred-store.js'
import { DEFERRED_GLOBAL, outcomeOf, type DeferredEntry, type Tracked } from '../../src/shared/deferred.js'

const TIME_LIMIT_MS = 20

/** The browser's window as the store needs it, with the entries the document's scripts pushed before hydration. */
function windowWith (t: Test, arrived: DeferredEntry[]) {
  const window: Record<string, unknown> = { [DEFERRED_GLOBAL]: arrived }
  Object.assign(globalThis, { window })
  t.teardown(() => { Reflect.deleteProperty(globalThis, 'window') })
  return window as { [DEFERRED_GLOBAL]: { push: (entry: DeferredEntry) => unknown } }
}

t.test('a part that arrived before hydration is settled at once, so hydration renders it without suspending', async (t) => {
  windowWith(t, [['forecast', { ok: true, value: { summary: 'Sunny' } }]])
  const parts = takeDeferredParts(['forecast'], TIME_LIMIT_MS)
  const outcome = outcomeOf(parts.get('forecast')!) as Tracked<unknown>
  t.equal(outcome.status, 'fulfilled', 'marked settled before any turn passes: React reads it where it would suspend')
  t.same(outcome.value, { ok: true, value: { summary: 'Sunny' } })
  t.same(await parts.get('forecast'), { summary: 'Sunny' })
})

t.test('a part that arrives after hydration settles it then; a failure rejects with its message; unknown keys are ignored', async (t) => {
  const window = windowWith(t, [])
  const parts = takeDeferredParts(['forecast', 'alerts'], TIME_LIMIT_MS)
  t.equal((outcomeOf(parts.get('forecast')!) as Tracked<unknown>).status, undefined, 'nothing yet')
  window[DEFERRED_GLOBAL].push(['elsewhere', { ok: true, value: 1 }])
  window[DEFERRED_GLOBAL].push(['forecast', { ok: true, value: 'Rain' }])
  window[DEFERRED_GLOBAL].push(['alerts', { ok: false, message: 'This part of the page could not be loaded.' }])
  t.equal(await parts.get('forecast'), 'Rain')
  await t.rejects(parts.get('alerts')!, new Error('This part of the page could not be loaded.'))
  t.same(await outcomeOf(parts.get('alerts')!), { ok: false, message: 'This part of the page could not be loaded.' }, 'Await shows the message written for the visitor')
  t.same([...parts.keys()], ['forecast', 'alerts'], 'a part for each key the page data named, and no other')
})

t.test('a part still missing after the server\'s time limit, the document still loading, is lost: the visitor is told once', async (t) => {
  t.teardown(() => { Reflect.deleteProperty(globalThis, 'document') })
  const told = async (readyState: string, arrives: boolean) => {
    const window = windowWith(t, [])
    Object.assign(globalThis, { document: { readyState } })
    let times = 0
    takeDeferredParts(['forecast'], TIME_LIMIT_MS, () => { times++ })
    if (arrives) window[DEFERRED_GLOBAL].push(['forecast', { ok: true, value: 'Rain' }])
    await new Promise((resolve) => setTimeout(resolve, TIME_LIMIT_MS + LOST_PART_GRACE_MS + 50))
    return times
  }
  t.equal(await told('loading', false), 1, 'told while the document is still loading')
  t.equal(await told('complete', false), 0, 'not once it has loaded: the stream ended, and the part shows its failure')
  t.equal(await told('loading', true), 0, 'nor when the part came')
})
