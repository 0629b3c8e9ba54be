import t from 'tap'
import { SILENCE_SKIPPED_TRANSITIONS } from '../../src/shared/skipped-transitions.js'

t.test('only the rejection of a skipped view transition is kept quiet; every other one still reaches the console', async (t) => {
  const listeners: Array<(event: { reason: unknown, preventDefault: () => void }) => void> = []
  const addEventListener = (type: string, listener: (typeof listeners)[number]) => { if (type === 'unhandledrejection') listeners.push(listener) }
  // eslint-disable-next-line no-new-func -- the script is a string by design: it is inlined in the page.
  new Function('addEventListener', SILENCE_SKIPPED_TRANSITIONS)(addEventListener)
  const silenced = (reason: unknown) => {
    let prevented = false
    for (const listener of listeners) listener({ reason, preventDefault: () => { prevented = true } })
    return prevented
  }
  t.equal(silenced(new DOMException('Transition was skipped', 'AbortError')), true, 'Chromium\'s skipped transition')
  t.equal(silenced(new DOMException('The user aborted a request.', 'AbortError')), false, 'an aborted fetch')
  t.equal(silenced(new DOMException('Transition was skipped', 'InvalidStateError')), false, 'another kind of error about a transition')
  t.equal(silenced(new Error('Transition was skipped')), false, 'not a DOMException')
  t.equal(silenced(undefined), false, 'a rejection without a reason')
})
