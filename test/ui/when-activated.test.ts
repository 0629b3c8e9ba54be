import t, { type Test } from 'tap'
import { whenActivated } from '../../src/ui/when-activated.js'

/** A document as Node has none: an EventTarget with the `prerendering` flag. */
function fakeDocument (t: Test, prerendering: boolean | undefined) {
  const document = Object.assign(new EventTarget(), { prerendering })
  Object.assign(globalThis, { document })
  t.teardown(() => { Reflect.deleteProperty(globalThis, 'document') })
  return document
}

t.test('on a page the visitor sees, the task runs at once', async (t) => {
  for (const prerendering of [false, undefined]) {
    fakeDocument(t, prerendering)
    let ran = 0
    whenActivated(() => { ran++ })
    t.equal(ran, 1, `prerendering: ${prerendering} (undefined where the browser does not prerender)`)
  }
})

t.test('on a prerendered page, the task waits until the page is shown, once', async (t) => {
  const document = fakeDocument(t, true)
  let ran = 0
  whenActivated(() => { ran++ })
  t.equal(ran, 0, 'not while prerendered')
  document.prerendering = false
  document.dispatchEvent(new Event('prerenderingchange'))
  t.equal(ran, 1, 'on prerenderingchange')
  document.dispatchEvent(new Event('prerenderingchange'))
  t.equal(ran, 1, 'and only once')
})

t.test('a task called off before the page is shown never runs (an effect cleaned up)', async (t) => {
  const document = fakeDocument(t, true)
  let ran = 0
  const cancel = whenActivated(() => { ran++ })
  cancel()
  document.dispatchEvent(new Event('prerenderingchange'))
  t.equal(ran, 0)
})
