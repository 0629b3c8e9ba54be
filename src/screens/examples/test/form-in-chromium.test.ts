import type { Page } from 'playwright-core'
import t from 'tap'
import { failedToLoad, launchBrowser, openPage, visit } from '../../../../test/helpers/browser.js'
import { controlValues, fieldMessages } from '../../../../test/helpers/contact-form.js'
import { listen } from '../../../../test/helpers/server.js'
import { CODE_TIME_LIMIT_MS } from '../../../ui/load-once.js'

/**
 * The sign-up example in Chromium, as a person uses it, with JavaScript and without: the same message by each wrong
 * field, what was typed kept (the password only where it never left the browser), then the welcome after the redirect.
 */

const FORM_PATH = '/examples/form'
const FIELDS = ['name', 'email', 'password', 'age', 'agree']
const SIGN_UP = '.form-submit'
const WRONG = { name: '', email: 'ada at example', password: 'hunter2', age: '3.5', agree: false }
const WRONG_MESSAGES = {
  name: 'Enter your name',
  email: 'Enter an email address, like name@example.com.',
  password: 'Use at least 8 characters for your password',
  age: 'Enter your age as a whole number of years',
  agree: 'Tick the box to agree to the terms'
}
const VALID = { name: 'Ada', email: 'ada@example.com', password: 'correct horse', age: '36', agree: true }
async function fill (page: Page, answers: Record<string, string | boolean>) {
  for (const [name, answer] of Object.entries(answers)) {
    if (typeof answer === 'boolean') await page.setChecked(`[name="${name}"]`, answer)
    else await page.fill(`[name="${name}"]`, answer)
  }
}

t.test('the sign-up example, with JavaScript and without', async (t) => {
  const browser = await launchBrowser(t)
  // No wait before a form counts as a person's, so the test need not sleep.
  const { url } = await listen(t, { honeypot: { minDelayMs: 0 } })

  for (const javaScript of [true, false]) {
    await t.test(javaScript ? 'with JavaScript' : 'without JavaScript', async (t) => {
      const { page, problems, context } = await visit(browser, url, { path: FORM_PATH, javaScriptEnabled: javaScript })
      t.teardown(() => context.close())

      await fill(page, WRONG)
      if (javaScript) {
        await page.evaluate(() => { window.__samePage = true })
        await page.click(SIGN_UP)
        await page.locator('.form-summary').waitFor()
        t.ok(await page.evaluate(() => window.__samePage), 'refused without a reload')
      } else {
        const [response] = await Promise.all([page.waitForNavigation(), page.click(SIGN_UP)])
        t.equal(response?.status(), 422)
      }
      t.same(await fieldMessages(page, FIELDS), WRONG_MESSAGES, 'a message by each wrong field')
      const typed = { ...WRONG, password: javaScript ? WRONG.password : '' }
      t.same(await controlValues(page, FIELDS), typed, javaScript ? 'everything as typed' : 'as typed, but the password is never sent back')

      await fill(page, VALID)
      const [response] = await Promise.all([
        page.waitForResponse((response) => response.request().isNavigationRequest() && new URL(response.url()).pathname === FORM_PATH && response.request().method() === 'GET'),
        page.click(SIGN_UP)
      ])
      t.equal(response.status(), 200, 'back on the page after the 303')
      const toast = page.locator(javaScript ? '[data-sonner-toast]' : '.flash-toast', { hasText: 'Welcome, Ada.' })
      await toast.waitFor({ state: 'visible' })
      t.same(await controlValues(page, FIELDS), { name: '', email: '', password: '', age: '', agree: false }, 'an empty form')
      t.same(problems.filter((problem) => problem !== failedToLoad(422, 'Unprocessable Entity')), [], 'no console error or warning')
    })
  }

  await t.test('with JavaScript, when the code that sends it in the background cannot load, the browser sends it itself', async (t) => {
    let refused = 0
    const { page, problems, context } = await visit(browser, url, {
      path: FORM_PATH,
      open: async (browser, options) => {
        const watched = await openPage(browser, options)
        await watched.context.route('**/assets/submit-*.js', (route) => { refused++; return route.abort() })
        return watched
      }
    })
    t.teardown(() => context.close())
    await fill(page, WRONG)
    const [response] = await Promise.all([page.waitForNavigation(), page.click(SIGN_UP)])
    t.ok(refused > 0, 'the page asked for the code that sends a form in the background')
    t.equal(response?.status(), 422, 'posted as a plain HTML form')
    t.same(await fieldMessages(page, FIELDS), WRONG_MESSAGES, 'a message by each wrong field')
    // Chromium skips the cross-document view transition into the refused page; its first script keeps that quiet.
    const expected = /net::ERR_FAILED|status of 422/
    t.same(problems.filter((problem) => !expected.test(problem)), [], 'nothing in the console but the refused chunk and the 422')
  })

  await t.test('with JavaScript, when that code never arrives, the browser sends the form itself at the time limit', async (t) => {
    const { page, problems, context } = await visit(browser, url, {
      path: FORM_PATH,
      open: async (browser, options) => {
        const watched = await openPage(browser, options)
        // Held for good: neither answered nor failed, as on a connection that stalled.
        await watched.context.route('**/assets/submit-*.js', () => {})
        return watched
      }
    })
    t.teardown(() => context.close())
    await fill(page, WRONG)
    const [response] = await Promise.all([page.waitForNavigation({ timeout: CODE_TIME_LIMIT_MS + 5000 }), page.click(SIGN_UP)])
    t.equal(response?.status(), 422, 'posted as a plain HTML form')
    t.same(await fieldMessages(page, FIELDS), WRONG_MESSAGES, 'a message by each wrong field')
    t.same(problems.filter((problem) => !/status of 422/.test(problem)), [], 'nothing in the console but the 422')
  })
})
