import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { THEME_COOKIE_NAME } from '../../src/shared/theme.js'
import { LAYOUT_SHIFT_RECORDER, type Shift } from '../helpers/layout-shifts.js'
import { listen } from '../helpers/server.js'
import { splitDocumentProxy } from '../helpers/split-document.js'
import { hydrated, launchWithScheme, openThemePage, type Scheme } from '../helpers/theme.js'

/**
 * Nothing moves while a page loads and hydrates (cumulative layout shift 0),
 * on an OS in either scheme, with and without a saved theme, on a desktop and
 * a phone. One saved theme arrives as Lighthouse sends it, in a Cookie header
 * the page cannot read: the server renders the saved preference, the page
 * then learns "system", and the switch's label changes after the first paint.
 */

/** Layout shifts so far, once hydration has committed and a few frames have been drawn after it. */
async function shiftsAfterHydration (page: Page): Promise<Shift[]> {
  await hydrated(page)
  await page.evaluate(() => new Promise<void>((resolve) => {
    let frames = 0
    const next = () => (++frames === 5 ? resolve() : requestAnimationFrame(next))
    requestAnimationFrame(next)
  }))
  return page.evaluate(() => window.__layoutShifts ?? [])
}

const VIEWPORTS = {
  desktop: { viewport: { width: 1350, height: 940 } },
  phone: { viewport: { width: 412, height: 823 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1.75 }
}

type Saved = 'none' | 'light' | 'dark' | 'dark, unreadable by the page'
const SAVED: Saved[] = ['none', 'light', 'dark', 'dark, unreadable by the page']

for (const scheme of ['light', 'dark'] as const satisfies readonly Scheme[]) {
  t.test(`no layout shift on an OS in ${scheme} mode`, async (t) => {
    const browser = await launchWithScheme(t, scheme)
    const { url } = await listen(t)
    for (const [device, options] of Object.entries(VIEWPORTS)) {
      for (const saved of SAVED) {
        await t.test(`${device}, saved theme: ${saved}`, async (t) => {
          const headerOnly = saved === 'dark, unreadable by the page'
          const { page, context, problems } = await openThemePage(browser, { ...options, ...(headerOnly ? { extraHTTPHeaders: { cookie: `${THEME_COOKIE_NAME}=dark` } } : {}) })
          t.teardown(() => context.close())
          if (saved === 'light' || saved === 'dark') await context.addCookies([{ name: THEME_COOKIE_NAME, value: saved, url }])
          await context.addInitScript({ content: LAYOUT_SHIFT_RECORDER })
          await page.goto(`${url}/`)
          const shifts = await shiftsAfterHydration(page)
          t.same(shifts, [], `no layout-shift entry across load and hydration (${JSON.stringify(shifts)})`)
          if (headerOnly) t.equal(await page.getByRole('button', { name: 'Theme: System', exact: true }).count(), 1, 'the label did change after the first paint')
          t.same(problems, [])
        })
      }
    }
  })
}

interface FirstFrame { labels: string | null, paragraphs: number }

/** What the first frame drew, read as it is drawn: the switch's labels, and how many paragraphs of the page. */
const FIRST_FRAME_RECORDER = `requestAnimationFrame(() => {
  window.__firstFrame = { labels: document.querySelector('.theme-switch-labels')?.textContent ?? null, paragraphs: document.querySelectorAll('main p').length }
})`

t.test('a document that arrives in two pieces', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  const visit = async (t: Test, cutAfter: string): Promise<{ shifts: Shift[], first: FirstFrame | undefined }> => {
    const proxied = await splitDocumentProxy(t, url, { after: cutAfter, pauseMs: 500 })
    const { page, context, problems } = await openThemePage(browser, VIEWPORTS.desktop)
    t.teardown(() => context.close())
    await context.addInitScript({ content: LAYOUT_SHIFT_RECORDER })
    await context.addInitScript({ content: FIRST_FRAME_RECORDER })
    await page.goto(`${proxied}/`)
    const shifts = await shiftsAfterHydration(page)
    t.same(problems, [])
    return { shifts, first: await page.evaluate(() => (window as Window & { __firstFrame?: FirstFrame }).__firstFrame) }
  }

  await t.test('cut inside the header: nothing is painted until the header is whole', async (t) => {
    // After the switch's icon, before its labels: painted then, the switch would grow.
    const { shifts, first } = await visit(t, 'class="theme-switch-labels">')
    t.same(shifts, [], `no layout-shift entry (${JSON.stringify(shifts)})`)
    t.equal(first?.labels, 'Theme: SystemTheme: LightTheme: Dark', 'the first frame has the switch with its labels')
  })

  await t.test('cut after the header: the header is painted without waiting for the rest', async (t) => {
    const { shifts, first } = await visit(t, '<h1>')
    t.same(shifts, [], `no layout-shift entry (${JSON.stringify(shifts)})`)
    t.equal(first?.labels, 'Theme: SystemTheme: LightTheme: Dark', 'the first frame has the header')
    t.equal(first?.paragraphs, 0, 'the first frame came before the rest of the page')
  })
})

t.test('the recorder sees a shift when there is one', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  const { page, context } = await openThemePage(browser, VIEWPORTS.desktop)
  t.teardown(() => context.close())
  await context.addInitScript({ content: LAYOUT_SHIFT_RECORDER })
  await page.goto(`${url}/`)
  await shiftsAfterHydration(page)
  await page.evaluate(() => document.querySelector('main')?.prepend(Object.assign(document.createElement('p'), { textContent: 'A late banner' })))
  const shifts = await shiftsAfterHydration(page)
  t.ok(shifts.length > 0 && shifts.every((shift) => shift.value > 0), `a late banner is a layout shift (${JSON.stringify(shifts)})`)
})
