import t from 'tap'
import { ERRORS, SEND_AGAIN } from '../../src/server/errors.js'
import { failedToLoad, launchBrowser } from '../helpers/browser.js'
import { controlValues, fieldMessages, fill, listenContact, openContact, send, SEND, summaryText } from '../helpers/contact-form.js'
import { CONTACT_PATH } from '../fixtures/contact-form/contact.js'
import { VALID_ANSWERS, WRONG_ANSWERS, WRONG_MESSAGES } from '../fixtures/contact-form/contact.server.js'

/**
 * The contact form of the test fixture, driven in Chromium as a person does,
 * with JavaScript and without: the same messages by the same fields, what was
 * typed kept, the password never filled in by the server, the summary in
 * focus, and the honeypot, the clock and other sites refused.
 */

const EVIL_PAGE = 'http://evil.example/'
const PATIENT_MS = 1500

t.test('the contact form, with JavaScript and without', async (t) => {
  const browser = await launchBrowser(t)
  // No wait before a form counts as a person's, so the test need not sleep; the second app waits so long every post
  // is too fast; the third's clock is moved by hand, past a form's hour.
  const clock = { now: Date.now() }
  // The fourth keeps a short minimum, for a form corrected and sent again at once.
  const { urls: [url, hastyUrl, clockedUrl, patientUrl], received } = await listenContact(t, [{ minDelayMs: 0 }, { minDelayMs: 60_000 }, { minDelayMs: 0, now: () => clock.now }, { minDelayMs: PATIENT_MS }])

  for (const javaScript of [true, false]) {
    const mode = javaScript ? 'with JavaScript' : 'without JavaScript'

    await t.test(`${mode}: sent, then back on the page with a toast`, async (t) => {
      received.length = 0
      const { page, problems } = await openContact(t, browser, url!, javaScript)
      await fill(page, VALID_ANSWERS)
      const [response] = await Promise.all([
        page.waitForResponse((response) => response.request().isNavigationRequest() && new URL(response.url()).pathname === CONTACT_PATH && response.request().method() === 'GET'),
        page.click(SEND)
      ])
      t.equal(response.status(), 200, 'the page after the redirect')
      const toast = javaScript ? page.locator('[data-sonner-toast]') : page.locator('.flash-toast')
      await toast.waitFor({ state: 'visible' })
      t.match(await toast.textContent(), 'Message sent')
      t.match(await toast.textContent(), 'Thanks, Ada Lovelace. We will reply soon.')
      t.same(received.map((contact) => contact.email), ['ada@example.com'], 'the handler ran once')
      t.same(await controlValues(page), { name: '', email: '', age: '', topic: '', message: '', password: '', terms: false }, 'an empty form for the next message')
      t.same(problems, [], 'no console error or warning')
    })

    await t.test(`${mode}: each wrong answer gets its message by its field, and what was typed stays`, async (t) => {
      received.length = 0
      const { page, problems } = await openContact(t, browser, url!, javaScript)
      await fill(page, WRONG_ANSWERS)
      const status = await send(page, javaScript)
      t.match(await summaryText(page), 'There is a problem')
      t.same(await fieldMessages(page), WRONG_MESSAGES, 'the same messages either way')
      const kept = { name: '', email: 'ada at example', age: '12', topic: '', message: 'Hi <b>', terms: false }
      if (javaScript) {
        t.ok(await page.evaluate(() => window.__samePage), 'without a reload')
        t.same(await controlValues(page), { ...kept, password: WRONG_ANSWERS.password }, 'everything as typed: nothing left the browser to come back')
      } else {
        t.equal(status, 422)
        t.same(await controlValues(page), { ...kept, password: '' }, 'as typed, but the password is never filled in again')
      }
      t.same(received, [], 'the handler did not run')

      t.ok(await page.evaluate(() => document.activeElement?.classList.contains('form-summary')), 'the summary has focus')
      await page.keyboard.press('Tab')
      t.equal(await page.evaluate(() => document.activeElement?.textContent), WRONG_MESSAGES.name, 'one Tab reaches the first message, a link')
      await page.keyboard.press('Enter')
      t.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'name', 'which takes focus to the first wrong field')

      if (!javaScript) {
        await page.reload()
        t.same(await fieldMessages(page), WRONG_MESSAGES, 'a reload posts again and shows the same')
        t.same(await controlValues(page), { ...kept, password: '' }, 'nothing lost on reload')
      }

      await fill(page, { ...WRONG_ANSWERS, ...VALID_ANSWERS, terms: 'on' })
      await page.click(SEND)
      await page.locator(javaScript ? '[data-sonner-toast]' : '.flash-toast').waitFor({ state: 'visible' })
      t.equal(received.length, 1, 'corrected, it is sent')
      t.same(problems.filter((problem) => problem !== failedToLoad(422, 'Unprocessable Entity')), [], 'no console error or warning but Chromium\'s line for the 422')
    })

    await t.test(`${mode}: refused for a wrong answer, corrected and sent again at once, it is not too fast`, async (t) => {
      received.length = 0
      const { page } = await openContact(t, browser, patientUrl!, javaScript)
      const opened = Date.now()
      await fill(page, WRONG_ANSWERS)
      await page.waitForTimeout(Math.max(0, opened + PATIENT_MS + 200 - Date.now()))
      await send(page, javaScript)
      t.match(await summaryText(page), 'There is a problem')
      t.same(await fieldMessages(page), WRONG_MESSAGES, 'refused for its answers, not its speed')
      await fill(page, { ...WRONG_ANSWERS, ...VALID_ANSWERS, terms: 'on' })
      await page.click(SEND)
      await page.locator(javaScript ? '[data-sonner-toast]' : '.flash-toast').waitFor({ state: 'visible' })
      t.same(received.map((contact) => contact.email), ['ada@example.com'], 'sent, once')
    })

    await t.test(`${mode}: a filled-in honeypot is refused`, async (t) => {
      received.length = 0
      const { page } = await openContact(t, browser, url!, javaScript)
      await fill(page, VALID_ANSWERS)
      // What a bot does: it fills every box, the one hidden from people too.
      await page.evaluate(() => { document.querySelector<HTMLInputElement>('[name="name__confirm"]')!.value = 'Buy now' })
      const status = await send(page, javaScript)
      if (!javaScript) t.equal(status, 400)
      t.match(await summaryText(page), 'a field meant to stay empty was filled in')
      t.same(received, [], 'the handler did not run')
    })

    await t.test(`${mode}: sent too fast, refused with words a person understands and nothing lost`, async (t) => {
      received.length = 0
      const { page } = await openContact(t, browser, hastyUrl!, javaScript)
      await fill(page, VALID_ANSWERS)
      const status = await send(page, javaScript)
      if (!javaScript) t.equal(status, 400)
      t.match(await summaryText(page), ERRORS.TOO_FAST.message)
      t.equal((await controlValues(page)).message, VALID_ANSWERS.message, 'the message is still there')
      t.same(received, [])
    })

    await t.test(`${mode}: left open past its hour, the form says to send it again, and sending it again works`, async (t) => {
      received.length = 0
      const { page } = await openContact(t, browser, clockedUrl!, javaScript)
      await fill(page, VALID_ANSWERS)
      clock.now += 2 * 60 * 60 * 1000
      const status = await send(page, javaScript)
      if (!javaScript) t.equal(status, 400)
      t.match(await summaryText(page), SEND_AGAIN.EXPIRED)
      t.equal((await controlValues(page)).message, VALID_ANSWERS.message, 'the message is still there')
      // The password is never sent back: a person types it again.
      await page.fill('[name="password"]', VALID_ANSWERS.password!)
      await page.click(SEND)
      // The toast on the next page, loaded whole: closing the context while that page still loaded (after the form's
      // Clear-Site-Data answer) could leave Chromium's close hanging.
      await page.locator(javaScript ? '[data-sonner-toast]' : '.flash-toast').waitFor({ state: 'visible' })
      t.same(received.map((contact) => contact.email), ['ada@example.com'], 'sent, once')
    })

    await t.test(`${mode}: a post from another site is refused (403)`, async (t) => {
      received.length = 0
      const { page, context } = await openContact(t, browser, url!, javaScript)
      await context.route(EVIL_PAGE, (route) => route.fulfill({
        contentType: 'text/html',
        body: `<!DOCTYPE html><title>Win a prize</title><form method="post" action="${url}${CONTACT_PATH}">` +
          Object.entries(VALID_ANSWERS).map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`).join('') +
          '<button>Claim</button></form>'
      }))
      await page.goto(EVIL_PAGE)
      const [response] = await Promise.all([page.waitForNavigation(), page.click('button')])
      t.equal(response?.status(), 403)
      t.match(await page.locator('main').textContent(), ERRORS.CROSS_SITE.message)
      t.same(received, [], 'the handler did not run')
    })
  }
})
