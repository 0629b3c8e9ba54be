import t, { type Test } from 'tap'
import { isThemePreference, THEME_SWITCH_PATH, type ThemePreference } from '../../src/shared/theme.js'
import { openThemeChannel, saveTheme, ThemeSwitchError } from '../../src/ui/theme-sync.js'

const RULES = { switchPath: THEME_SWITCH_PATH, isThemePreference, timeLimitMs: 10_000 }

/** Replaces fetch for one test. */
function stubFetch (t: Test, answer: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>) {
  const original = globalThis.fetch
  globalThis.fetch = answer as typeof fetch
  t.teardown(() => { globalThis.fetch = original })
}

t.test('saving posts the choice as a form asking for JSON, and returns what the server confirmed', async (t) => {
  let sent: { url: string, init?: RequestInit } | null = null
  stubFetch(t, async (input, init) => {
    sent = { url: String(input), init }
    return Response.json({ theme: 'dark' })
  })
  t.equal(await saveTheme('dark', RULES), 'dark')
  t.equal(sent!.url, THEME_SWITCH_PATH)
  t.equal(sent!.init?.method, 'POST')
  t.equal(String(sent!.init?.body), 'theme=dark')
  t.match(sent!.init?.headers, { Accept: 'application/json' })
})

t.test('a failure says what happened in words a visitor understands', async (t) => {
  stubFetch(t, async () => { throw new TypeError('fetch failed') })
  await t.rejects(saveTheme('light', RULES), new ThemeSwitchError('The server could not be reached. Check your connection and try again.'))
})

t.test('a save the server never answers ends at the time limit, and says so', async (t) => {
  // As a network that swallows the request: nothing comes until the request is given up.
  stubFetch(t, (_input, init) => new Promise((_resolve, reject) => {
    init?.signal?.addEventListener('abort', () => reject(init.signal?.reason))
  }))
  let timer: NodeJS.Timeout | undefined
  const unanswered = new Promise<string>((resolve) => { timer = setTimeout(() => resolve('still waiting'), 1000) })
  const outcome = await Promise.race([saveTheme('light', { ...RULES, timeLimitMs: 50 }).catch((error: unknown) => error), unanswered])
  clearTimeout(timer)
  t.same(outcome, new ThemeSwitchError('The server did not answer in time. Check your connection and try again.'))
})

t.test('an answer that is not a saved theme is a failure with its status', async (t) => {
  stubFetch(t, async () => Response.json({ error: 'Busy' }, { status: 503 }))
  await t.rejects(saveTheme('light', RULES), /did not save it \(503\)/)
  stubFetch(t, async () => Response.json({ theme: 'dark' }, { status: 500 }))
  await t.rejects(saveTheme('dark', RULES), /did not save it \(500\)/, 'nor an error that happens to name a theme')
  stubFetch(t, async () => Response.json({ theme: 'purple' }))
  await t.rejects(saveTheme('light', RULES), /did not save it \(200\)/, 'nor a theme that does not exist')
})

t.test('the channel tells the other tabs, ignores anything that is not a theme, and closes', async (t) => {
  // The browser's window, as far as the channel needs it.
  const window = new EventTarget()
  Object.assign(globalThis, { window })
  t.teardown(() => { Reflect.deleteProperty(globalThis, 'window') })
  const heard: ThemePreference[] = []
  const listener = openThemeChannel((theme) => heard.push(theme), RULES)
  const sender = openThemeChannel(() => {}, RULES)
  sender.post('dark')
  const stray = new BroadcastChannel('agent-stack:theme')
  stray.postMessage({ theme: '<script>' })
  stray.postMessage('dark')
  stray.close()
  sender.post('light')
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.same(heard, ['dark', 'light'], 'the two themes, and nothing else')

  // Left for the back/forward cache: closed, so no message keeps the page out of it.
  window.dispatchEvent(new Event('pagehide'))
  sender.post('system')
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.same(heard, ['dark', 'light'], 'nothing heard while hidden')
  window.dispatchEvent(Object.assign(new Event('pageshow'), { persisted: true }))
  sender.post('system')
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.same(heard, ['dark', 'light', 'system'], 'heard again once shown')
  listener.close()
  sender.close()
})
