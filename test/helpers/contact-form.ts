import type { Browser, BrowserContextOptions, Page } from 'playwright-core'
import type { Test } from 'tap'
import type { HoneypotOptions } from '../../src/server/security/honeypot.js'
import { THEME_COOKIE_NAME, type Theme } from '../../src/shared/theme.js'
import { CONTACT_PATH } from '../fixtures/contact-form/contact.js'
import { WRONG_MESSAGES, type Contact } from '../fixtures/contact-form/contact.server.js'
import { contactScreens } from '../fixtures/contact-form/screens.js'
import { openPage, visit, type WatchedPage } from './browser.js'
import { listen } from './server.js'
import { buildTestClient } from './test-client.js'

/** The test fixture's contact form (test/fixtures/contact-form/) in Chromium: serving it, filling it in, reading it. */

const FIELDS = Object.keys(WRONG_MESSAGES)
/** The form's own button; the theme switch in the header is a form too. */
export const SEND = '.form-submit'
const ENTRY = 'test/fixtures/contact-form/client.tsx'

declare global {
  interface Window {
    /** Set before a submission: still there after it when the page was not reloaded. */
    __samePage?: boolean
  }
}

/**
 * Apps serving the contact page with a browser entry that hydrates it, one
 * per honeypot setting, sharing one build; `received` collects what the
 * handler was given.
 */
export async function listenContact (t: Test, honeypots: Array<Omit<HoneypotOptions, 'secret'>>) {
  const distDir = await buildTestClient(t, ENTRY)
  const received: Contact[] = []
  const app = { distDir, screens: contactScreens({ received }) }
  const urls: string[] = []
  for (const honeypot of honeypots) urls.push((await listen(t, { ...app, honeypot })).url)
  return { urls, received }
}

/** The contact page, hydrated with JavaScript, loaded without; closed at the end of `t`. */
export async function openContact (t: Test, browser: Browser, url: string, javaScript: boolean, theme?: Theme): Promise<WatchedPage> {
  const watched = await visit(browser, url, { path: CONTACT_PATH, javaScriptEnabled: javaScript, ...(theme ? { savedTheme: theme } : {}) })
  t.teardown(() => watched.context.close())
  return watched
}

/**
 * The contact page as a visitor without JavaScript gets it, for tools that
 * need scripts of their own in the page (axe): the app's bundle is refused,
 * so nothing hydrates and the form posts as plain HTML.
 */
export async function openContactUnhydrated (t: Test, browser: Browser, url: string, theme: Theme, options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const watched = await openPage(browser, options)
  t.teardown(() => watched.context.close())
  await watched.context.addCookies([{ name: THEME_COOKIE_NAME, value: theme, url }])
  await watched.context.route('**/assets/*.js', (route) => route.abort())
  await watched.page.goto(`${url}${CONTACT_PATH}`)
  return watched
}
/** Fills in the form as a person does; a box is ticked when its answer is `on`. */
export async function fill (page: Page, answers: Record<string, string>) {
  for (const name of ['name', 'email', 'age', 'message', 'password']) await page.fill(`[name="${name}"]`, answers[name] ?? '')
  await page.selectOption('[name="topic"]', answers.topic ?? '')
  await page.setChecked('[name="terms"]', answers.terms === 'on')
}

/** Presses Send; without JavaScript, waits for the page the server answers with and returns its status. */
export async function send (page: Page, javaScript: boolean): Promise<number | undefined> {
  if (!javaScript) {
    const [response] = await Promise.all([page.waitForNavigation(), page.click(SEND)])
    return response?.status()
  }
  await page.evaluate(() => { window.__samePage = true })
  await page.click(SEND)
  return undefined
}

/** The messages shown by the fields (the contact form's unless named), by name, read from the page as a person sees it. */
export async function fieldMessages (page: Page, fields: readonly string[] = FIELDS): Promise<Record<string, string>> {
  return page.evaluate((names) => Object.fromEntries(names.flatMap((name) => {
    const control = document.querySelector(`[name="${name}"]`)
    const ids = control?.getAttribute('aria-describedby')?.split(' ') ?? []
    const message = ids.map((id) => document.getElementById(id)).find((element) => element?.classList.contains('field-error'))
    return message && control?.getAttribute('aria-invalid') === 'true' ? [[name, message.textContent!.replace(/^Error: /, '')]] : []
  })), fields)
}

/** What the form's controls (the contact form's unless named) hold now. */
export async function controlValues (page: Page, fields: readonly string[] = FIELDS): Promise<Record<string, string | boolean>> {
  return page.evaluate((names) => Object.fromEntries(names.map((name) => {
    const control = document.querySelector<HTMLInputElement>(`[name="${name}"]`)!
    return [name, control.type === 'checkbox' ? control.checked : control.value]
  })), fields)
}

/** The summary above the form, once it shows. */
export async function summaryText (page: Page): Promise<string> {
  const summary = page.locator('.form-summary')
  await summary.waitFor({ state: 'visible' })
  return (await summary.textContent()) ?? ''
}
