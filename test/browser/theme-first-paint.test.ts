import t from 'tap'
import {
  BACKGROUNDS,
  distinct,
  hydrated,
  launchWithScheme,
  openThemePage,
  rootTheme,
  themeRecord,
  withoutColorSchemeHeader,
  type Scheme
} from '../helpers/theme.js'
import { listen } from '../helpers/server.js'

/**
 * The theme of the very first paint, in every combination of saved
 * preference × OS scheme × JavaScript × whether the browser sends
 * Sec-CH-Prefers-Color-Scheme (Chromium does once a page of the site asked
 * for it with Accept-CH; Firefox and Safari never do, nor does anyone on a
 * first visit).
 * With JavaScript the root is sampled at every animation frame from the
 * first, which precedes the first paint, until hydration has settled: a
 * single wrong frame fails. Without JavaScript nothing can change after
 * parsing, so the state after load is the state of the first paint.
 */

const SAVED = ['none', 'light', 'dark', 'system'] as const

for (const scheme of ['light', 'dark'] as const satisfies readonly Scheme[]) {
  t.test(`on an OS in ${scheme} mode`, async (t) => {
    const browser = await launchWithScheme(t, scheme)
    const { url } = await listen(t)

    for (const saved of SAVED) {
      for (const javaScript of [true, false]) {
        for (const header of [true, false]) {
          const name = `saved ${saved}, JavaScript ${javaScript ? 'on' : 'off'}, ${header ? 'with' : 'without'} the Sec-CH header`
          await t.test(name, async (t) => {
            const { page, context, problems } = await openThemePage(browser, { javaScriptEnabled: javaScript })
            if (saved !== 'none') await context.addCookies([{ name: 'en_theme', value: saved, url }])
            if (!header) await withoutColorSchemeHeader(page)
            // A returning Chromium: the first page's Accept-CH makes it send the header from then on.
            else await page.goto(`${url}/`)
            await page.goto(`${url}/`)

            const chosen = saved === 'light' || saved === 'dark'
            const expected: Scheme = chosen ? saved : scheme
            if (javaScript) {
              await hydrated(page)
              const { frames, violations } = await themeRecord(page)
              t.ok(frames.length > 1, `sampled ${frames.length} frames`)
              t.same(distinct(frames.map((frame) => frame.background)), [BACKGROUNDS[expected]], `every frame painted ${expected}`)
              t.same(distinct(frames.map((frame) => frame.className)), [expected], `the class was ${expected} from the first frame`)
              t.same(distinct(frames.map((frame) => frame.colorScheme)), [expected], 'color-scheme follows')
              t.equal(frames.at(-1)?.source, chosen ? 'saved' : 'hint', 'and stays after hydration')
              t.same(violations, [], 'no CSP violation')
            } else {
              // Without the header and without a saved choice the server knows nothing: the class is
              // the fallback, marked so, and the stylesheet follows the OS scheme instead.
              const fallback = !chosen && !header
              const state = await rootTheme(page)
              t.equal(state.background, BACKGROUNDS[expected], `painted ${expected}`)
              t.equal(state.colorScheme, expected, 'color-scheme follows')
              t.equal(state.className, fallback ? 'light' : expected, fallback ? 'the fallback class' : `the class is ${expected}`)
              t.equal(state.source, fallback ? 'fallback' : chosen ? 'saved' : 'hint')
            }
            t.same(problems, [], 'no console error or warning (hydration, CSP)')
            await context.close()
          })
        }
      }
    }
  })
}

// The cookie is read in three places (the server, the check script, the page once hydrated), each decoding it.
t.test('a saved preference written percent-encoded is read alike from the first frame to after hydration', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  const { page, context, problems } = await openThemePage(browser)
  await context.addCookies([{ name: 'en_theme', value: 'd%61rk', url }])
  await page.goto(`${url}/`)
  await hydrated(page)
  const { frames } = await themeRecord(page)
  t.same(distinct(frames.map((frame) => frame.className)), ['dark'], 'dark in every frame')
  t.equal(frames.at(-1)?.source, 'saved')
  t.equal(await page.getByRole('button', { name: 'Theme: Dark' }).count(), 1, 'the switch tells the saved mode')
  t.same(problems, [])
})
