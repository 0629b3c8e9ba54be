import t from 'tap'
import { DEFERRED_FAILED, DeferredError, deferredScript, outcomeOf, publicMessage, recordOutcome, splitDeferred, type DeferredEntry, type DeferredOutcome } from '../../src/shared/deferred.js'

t.test('a loader\'s top-level promises are deferred; the rest is the awaited data', async (t) => {
  const forecast = Promise.resolve('sunny')
  const { awaited, deferred } = splitDeferred({ city: 'Lisbon', forecast, nested: { later: 'kept as it is' } })
  t.same(awaited, { city: 'Lisbon', nested: { later: 'kept as it is' } })
  t.same([...deferred.keys()], ['forecast'])
  t.equal(deferred.get('forecast'), forecast, 'the loader\'s own promise')

  const plain = { city: 'Lisbon' }
  t.equal(splitDeferred(plain).awaited, plain, 'data without a promise is left as it is')
  for (const data of [null, 'text', 42, [Promise.resolve(1)]]) {
    t.same(splitDeferred(data), { awaited: data, deferred: new Map() }, `${JSON.stringify(data)}: nothing deferred`)
  }
})

t.test('a part\'s script cannot close itself, open a comment or break a line, and reads back as sent', async (t) => {
  const hostile = '</script><script>alert(1)</script><!-- \u2028\u2029 & >'
  const script = deferredScript('forecast', { ok: true, value: { summary: hostile } })
  t.notMatch(script, /<\/script|<!--|[\u2028\u2029]/i)
  const pushed: DeferredEntry[] = []
  // The script runs as the browser would: pushing onto the page's global.
  new Function('self', script)({ __DEFERRED__: { push: (entry: DeferredEntry) => pushed.push(entry) } })
  t.same(pushed, [['forecast', { ok: true, value: { summary: hostile } }]])
  t.throws(() => deferredScript('forecast', { ok: true, value: JSON.parse('{"__proto__": {"polluted": true}}') }), /__proto__/)
})

t.test('a failure shows its own words only when written for the visitor', async (t) => {
  t.equal(publicMessage(new DeferredError('The forecast service is not answering.')), 'The forecast service is not answering.')
  t.equal(publicMessage(new Error('connect ECONNREFUSED 10.0.0.7:5432')), DEFERRED_FAILED)
  t.equal(publicMessage('a string'), DEFERRED_FAILED)
})

t.test('a part\'s outcome is the one recorded for it, else derived once', async (t) => {
  const failing = Promise.reject(new DeferredError('Not today.'))
  t.same(await outcomeOf(failing), { ok: false, message: 'Not today.' })
  t.equal(outcomeOf(failing), outcomeOf(failing), 'the same promise each render, so use() does not loop')
  t.same(await outcomeOf(Promise.resolve(3)), { ok: true, value: 3 })

  const part = new Promise<number>(() => {})
  const recorded: Promise<DeferredOutcome> = Promise.resolve({ ok: false, message: 'Timed out.' })
  recordOutcome(part, recorded)
  t.equal(outcomeOf(part), recorded)
})
