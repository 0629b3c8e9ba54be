import t from 'tap'
import { TIME_ZONE_MARKER } from '../../src/shared/client-hints.js'
import { HINT_REFERRER_KEY, HINT_RELOADS_KEY, hintCheckScript, type HintCheckInput } from '../../src/shared/hint-check-script.js'

/**
 * Runs the check script against a small fake of the browser APIs it touches,
 * so every branch of its reload decision is exercised without a browser
 * (the Chromium tests cover the real thing end to end).
 */
interface Browser {
  /** Cookies the browser holds: what `document.cookie` reads. */
  cookies?: Record<string, string>
  cookieEnabled?: boolean
  /** The browser accepts cookie writes but keeps none (a stripping privacy mode). */
  dropsCookieWrites?: boolean
  dark?: boolean
  timeZone?: string
  session?: Record<string, string>
  sessionStorageThrows?: boolean
  referrer?: string
  protocol?: string
  /** What the server rendered. */
  className?: string
  metas?: number
  /** Whether the body holds something rendered in the hinted time zone (LocalTime); it does by default. */
  rendersTime?: boolean
}

function run (input: Partial<HintCheckInput>, browser: Browser = {}) {
  const jar = new Map(Object.entries(browser.cookies ?? {}))
  const written: string[] = []
  const attributes = new Map<string, string>()
  const root = {
    className: browser.className ?? 'light',
    style: {} as Record<string, string>,
    setAttribute: (name: string, value: string) => { attributes.set(name, value) }
  }
  const metas = Array.from({ length: browser.metas ?? 1 }, () => {
    const meta = { content: 'server', setAttribute: (_name: string, value: string) => { meta.content = value } }
    return meta
  })
  const document = {
    documentElement: root,
    referrer: browser.referrer ?? '',
    get cookie () { return [...jar].map(([name, value]) => `${name}=${value}`).join('; ') },
    set cookie (line: string) {
      written.push(line)
      if (browser.dropsCookieWrites) return
      const [pair = ''] = line.split('; ')
      const index = pair.indexOf('=')
      jar.set(pair.slice(0, index), pair.slice(index + 1))
    },
    querySelectorAll: (selector: string) => {
      if (selector !== 'meta[name="theme-color"]') throw new Error(`unexpected selector ${selector}`)
      return metas
    },
    // Until the body is parsed, only the <head> is there.
    querySelector: (selector: string) => {
      if (selector !== `[${TIME_ZONE_MARKER}]`) throw new Error(`unexpected selector ${selector}`)
      return parsed && (browser.rendersTime ?? true) ? {} : null
    },
    addEventListener: (type: string, listener: () => void) => {
      if (type !== 'DOMContentLoaded') throw new Error(`unexpected event ${type}`)
      loaded.push(listener)
    }
  }
  let parsed = false
  const loaded: Array<() => void> = []
  const observers: Array<{ callback: () => void, observing: boolean }> = []
  class MutationObserver {
    readonly #entry: { callback: () => void, observing: boolean }
    constructor (callback: () => void) {
      this.#entry = { callback, observing: false }
      observers.push(this.#entry)
    }

    observe (target: unknown, options: MutationObserverInit) {
      if (target !== root || !options.childList || !options.subtree) throw new Error('the observer must watch the whole document')
      this.#entry.observing = true
    }

    disconnect () { this.#entry.observing = false }
  }
  const session = new Map(Object.entries(browser.session ?? {}))
  const sessionStorage = {
    getItem: (key: string) => {
      if (browser.sessionStorageThrows) throw new Error('SecurityError')
      return session.get(key) ?? null
    },
    setItem: (key: string, value: string) => { session.set(key, value) },
    removeItem: (key: string) => { session.delete(key) }
  }
  let reloads = 0
  const location = { protocol: browser.protocol ?? 'http:', reload: () => { reloads++ } }
  const navigator = { cookieEnabled: browser.cookieEnabled ?? true }
  const matchMedia = (query: string) => {
    if (query !== '(prefers-color-scheme: dark)') throw new Error(`unexpected query ${query}`)
    return { matches: browser.dark ?? false }
  }
  const Intl = { DateTimeFormat: () => ({ resolvedOptions: () => ({ timeZone: browser.timeZone ?? 'UTC' }) }) }
  const script = hintCheckScript({ preference: 'system', timeZone: 'UTC', reload: true, ...input })
  // eslint-disable-next-line no-new-func -- the script is a string by design: it is inlined in the page.
  new Function('document', 'navigator', 'matchMedia', 'Intl', 'sessionStorage', 'location', 'MutationObserver', script)(document, navigator, matchMedia, Intl, sessionStorage, location, MutationObserver)
  const reloadsInHead = reloads
  // The parser adds the body in two batches, then the document has loaded.
  for (const batch of [false, true]) {
    parsed = batch
    for (const observer of observers) if (observer.observing) observer.callback()
  }
  for (const listener of loaded) listener()
  return { root, attributes, metas, jar, written, session, reloads, reloadsInHead, referrer: document.referrer, observing: observers.some((observer) => observer.observing), watched: observers.length > 0 }
}

t.test('a system preference paints the live OS scheme before first paint', async (t) => {
  const dark = run({ preference: 'system' }, { dark: true, className: 'light', metas: 2 })
  t.equal(dark.root.className, 'dark')
  t.equal(dark.attributes.get('data-theme-source'), 'hint', 'no longer the fallback: the stylesheet follows the class')
  t.same(dark.metas.map((meta) => meta.content), ['server', 'server'], 'theme-color is left to React: it finds its metas by their content when hydrating')
  const light = run({ preference: 'system' }, { dark: false, className: 'dark' })
  t.equal(light.root.className, 'light')
})

t.test('a saved preference matching the page is left as rendered', async (t) => {
  const result = run({ preference: 'dark' }, { cookies: { en_theme: 'dark' }, dark: false, className: 'dark' })
  t.equal(result.root.className, 'dark')
  t.equal(result.attributes.size, 0, 'the root is not touched')
  t.same(result.metas.map((meta) => meta.content), ['server'])
})

t.test('the theme cookie beats a page rendered with an older preference (HTTP cache, another tab)', async (t) => {
  const light = run({ preference: 'dark' }, { cookies: { en_theme: 'light' }, dark: true, className: 'dark' })
  t.equal(light.root.className, 'light')
  t.equal(light.attributes.get('data-theme-source'), 'saved')
  t.same(light.metas.map((meta) => meta.content), ['server'], 'theme-color is left to React')
  const cleared = run({ preference: 'dark' }, { dark: false, className: 'dark' })
  t.equal(cleared.root.className, 'light', 'no cookie any more: system, so the OS scheme')
  t.equal(cleared.attributes.get('data-theme-source'), 'hint')
})

t.test('with cookies disabled the server’s preference stands and nothing is written or reloaded', async (t) => {
  const result = run({ preference: 'dark', timeZone: 'UTC' }, { cookieEnabled: false, dark: false, className: 'dark', timeZone: 'Europe/Paris' })
  t.equal(result.root.className, 'dark')
  t.same(result.written, [])
  t.equal(result.reloads, 0)
})

t.test('the hint cookies get the browser’s own values, for a year, site-wide', async (t) => {
  const result = run({ timeZone: 'UTC' }, { dark: true, timeZone: 'UTC' })
  t.same(result.written.sort(), [
    'CH-prefers-color-scheme=dark; Max-Age=31536000; Path=/; SameSite=Lax',
    'CH-time-zone=UTC; Max-Age=31536000; Path=/; SameSite=Lax'
  ])
  t.equal(result.reloads, 0, 'the page was rendered in the browser’s zone: no reload')
  const secure = run({}, { protocol: 'https:' })
  t.ok(secure.written.every((line) => line.endsWith('; Secure')), 'Secure over HTTPS')
})

t.test('unchanged hint cookies are not rewritten', async (t) => {
  const result = run({ timeZone: 'Europe/Paris' }, { cookies: { 'CH-prefers-color-scheme': 'dark', 'CH-time-zone': 'Europe%2FParis' }, dark: true, timeZone: 'Europe/Paris' })
  t.same(result.written, [])
  t.equal(result.reloads, 0)
})

t.test('a first visit from another time zone to a page showing a time reloads once, hidden, keeping the referrer', async (t) => {
  const first = run({ timeZone: 'UTC' }, { timeZone: 'Europe/Paris', referrer: 'https://search.example/?q=agent' })
  t.equal(first.reloadsInHead, 0, 'not before the parser meets the time')
  t.equal(first.reloads, 1)
  t.equal(first.observing, false, 'the observer stops once it has decided')
  t.equal(first.jar.get('CH-time-zone'), 'Europe%2FParis')
  t.equal(first.session.get(HINT_RELOADS_KEY), '1', 'the reload is counted')
  t.equal(first.session.get(HINT_REFERRER_KEY), 'https://search.example/?q=agent')
  t.equal(first.root.style.visibility, 'hidden', 'the page being replaced is not shown')

  // The reloaded page was rendered with the cookie: nothing more to do, and the referrer is back.
  const second = run({ timeZone: 'Europe/Paris' }, { cookies: Object.fromEntries(first.jar), session: Object.fromEntries(first.session), timeZone: 'Europe/Paris' })
  t.equal(second.reloads, 0)
  t.equal(second.session.has(HINT_RELOADS_KEY), false, 'the counter is reset')
  t.equal(second.referrer, 'https://search.example/?q=agent')
  t.equal(second.session.has(HINT_REFERRER_KEY), false)
})

t.test('a first visit from another time zone to a page showing no time: no reload, the cookie written', async (t) => {
  const result = run({ timeZone: 'UTC' }, { timeZone: 'Europe/Paris', rendersTime: false, referrer: 'https://search.example/' })
  t.equal(result.reloads, 0)
  t.equal(result.jar.get('CH-time-zone'), 'Europe%2FParis', 'the next page is rendered in the browser’s zone')
  t.equal(result.session.size, 0, 'nothing counted, nothing kept')
  t.equal(result.observing, false, 'the observer stops once the document has loaded')
  t.equal(result.referrer, 'https://search.example/')
})

t.test('a page in the browser’s zone is not watched at all', async (t) => {
  const result = run({ timeZone: 'Europe/Paris' }, { cookies: { 'CH-time-zone': 'Europe%2FParis' }, timeZone: 'Europe/Paris' })
  t.equal(result.reloads, 0)
  t.equal(result.watched, false)
})

t.test('no reload loop when the server never sees the cookie (stripped on the way)', async (t) => {
  const first = run({ timeZone: 'UTC' }, { timeZone: 'Asia/Tokyo' })
  t.equal(first.reloads, 1)
  // The server rendered UTC again, but the browser already holds the right cookie: no reason to reload.
  const second = run({ timeZone: 'UTC' }, { cookies: Object.fromEntries(first.jar), session: Object.fromEntries(first.session), timeZone: 'Asia/Tokyo' })
  t.equal(second.reloads, 0)
})

t.test('no reload when a cookie write does not stick (cookies blocked, private modes)', async (t) => {
  const result = run({ timeZone: 'UTC' }, { dropsCookieWrites: true, timeZone: 'Europe/Paris' })
  t.equal(result.reloads, 0)
  t.equal(result.session.has(HINT_RELOADS_KEY), false)
})

t.test('no reload once the counter is spent', async (t) => {
  const result = run({ timeZone: 'UTC' }, { session: { [HINT_RELOADS_KEY]: '1' }, timeZone: 'Europe/Paris' })
  t.equal(result.reloads, 0)
})

t.test('no reload without sessionStorage to count with, and no error escapes', async (t) => {
  const result = run({ preference: 'system', timeZone: 'UTC' }, { sessionStorageThrows: true, timeZone: 'Europe/Paris', dark: true })
  t.equal(result.reloads, 0)
  t.equal(result.root.className, 'dark', 'the theme was still applied')
})

t.test('bots are never reloaded, though their cookies are set', async (t) => {
  const result = run({ timeZone: 'UTC', reload: false }, { timeZone: 'Europe/Paris' })
  t.equal(result.reloads, 0)
  t.equal(result.jar.get('CH-time-zone'), 'Europe%2FParis')
})

t.test('a zone the server rejects (Etc/Unknown) reloads at most once, then never again', async (t) => {
  const first = run({ timeZone: 'UTC' }, { timeZone: 'Etc/Unknown' })
  t.equal(first.reloads, 1)
  // The server falls back to UTC for it; the cookie already holds the browser's value.
  const second = run({ timeZone: 'UTC' }, { cookies: Object.fromEntries(first.jar), session: Object.fromEntries(first.session), timeZone: 'Etc/Unknown' })
  t.equal(second.reloads, 0)
  const later = run({ timeZone: 'UTC' }, { cookies: Object.fromEntries(first.jar), timeZone: 'Etc/Unknown' })
  t.equal(later.reloads, 0, 'nor on later visits')
})

t.test('values from the server cannot end the script', async (t) => {
  const script = hintCheckScript({ preference: 'system', timeZone: '</script><script>alert(1)</script>\u2028', reload: true })
  t.notMatch(script, /<\/script/i)
  t.notMatch(script, /[\u2028\u2029]/)
  t.notMatch(script, /<!--/)
})

t.test('the script is the same text for the same input (server render and hydration agree)', async (t) => {
  const input: HintCheckInput = { preference: 'dark', timeZone: 'Europe/Paris', reload: true }
  t.equal(hintCheckScript(input), hintCheckScript({ ...input }))
})
