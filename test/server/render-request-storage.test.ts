import t from 'tap'
import { AsyncLocalStorage } from '../../src/server/render-request-storage.js'

t.test('a store is there for the synchronous call to run(), and gone after it', async (t) => {
  const storage = new AsyncLocalStorage<string>()
  t.equal(storage.getStore(), undefined, 'nothing before')
  const result = storage.run('request', (a: number, b: number) => `${storage.getStore()} ${a + b}`, 1, 2)
  t.equal(result, 'request 3', 'the callback gets the arguments and sees the store; run() returns its result')
  t.equal(storage.getStore(), undefined, 'nothing after')
})

t.test('a nested run() shadows the outer store and gives it back', async (t) => {
  const storage = new AsyncLocalStorage<string>()
  const seen = storage.run('outer', () => [storage.getStore(), storage.run('inner', () => storage.getStore()), storage.getStore()])
  t.same(seen, ['outer', 'inner', 'outer'])
})

t.test('a callback that throws still gives the store back', async (t) => {
  const storage = new AsyncLocalStorage<string>()
  t.throws(() => storage.run('request', () => { throw new Error('render failed') }), { message: 'render failed' })
  t.equal(storage.getStore(), undefined)
})

t.test('an async continuation does not see the store: that is the async hooks it avoids', async (t) => {
  const storage = new AsyncLocalStorage<string>()
  const later = storage.run('request', async () => {
    await null
    return storage.getStore()
  })
  t.equal(await later, undefined)
})

t.test('each storage keeps its own store', async (t) => {
  const first = new AsyncLocalStorage<string>()
  const second = new AsyncLocalStorage<string>()
  t.equal(first.run('one', () => second.getStore()), undefined)
})
