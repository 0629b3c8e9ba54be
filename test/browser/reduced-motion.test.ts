import type { Page } from 'playwright-core'
import t from 'tap'
import { launchBrowser, visit } from '../helpers/browser.js'
import { listen } from '../helpers/server.js'

/**
 * With prefers-reduced-motion: reduce, nothing moves: a toast appears and
 * leaves without sliding, and nothing of ours translates, scales or slides.
 * Colour and opacity fades may stay. Without the preference the same
 * recorder sees the toast slide, so it can see motion when there is some.
 */

/** Properties whose animation moves or resizes something on screen. */
const MOVING = /^(transform|translate|scale|rotate|top|right|bottom|left|inset.*|margin.*|padding.*|width|height|offset.*)$/

interface Running { kind: string, properties: string[], target: string }

/** Every animation and transition running during the next `frames` frames, with the properties it animates. */
function runningDuring (page: Page, frames: number): Promise<Running[]> {
  return page.evaluate((frames) => new Promise<Running[]>((resolve) => {
    const seen: Running[] = []
    const sample = () => {
      for (const animation of document.getAnimations()) {
        const properties = 'transitionProperty' in animation
          ? [String((animation as CSSTransition).transitionProperty)]
          : ((animation.effect as KeyframeEffect | null)?.getKeyframes() ?? []).flatMap((frame) => Object.keys(frame).filter((key) => !['offset', 'computedOffset', 'easing', 'composite'].includes(key)))
        const target = (animation.effect as KeyframeEffect | null)?.target
        seen.push({ kind: animation.constructor.name, properties, target: target ? `${target.nodeName.toLowerCase()}[${[...target.attributes].map((attribute) => attribute.name).filter((name) => name.startsWith('data-') || name === 'class').join(',')}]` : 'none' })
      }
      if (--frames > 0) requestAnimationFrame(sample)
      else resolve(seen)
    }
    requestAnimationFrame(sample)
  }), frames)
}

const moving = (running: Running[]) => running.filter((animation) => animation.properties.some((property) => MOVING.test(property)))

/** Shows a toast and records through its entrance, then closes it and records through its exit. */
async function toastInAndOut (page: Page): Promise<Running[]> {
  await page.evaluate(() => window.__toast?.success('Saved'))
  const entering = await runningDuring(page, 30)
  const toast = page.locator('[data-sonner-toast]', { hasText: 'Saved' })
  await toast.waitFor({ state: 'visible' })
  const close = toast.getByRole('button', { name: 'Close toast' })
  await close.click()
  const leaving = await runningDuring(page, 30)
  await toast.waitFor({ state: 'detached' })
  return [...entering, ...leaving]
}

t.test('with reduced motion a toast comes and goes without moving, and the page keeps still', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listen(t)
  const { page, problems, context } = await visit(browser, url, { reducedMotion: 'reduce' })
  t.teardown(() => context.close())
  t.ok(await page.evaluate(() => matchMedia('(prefers-reduced-motion: reduce)').matches), 'the preference is emulated')
  const running = await toastInAndOut(page)
  t.same(moving(running), [], 'no animation or transition of a position, a size or a transform')
  // Ours too: the switch under the pointer fades its colours at most.
  await page.getByRole('button', { name: /^Theme:/ }).hover()
  t.same(moving(await runningDuring(page, 10)), [], 'hovering the theme switch moves nothing')
  t.same(problems, [])
})

t.test('without the preference the same recorder sees the toast slide', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listen(t)
  const { page, context } = await visit(browser, url, { reducedMotion: 'no-preference' })
  t.teardown(() => context.close())
  const running = await toastInAndOut(page)
  t.ok(moving(running).some((animation) => animation.properties.includes('transform')), `the toast slides in or out (${JSON.stringify(moving(running).slice(0, 3))})`)
})
