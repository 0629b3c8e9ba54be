import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import type { Theme } from '../../src/shared/theme.js'
import { assertAccessible } from '../helpers/axe.js'
import { launchBrowser } from '../helpers/browser.js'
import { fill, listenContact, openContact, openContactUnhydrated, send, SEND, summaryText } from '../helpers/contact-form.js'
import { CONTACT_PATH } from '../fixtures/contact-form/contact.js'
import { VALID_ANSWERS, WRONG_ANSWERS } from '../fixtures/contact-form/contact.server.js'

/**
 * The form kit as assistive technology and system settings meet it: axe on
 * the contact form showing its messages, in both themes, with JavaScript and
 * without; where a link of the summary leads; the submit button while a form
 * is on its way; forced colours and reduced motion.
 */

t.test('the form kit, for everyone', async (t) => {
  const browser = await launchBrowser(t)
  const { urls: [url], received } = await listenContact(t, [{ minDelayMs: 0 }])

  for (const theme of ['light', 'dark'] as const satisfies readonly Theme[]) {
    await t.test(`no accessibility violations on the form with its messages, ${theme} theme, with JavaScript`, async (t) => {
      const { page } = await openContact(t, browser, url!, true, theme)
      await fill(page, WRONG_ANSWERS)
      await page.click(SEND)
      await summaryText(page)
      t.equal(await page.evaluate(() => document.documentElement.className), theme, `painted ${theme}`)
      await assertAccessible(t, page)
    })

    // axe is a script of its own: the app's bundle is what is kept out.
    await t.test(`no accessibility violations on the form with its messages, ${theme} theme, without JavaScript`, async (t) => {
      const { page } = await openContactUnhydrated(t, browser, url!, theme)
      await fill(page, WRONG_ANSWERS)
      const [response] = await Promise.all([page.waitForNavigation(), page.click(SEND)])
      t.equal(response?.status(), 422, 'the page the server answered')
      t.equal(await page.evaluate(() => document.documentElement.dataset.hydrated), undefined, 'not hydrated')
      await summaryText(page)
      t.equal(await page.evaluate(() => document.documentElement.className), theme, `painted ${theme}`)
      await assertAccessible(t, page)
    })
  }

  for (const javaScript of [true, false]) {
    // The browser scrolls a link's target, the control, to the top of the window: what says which field it is and
    // what is wrong sits above it.
    await t.test(`a link of the summary shows its field whole, label and message above the control, ${javaScript ? 'with' : 'without'} JavaScript`, async (t) => {
      const { page } = javaScript ? await openContact(t, browser, url!, true) : await openContactUnhydrated(t, browser, url!, 'light')
      await page.setViewportSize({ width: 800, height: 480 })
      await fill(page, WRONG_ANSWERS)
      await send(page, javaScript)
      await summaryText(page)
      const links = page.locator('.form-summary a')
      const count = await links.count()
      t.ok(count > 1, 'a link for each wrong field')
      for (let index = 0; index < count; index++) {
        await links.nth(index).click()
        const shown = await page.evaluate(() => {
          const control = document.activeElement as HTMLInputElement
          return { name: control.name, top: Math.round(control.closest('.field')!.getBoundingClientRect().top) }
        })
        t.ok(shown.top >= 0, `${shown.name}: the field starts in the window (${shown.top}px)`)
      }
    })
  }

  await t.test('with JavaScript, the button says the form is on its way, and it is sent once', async (t) => {
    received.length = 0
    const { page, context } = await openContact(t, browser, url!, true)
    await fill(page, VALID_ANSWERS)
    let release!: () => void
    const held = new Promise<void>((resolve) => { release = resolve })
    await context.route(`${url}${CONTACT_PATH}`, async (route) => {
      if (route.request().method() === 'POST') await held
      await route.continue()
    })
    await page.click(SEND)
    const button = page.locator(SEND)
    await page.waitForSelector(`${SEND}[aria-disabled="true"]`)
    t.equal(await button.textContent(), 'Sending…')
    t.equal(await page.locator('.form [role="status"]').textContent(), 'Sending the form…', 'said to screen readers too')
    // Forced: Playwright waits for a button marked aria-disabled to be enabled; a person can still press it.
    await button.click({ force: true })
    release()
    await page.locator('[data-sonner-toast]').waitFor({ state: 'visible' })
    t.equal(received.length, 1, 'a second press while sending sent nothing')
  })

  await t.test('in forced colours a wrong field is marked by more than colour', async (t) => {
    const { page } = await openContact(t, browser, url!, true)
    await page.emulateMedia({ forcedColors: 'active' })
    await fill(page, WRONG_ANSWERS)
    await page.click(SEND)
    await summaryText(page)
    const marks = await page.evaluate(() => {
      const field = getComputedStyle(document.querySelector('.field[data-invalid]')!)
      const input = getComputedStyle(document.querySelector('input[aria-invalid="true"]')!)
      return { bar: field.borderLeftWidth, border: input.borderTopWidth, summary: getComputedStyle(document.querySelector('.form-summary')!).borderTopWidth }
    })
    t.same(marks, { bar: '4px', border: '2px', summary: '3px' }, 'a bar, a thicker border and a framed summary, which forced colours keep')
  })

  /** The spinner of a submission held on its way for good, with `media` emulated. */
  async function pendingSpinner (t: Test, media: Parameters<Page['emulateMedia']>[0]) {
    const { page, context } = await openContact(t, browser, url!, true)
    await page.emulateMedia(media)
    await fill(page, VALID_ANSWERS)
    await context.route(`${url}${CONTACT_PATH}`, async (route) => {
      if (route.request().method() !== 'POST') await route.continue()
    })
    await page.click(SEND)
    const spinner = page.locator('.form-spinner')
    await spinner.waitFor({ state: 'visible' })
    return spinner.evaluate((element) => ({ turning: element.getAnimations().length > 0, style: getComputedStyle(element).borderTopStyle }))
  }

  await t.test('the pending mark turns, but holds still for reduced motion and in forced colours', async (t) => {
    t.same(await pendingSpinner(t, { reducedMotion: 'no-preference', forcedColors: 'none' }), { turning: true, style: 'solid' }, 'a turning ring by default')
    t.same(await pendingSpinner(t, { reducedMotion: 'reduce' }), { turning: false, style: 'dotted' }, 'a still, dotted ring for reduced motion')
    // A transparent quarter would be painted over in forced colours: a turning full ring shows nothing.
    t.same(await pendingSpinner(t, { forcedColors: 'active' }), { turning: false, style: 'dotted' }, 'and in forced colours')
  })
})
