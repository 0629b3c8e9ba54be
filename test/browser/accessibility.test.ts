import t, { type Test } from 'tap'
import type { Theme } from '../../src/shared/theme.js'
import { THEME_SWITCH_PATH } from '../../src/shared/theme.js'
import { assertAccessible } from '../helpers/axe.js'
import { failedToLoad, launchBrowser, visit, waitForHydration, type WatchedPage } from '../helpers/browser.js'
import { listen } from '../helpers/server.js'

/**
 * axe-core in Chromium on every document the shell renders by itself (home,
 * 404, 400) and on a page showing a toast, in both themes, as visitors see
 * them (hydrated); and the shell's own documents again in forced colours
 * (high contrast), where the system picks every colour. Every rule axe runs by default (WCAG 2.0,
 * 2.1 and 2.2 A and AA, colour contrast included, and axe's best practices)
 * plus the WCAG A and AA rules it leaves off as experimental. Zero
 * violations, and no contrast check left undecided ("incomplete"): an
 * undecided check would let a contrast regression through unseen.
 */

/** The 400 document, as a browser reaches it: a form posted with a theme the server refuses. */
async function postBadThemeSwitch (t: Test, watched: WatchedPage): Promise<void> {
  const { page } = watched
  const [response] = await Promise.all([
    page.waitForResponse((response) => response.request().isNavigationRequest() && new URL(response.url()).pathname === THEME_SWITCH_PATH),
    page.evaluate((action) => {
      const form = Object.assign(document.createElement('form'), { method: 'post', action })
      form.append(Object.assign(document.createElement('input'), { name: 'theme', value: 'sepia' }))
      document.body.append(form)
      form.submit()
    }, THEME_SWITCH_PATH)
  ])
  t.equal(response.status(), 400)
  await waitForHydration(watched)
}

const FLASH_TOAST = { type: 'success', title: 'Saved', description: 'Your note was saved.' } as const

/** A toast in view, held there as a reader holds it (pointer over it: sonner pauses its timer), its transitions over. */
async function holdToast (t: Test, { page }: WatchedPage): Promise<void> {
  const toast = page.locator('[data-sonner-toast]', { hasText: FLASH_TOAST.description })
  await toast.hover()
  await page.waitForFunction(() => {
    const element = document.querySelector('[data-sonner-toast]')
    return element instanceof HTMLElement && element.dataset.mounted === 'true' && element.dataset.expanded === 'true' &&
      element.getAnimations({ subtree: true }).length === 0
  })
  t.ok(await toast.isVisible(), 'the toast is in view')
}

interface AuditedDocument {
  name: string
  /** Where the visit starts. */
  path: string
  /** Its <h1>: proof that the document audited is the one meant. */
  heading: string
  /** What brings the page from `path` to the state audited. */
  then?: (t: Test, watched: WatchedPage) => Promise<void>
  /** What Chromium logs for a document that is not a 200. */
  consoleError?: string
  /** Audited in forced colours too. */
  forcedColors?: boolean
}

const DOCUMENTS: AuditedDocument[] = [
  { name: 'the home page', path: '/', heading: 'Agent Stack', forcedColors: true },
  { name: 'the 404 page', path: '/no-such-page', heading: 'Page not found', consoleError: failedToLoad(404, 'Not Found'), forcedColors: true },
  { name: 'the 400 page', path: '/', heading: 'That request could not be processed', then: postBadThemeSwitch, consoleError: failedToLoad(400, 'Bad Request'), forcedColors: true },
  { name: 'a page showing a toast', path: '/test/flash', heading: 'Agent Stack', then: holdToast }
]

t.test('no accessibility violations on the shell\'s documents, in either theme', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listen(t, {
    routes (app) {
      // As a form action does: a flash toast, then a redirect to the page that shows it.
      app.get('/test/flash', async (_request, reply) => {
        app.flashToasts.set(reply, FLASH_TOAST)
        return reply.redirect('/', 303)
      })
    }
  })

  const variants = DOCUMENTS.flatMap((audited) => [false, ...(audited.forcedColors ? [true] : [])].flatMap((forcedColors) =>
    (['light', 'dark'] as const satisfies readonly Theme[]).map((theme) => ({ audited, theme, forcedColors }))))
  for (const { audited, theme, forcedColors } of variants) {
    await t.test(`${audited.name}, ${theme} theme${forcedColors ? ', forced colours' : ''}`, async (t) => {
      const watched = await visit(browser, url, { path: audited.path, savedTheme: theme, forcedColors: forcedColors ? 'active' : 'none' })
      const { page, problems, context } = watched
      t.teardown(() => context.close())
      await audited.then?.(t, watched)
      // Proof that what is audited is what was meant: the document, its theme and the colour mode.
      t.equal(await page.locator('h1').textContent(), audited.heading)
      t.equal(await page.evaluate(() => document.documentElement.className), theme, `painted ${theme}`)
      t.equal(await page.evaluate(() => matchMedia('(forced-colors: active)').matches), forcedColors, `forced colours ${forcedColors ? 'on' : 'off'}`)

      await assertAccessible(t, page)
      t.same(problems.filter((problem) => problem !== audited.consoleError), [], 'no console error or warning')
    })
  }
})
