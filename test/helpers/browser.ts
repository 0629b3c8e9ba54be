import { existsSync } from 'node:fs'
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type ConsoleMessage, type Page } from 'playwright-core'
import type { Test } from 'tap'

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'
]

/**
 * Launches Debian's Chromium for the test and closes it at teardown. Without
 * a browser the test fails in CI (a skipped browser test proves nothing) and
 * is skipped with a reason on a developer's machine.
 */
export interface LaunchOptions {
  /** Switches added to the usual ones, e.g. `--force-dark-mode` for an OS in dark mode. */
  args?: string[]
  /** Playwright defaults to drop, e.g. `--disable-back-forward-cache` to test the back/forward cache. */
  ignoreDefaultArgs?: string[]
}

export async function launchBrowser (t: Test, options: LaunchOptions = {}): Promise<Browser | null> {
  if (!existsSync(CHROMIUM_PATH)) {
    if (process.env.CI === 'true') {
      t.fail(`Chromium not found at ${CHROMIUM_PATH}: CI must install it (apt-get install -y chromium)`)
    } else {
      t.plan(0, `Chromium not found at ${CHROMIUM_PATH}; install it with apt-get install -y chromium`)
    }
    return null
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
