import { existsSync } from 'node:fs'
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type ConsoleMessage, type Page } from 'playwright-core'
import type { Test } from 'tap'
import { THEME_COOKIE_NAME, type Theme } from '../../src/shared/theme.js'

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'
]

export interface LaunchOptions {
  /** Switches added to the usual ones, e.g. `--force-dark-mode` for an OS in dark mode. */
  args?: string[]
  /** Playwright defaults to drop, e.g. `--disable-back-forward-cache` to test the back/forward cache. */
  ignoreDefaultArgs?: string[]
}

/**
 * Launches Debian's Chromium for the test and closes it at teardown. Without
 * it the test fails, here as in CI: `npm test` is the whole suite, and a run
 * that skipped what a person sees would pass without having looked.
 */
export async function launchBrowser (t: Test, options: LaunchOptions = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: the browser tests need it (apt-get install -y chromium, or set CHROMIUM_PATH)`)
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...ARGS, ...(options.args ?? [])],
    ...(options.ignoreDefaultArgs ? { ignoreDefaultArgs: options.ignoreDefaultArgs } : {})
  })
  t.teardown(() => browser.close())
  return browser
}

export interface WatchedPage {
  context: BrowserContext
  page: Page
  /** Console errors and warnings, uncaught errors and CSP violations seen so far. */
  problems: string[]
  /** Every console message, for tests that look for a specific line. */
  messages: ConsoleMessage[]
}

/** Opens a page in a fresh context and records everything that would show a bug in the console. */
export async function openPage (browser: Browser, options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const context = await browser.newContext(options)
  const page = await context.newPage()
  const problems: string[] = []
  const messages: ConsoleMessage[] = []
  page.on('console', (message) => {
    messages.push(message)
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console.${message.type()}: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`))
  return { context, page, problems, messages }
}

/** The problem Chromium's console records for a response with an error status, which a test may expect. */
export const failedToLoad = (status: number, reason: string) => `console.error: Failed to load resource: the server responded with a status of ${status} (${reason})`

/** Waits for hydration; when it never comes, says what the console saw (a missing bundle, an error). */
export async function waitForHydration ({ page, problems }: Pick<WatchedPage, 'page' | 'problems'>): Promise<void> {
  try {
    await page.waitForFunction(() => document.documentElement.dataset.hydrated === 'true', undefined, { timeout: 10_000 })
  } catch (error) {
    throw new Error(`the page did not hydrate; the console saw: ${problems.join(' | ') || 'nothing'}`, { cause: error })
  }
}

/** Opens a page in a fresh context, as openPage does (or a variant of it that records more). */
export type PageOpener<W extends WatchedPage> = (browser: Browser, options: BrowserContextOptions) => Promise<W>

export interface VisitOptions<W extends WatchedPage = WatchedPage> extends BrowserContextOptions {
  /** A preference the visitor saved before (the theme cookie); none by default. */
  savedTheme?: Theme
  /** Where the visit starts; `/` by default. */
  path?: string
  /** openPage by default; e.g. openThemePage to record the theme from the first frame. */
  open?: PageOpener<W>
}

/**
 * The start of most browser tests: a fresh page as a visitor who saved
 * `savedTheme` (if any), at `path` of the app, hydrated. Without JavaScript
 * there is no hydration to wait for: the page is returned once loaded.
 */
export async function visit<W extends WatchedPage> (browser: Browser, appUrl: string, options: VisitOptions<W> & { open: PageOpener<W> }): Promise<W>
export async function visit (browser: Browser, appUrl: string, options?: VisitOptions): Promise<WatchedPage>
export async function visit (browser: Browser, appUrl: string, options: VisitOptions = {}): Promise<WatchedPage> {
  const { savedTheme, path = '/', open = openPage, ...contextOptions } = options
  const watched = await open(browser, contextOptions)
  if (savedTheme) await watched.context.addCookies([{ name: THEME_COOKIE_NAME, value: savedTheme, url: appUrl }])
  await watched.page.goto(`${appUrl}${path}`)
  if (contextOptions.javaScriptEnabled !== false) await waitForHydration(watched)
  return watched
}
