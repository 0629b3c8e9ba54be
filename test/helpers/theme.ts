import type { Browser, BrowserContextOptions, Page } from 'playwright-core'
import type { Test } from 'tap'
import { launchBrowser, openPage, type LaunchOptions, type WatchedPage } from './browser.js'

export type Scheme = 'light' | 'dark'

/** The page background of each theme, as getComputedStyle reports it (styles.css, THEME_COLORS). */
export const BACKGROUNDS: Record<Scheme, string> = { light: 'rgb(255, 255, 255)', dark: 'rgb(11, 17, 32)' }

/**
 * Chromium running on an OS in `scheme`. Set for the whole browser
 * (`--force-dark-mode`) rather than emulated per page: the
 * Sec-CH-Prefers-Color-Scheme header is decided by the browser, which
 * ignores page emulation and would say light.
 * Open pages with `colorScheme: null` so Playwright's default emulation
 * (light) does not override it (openThemePage does).
 */
export function launchWithScheme (t: Test, scheme: Scheme, options: LaunchOptions = {}): Promise<Browser> {
  return launchBrowser(t, { ...options, args: [...(options.args ?? []), ...(scheme === 'dark' ? ['--force-dark-mode'] : [])] })
}

export interface Frame {
  className: string
  source: string | null
  background: string
  colorScheme: string
  hydrated: boolean
}

export interface ThemeRecord {
  /** The root's theme at every animation frame, from the first one (before the first paint) until hydration has settled. */
  frames: Frame[]
  /** Set once the frames stop: five after hydration. */
  settled?: boolean
  violations: string[]
  /** CSS transitions that started, as `property on tag.class`. */
  transitions: string[]
  /** How this document was loaded: navigate, reload, back_forward. */
  navigation: string | undefined
  /** Set by `pageshow`: whether the page came from the back/forward cache. */
  persisted: boolean | null
  /** Frames sampled from the first one after a restore from the back/forward cache. */
  restored: Frame[]
}

declare global {
  interface Window {
    __theme?: ThemeRecord
  }
}

// A string, not a function: compiled test code may carry helpers the page does not have,
// and an init script must run from the first byte.
const RECORDER = `(() => {
  const record = { frames: [], violations: [], transitions: [], navigation: undefined, persisted: null, restored: [] }
  const frame = (root) => {
    const style = getComputedStyle(root)
    return { className: root.className, source: root.getAttribute('data-theme-source'), background: style.backgroundColor, colorScheme: style.colorScheme, hydrated: root.dataset.hydrated === 'true' }
  }
  window.__theme = record
  document.addEventListener('securitypolicyviolation', (event) => {
    record.violations.push(event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline') + ' (' + event.sample + ')')
  })
  document.addEventListener('transitionrun', (event) => {
    const target = event.target
    record.transitions.push(event.propertyName + ' on ' + target.tagName.toLowerCase() + '.' + String(target.className))
  }, true)
  window.addEventListener('pageshow', (event) => {
    record.persisted = event.persisted
    if (!event.persisted) return
    const restored = () => {
      record.restored.push(frame(document.documentElement))
      if (record.restored.length < 10) requestAnimationFrame(restored)
    }
    requestAnimationFrame(restored)
  })
  let settled = 0
  const sample = () => {
    const root = document.documentElement
    if (root) {
      if (record.navigation === undefined) record.navigation = performance.getEntriesByType('navigation')[0]?.type
      const sampled = frame(root)
      record.frames.push(sampled)
      if (sampled.hydrated) settled++
    }
    if (settled < 5 && record.frames.length < 1000) requestAnimationFrame(sample)
    else record.settled = true
  }
  requestAnimationFrame(sample)
})()`

/**
 * A page in a fresh context on the browser's own OS scheme (no emulation) in
 * UTC, recording its theme from the first frame. It introduces itself as a
 * desktop Chrome: isbot counts "HeadlessChrome" as a bot, and bots are served
 * differently (no client-hint reload, the whole document at once).
 */
export async function openThemePage (browser: Browser, options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const userAgent = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${browser.version()} Safari/537.36`
  const watched = await openPage(browser, { colorScheme: null, timezoneId: 'UTC', userAgent, ...options })
  await watched.context.addInitScript({ content: RECORDER })
  return watched
}

export async function themeRecord (page: Page): Promise<ThemeRecord> {
  // A page that has hydrated is sampled for a few frames more: read before those, a page that hydrated within its
  // first frame would show one.
  await page.waitForFunction(() => !window.__theme || window.__theme.settled || document.documentElement.dataset.hydrated !== 'true')
  const record = await page.evaluate(() => window.__theme)
  if (!record) throw new Error('the theme recorder did not run (JavaScript off?)')
  return record
}

/** The root's theme now: for pages without JavaScript, where nothing can change after the first paint. */
export function rootTheme (page: Page): Promise<Omit<Frame, 'hydrated'>> {
  return page.evaluate(() => {
    const root = document.documentElement
    const style = getComputedStyle(root)
    return { className: root.className, source: root.getAttribute('data-theme-source'), background: style.backgroundColor, colorScheme: style.colorScheme }
  })
}

/** Every <meta name="theme-color"> of the page, as `media content`. */
export function themeColorMetas (page: Page): Promise<string[]> {
  return page.locator('meta[name="theme-color"]').evaluateAll((metas) => metas.map((meta) => `${meta.getAttribute('media')} ${meta.getAttribute('content')}`))
}

export async function hydrated (page: Page): Promise<void> {
  await page.waitForFunction(() => document.documentElement.dataset.hydrated === 'true')
}

/**
 * Makes the page's Chromium behave like a browser without
 * Sec-CH-Prefers-Color-Scheme (Firefox, Safari): documents are fetched by
 * Playwright, with the browser's cookies, and handed over without
 * Accept-CH, so the browser never sends the hint.
 */
export async function withoutColorSchemeHeader (page: Page): Promise<void> {
  await page.route('**/*', async (route) => {
    if (route.request().resourceType() !== 'document') return route.continue()
    const response = await route.fetch()
    const headers = { ...response.headers() }
    delete headers['accept-ch']
    return route.fulfill({ response, headers })
  })
}

/** Counts the document requests of a page (a reload is a second one). */
export function countDocumentRequests (page: Page): () => number {
  let count = 0
  page.on('request', (request) => {
    if (request.resourceType() === 'document' && request.frame() === page.mainFrame()) count++
  })
  return () => count
}

/** The distinct values of a list, in order of first appearance. */
export function distinct<T> (values: T[]): T[] {
  return [...new Set(values)]
}
