import t from 'tap'
import { whenIdle } from '../../src/ui/when-idle.js'

t.test('a task waits for the browser to be idle, with a bound, and can be called off', async (t) => {
  const asked: Array<{ timeout?: number }> = []
  const cancelled: number[] = []
  const idle: Array<() => void> = []
  Object.assign(globalThis, {
    window: {
      requestIdleCallback: (task: () => void, options: { timeout?: number }) => { idle.push(task); asked.push(options); return idle.length },
      cancelIdleCallback: (handle: number) => { cancelled.push(handle) }
    }
  })
  t.teardown(() => { Reflect.deleteProperty(globalThis, 'window') })
  let ran = 0
  const cancel = whenIdle(() => { ran++ }, 2000)
  t.same(asked, [{ timeout: 2000 }], 'at most 2 s on a page that is never idle')
  t.equal(ran, 0, 'not before the browser is idle')
  idle[0]?.()
  t.equal(ran, 1)
  cancel()
  t.same(cancelled, [1])
})

t.test('without requestIdleCallback (Safari) the task runs on the next turn', async (t) => {
  Object.assign(globalThis, { window: {} })
  t.teardown(() => { Reflect.deleteProperty(globalThis, 'window') })
  let ran = 0
  whenIdle(() => { ran++ }, 2000)
  t.equal(ran, 0)
  await new Promise((resolve) => setTimeout(resolve, 5))
  t.equal(ran, 1)
  const cancel = whenIdle(() => { ran++ }, 2000)
  cancel()
  await new Promise((resolve) => setTimeout(resolve, 5))
  t.equal(ran, 1, 'a cancelled task never runs')
})
