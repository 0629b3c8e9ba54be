import type { Page } from 'playwright-core'
import t from 'tap'
import { launchBrowser, visit } from '../helpers/browser.js'
import { fill, listenContact, SEND } from '../helpers/contact-form.js'
import { CONTACT_PATH } from '../fixtures/contact-form/contact.js'
import { VALID_ANSWERS } from '../fixtures/contact-form/contact.server.js'

/**
 * Without JavaScript nothing closes the server's flash toast, and on a phone it once lay over the header for
 * as long as the page was open: the site name and the theme switch could not be clicked. The toast after the
 * contact form's 303, as a visitor with scripts off gets it, must cover nothing that can be clicked, at any width.
 */

const SENT = 'Thanks, Ada Lovelace. We will reply soon.'
/** The phone the defect was seen on; then widths around where the toast stops fitting beside the header's controls. */
const PHONE = { width: 375, height: 700 }
const WIDTHS = [320, 375, 600, 719, 720, 767, 768, 1024, 1440]
const INTERACTIVE = 'a[href], button, input, select, textarea, label, summary, [tabindex]'

/** What a click at the centre of `selector` lands on: `itself` (or something inside it), else what covers it. */
async function hitAtCentre (page: Page, selector: string): Promise<string> {
  return page.evaluate((selector) => {
    const target = document.querySelector(selector)
    if (!target) return `no ${selector} on the page`
    const box = target.getBoundingClientRect()
    const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2)
    if (hit && target.contains(hit)) return 'itself'
    return hit ? `<${hit.localName} class="${hit.className}">` : 'nothing'
  }, selector)
}

/** The visible interactive elements whose box meets the flash toast's, as the start of their markup. */
async function coveredByToast (page: Page): Promise<string[]> {
  return page.evaluate((interactive) => {
    const toast = document.querySelector('.flash-toast')?.getBoundingClientRect()
    if (!toast) return ['no .flash-toast on the page']
    return [...document.querySelectorAll(interactive)].filter((element) => {
      if (!element.checkVisibility({ visibilityProperty: true })) return false
      const box = element.getBoundingClientRect()
      return box.width > 0 && box.height > 0 &&
        box.left < toast.right && box.right > toast.left && box.top < toast.bottom && box.bottom > toast.top
    }).map((element) => element.outerHTML.slice(0, 80))
  }, INTERACTIVE)
}

t.test('without JavaScript, the flash toast after a form is sent covers neither the site name nor the theme switch, at any width', async (t) => {
  const browser = await launchBrowser(t)
  // No wait before a form counts as a person's, so the test need not sleep.
  const { urls: [url] } = await listenContact(t, [{ minDelayMs: 0 }])
  // A person's Chrome: isbot counts "HeadlessChrome" as a bot, and bots are served differently.
  const userAgent = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${browser.version()} Safari/537.36`
  const { page, problems, context } = await visit(browser, url!, { path: CONTACT_PATH, javaScriptEnabled: false, viewport: PHONE, userAgent })
  t.teardown(() => context.close())

  await fill(page, VALID_ANSWERS)
  const [response] = await Promise.all([page.waitForNavigation(), page.click(SEND)])
  t.equal(response?.status(), 200, 'back on the page after the 303')
  t.equal(await page.locator('[data-sonner-toast]').count(), 0, 'no JavaScript toast: the server\'s box is the only one')
  // The cross-document view transition draws over the whole page until it ends: hit testing meets <html> till then.
  await page.evaluate(() => Promise.all(document.getAnimations().map((animation) => animation.finished)))

  const toast = page.locator('.flash-toast')
  t.ok(await toast.isVisible(), 'the flash toast is shown')
  t.match(await toast.textContent(), SENT)
  const box = (await toast.boundingBox())!
  t.ok(box.y >= 0 && box.y + box.height <= PHONE.height, `seen on arrival, without scrolling (y ${box.y} to ${box.y + box.height})`)

  t.equal(await hitAtCentre(page, '.theme-switch button'), 'itself', 'a click on the theme switch reaches it')
  t.equal(await hitAtCentre(page, '.site-name'), 'itself', 'a click on the site name reaches it')
  t.same(await coveredByToast(page), [], 'nothing that can be clicked lies under the toast')

  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: PHONE.height })
    t.ok(await toast.isVisible(), `${width} px: the toast is shown`)
    t.equal(await hitAtCentre(page, '.theme-switch button'), 'itself', `${width} px: the theme switch is not covered`)
    t.equal(await hitAtCentre(page, '.site-name'), 'itself', `${width} px: the site name is not covered`)
    t.same(await coveredByToast(page), [], `${width} px: nothing that can be clicked lies under the toast`)
  }

  t.same(problems, [], 'no CSP violation or other console error')
})
