import t from 'tap'
import { loadSonner, pendingToasts, setToasterListening, toast, whenSonnerLoaded } from '../../src/ui/toast.js'
import { showFlashToast } from '../../src/ui/toaster.js'

type Call = [string, ...unknown[]]

/** Stands in for sonner's toast function: records what it is asked to show. */
function fakeSonner () {
  const calls: Call[] = []
  const record = (name: string) => (...args: unknown[]) => { calls.push([name, ...args]); return 0 }
  const fake = Object.assign(record('toast'), { message: record('message'), success: record('success'), error: record('error'), dismiss: record('dismiss') })
  return { calls, fake: fake as unknown as Parameters<typeof setToasterListening>[0] & object }
}

t.test('toasts asked for before the Toaster listens wait, are shown in the meantime, and reach sonner in order', async (t) => {
  const seen: number[] = []
  const stop = pendingToasts.subscribe(() => seen.push(pendingToasts.read().length))
  t.teardown(stop)
  const first = toast.success('Saved', { description: 'Your note was saved.' })
  const second = toast.error('Could not send')
  t.same(pendingToasts.read(), [
    { id: first, type: 'success', title: 'Saved', description: 'Your note was saved.' },
    { id: second, type: 'error', description: 'Could not send' }
  ], 'both wait, for the box that stands in for sonner')
  toast.dismiss(second)
  t.same(pendingToasts.read().map((waiting) => waiting.id), [first], 'one dismissed before sonner came is no longer shown')

  const { calls, fake } = fakeSonner()
  setToasterListening(fake)
  t.same(calls, [
    ['success', 'Saved', { id: first, description: 'Your note was saved.' }],
    ['error', 'Could not send', { id: second }],
    ['dismiss', second]
  ], 'sonner gets every call, in order, with the ids the caller was given')
  t.same(pendingToasts.read(), [], 'and nothing waits any more')
  t.same(seen, [1, 2, 1, 0], 'listeners heard each change')

  toast.message('Now at once', { id: 'chosen' })
  t.same(calls.at(-1), ['message', 'Now at once', { id: 'chosen' }], 'once sonner listens, a toast goes straight to it')
  t.same(pendingToasts.read(), [], 'and not to the box that stood in for sonner, which would show it twice')
  setToasterListening(null)
})

t.test('a flash toast is shown once per page, whatever the remounts', async (t) => {
  const { calls, fake } = fakeSonner()
  setToasterListening(fake)
  t.teardown(() => setToasterListening(null))
  const flash = { id: 'flash-1', type: 'message' as const, description: 'Welcome back.' }
  t.equal(showFlashToast(flash), true)
  t.equal(showFlashToast(flash), false, 'a remount does not show it again')
  t.same(calls, [['message', 'Welcome back.', { id: 'flash-1' }]])
})

t.test('sonner loads once, and a listener learns of it whether it subscribed before or after', async (t) => {
  let early: unknown = null
  const unsubscribe = whenSonnerLoaded((sonner) => { early = sonner })
  const sonner = await loadSonner()
  t.equal(loadSonner(), loadSonner(), 'one load')
  t.equal(early, sonner, 'a listener from before is called')
  let late: unknown = null
  whenSonnerLoaded((loaded) => { late = loaded })()
  t.equal(late, sonner, 'a listener from after is called at once')
  unsubscribe()
  t.type(sonner.toast, 'function')
})

t.test('a tab remembers the newest 20 flash toasts it showed, across its pages', async (t) => {
  const { fake } = fakeSonner()
  setToasterListening(fake)
  const stored = new Map<string, string>()
  const sessionStorage = { getItem: (key: string) => stored.get(key) ?? null, setItem: (key: string, value: string) => { stored.set(key, value) } }
  Object.assign(globalThis, { window: { sessionStorage } })
  t.teardown(() => {
    setToasterListening(null)
    Reflect.deleteProperty(globalThis, 'window')
  })
  for (let n = 1; n <= 21; n++) showFlashToast({ id: `remembered-${n}`, type: 'message', description: `Toast ${n}` })
  const remembered = JSON.parse(stored.get('agent-stack:flash-toasts-shown') ?? '[]') as string[]
  t.same(remembered, Array.from({ length: 20 }, (_, index) => `remembered-${index + 2}`), 'the oldest forgotten first')
  stored.set('agent-stack:flash-toasts-shown', JSON.stringify(['from-another-page']))
  t.equal(showFlashToast({ id: 'from-another-page', type: 'message', description: 'Shown on the page before' }), false, 'one shown on another page of the tab is not shown again')
})
