import type { Locator, Page } from 'playwright-core'
import t, { type Test } from 'tap'
import type { Theme } from '../../src/shared/theme.js'
import { launchBrowser, visit } from '../helpers/browser.js'
import { listen } from '../helpers/server.js'

/**
 * In forced colours (Windows high contrast, emulated by Chromium) the system
 * picks every colour and drops shadows. The theme switch, its focus ring, a
 * toast, its close button and their focus rings must still be seen: each
 * boundary or ring at 3:1 at least against what lies behind it (WCAG 1.4.11),
 * each text at 4.5:1, and a focus ring that changes what is on screen.
 */

type Rgba = [number, number, number, number]

function parse (colour: string): Rgba {
  const parts = /rgba?\(([^)]+)\)/.exec(colour)?.[1]?.split(/[\s,/]+/).filter(Boolean).map(Number)
  if (!parts || parts.length < 3) throw new Error(`not an rgb() colour: ${colour}`)
  const [r = 0, g = 0, b = 0, a = 1] = parts
  return [r, g, b, a]
}

/** The contrast ratio of `colour` drawn over `backdrop` (WCAG 2 relative luminance). */
function contrast (colour: string, backdrop: string): number {
  const [r, g, b, a] = parse(colour)
  const [br, bg, bb] = parse(backdrop)
  const blended = [r * a + br * (1 - a), g * a + bg * (1 - a), b * a + bb * (1 - a)]
  const luminance = (channels: number[]) => {
    const [lr = 0, lg = 0, lb = 0] = channels.map((value) => {
      const c = value / 255
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * lr + 0.7152 * lg + 0.0722 * lb
  }
  const [high, low] = [luminance(blended), luminance([br, bg, bb])].sort((x, y) => y - x) as [number, number]
  return (high + 0.05) / (low + 0.05)
}

interface Look {
  color: string
  background: string
  borderStyle: string
  borderWidth: number
  borderColor: string
  outlineStyle: string
  outlineWidth: number
  outlineColor: string
  stroke: string
  opacity: string
  visibility: string
}

function look (locator: Locator): Promise<Look> {
  return locator.evaluate((element) => {
    const style = getComputedStyle(element)
    const icon = element.querySelector('svg path, svg')
    return {
      color: style.color,
      background: style.backgroundColor,
      borderStyle: style.borderTopStyle,
      borderWidth: parseFloat(style.borderTopWidth),
      borderColor: style.borderTopColor,
      outlineStyle: style.outlineStyle,
      outlineWidth: parseFloat(style.outlineWidth),
      outlineColor: style.outlineColor,
      stroke: icon ? getComputedStyle(icon).stroke : 'none',
      opacity: style.opacity,
      visibility: style.visibility
    }
  })
}

/** Presses Tab until `target` has the focus, as a keyboard user reaches it (so :focus-visible applies). */
async function tabTo (page: Page, target: Locator): Promise<void> {
  for (let presses = 0; presses < 15; presses++) {
    if (await target.evaluate((element) => element === document.activeElement)) return
    await page.keyboard.press('Tab')
  }
  throw new Error('the element cannot be reached with Tab')
}

/** Its boundary: a border at least 1px wide, at 3:1 against `backdrop`. */
function assertBoundary (t: Test, name: string, { borderStyle, borderWidth, borderColor }: Look, backdrop: string) {
  t.ok(borderStyle !== 'none' && borderStyle !== 'hidden' && borderWidth >= 1, `${name} has a border (${borderWidth}px ${borderStyle})`)
  t.ok(contrast(borderColor, backdrop) >= 3, `${name}'s border stands out: ${borderColor} on ${backdrop}, ${contrast(borderColor, backdrop).toFixed(1)}:1`)
}

/** A focus ring: an outline at least 2px wide at 3:1 against `backdrop`, and a visible change on screen. */
async function assertFocusRing (t: Test, page: Page, name: string, target: Locator, backdrop: string) {
  const box = await target.boundingBox()
  if (!box) throw new Error(`${name} has no box`)
  const clip = { x: Math.max(0, box.x - 6), y: Math.max(0, box.y - 6), width: box.width + 12, height: box.height + 12 }
  const before = await page.screenshot({ clip })
  await tabTo(page, target)
  const { outlineStyle, outlineWidth, outlineColor } = await look(target)
  t.ok(outlineStyle !== 'none' && outlineWidth >= 2, `${name}'s focus ring is an outline ${outlineWidth}px ${outlineStyle}`)
  t.ok(contrast(outlineColor, backdrop) >= 3, `${name}'s focus ring stands out: ${outlineColor} on ${backdrop}, ${contrast(outlineColor, backdrop).toFixed(1)}:1`)
  t.notOk(before.equals(await page.screenshot({ clip })), `${name}'s focus ring changes what is on screen`)
}

for (const theme of ['light', 'dark'] as const satisfies readonly Theme[]) {
  t.test(`forced colours, ${theme} theme: the theme switch, a toast, its close button and their focus rings are seen`, async (t) => {
    const browser = await launchBrowser(t)
    const { url } = await listen(t)
    const { page, problems, context } = await visit(browser, url, { forcedColors: 'active', savedTheme: theme })
    t.teardown(() => context.close())
    t.ok(await page.evaluate(() => matchMedia('(forced-colors: active)').matches), 'forced colours are on')
    const canvas = (await look(page.locator('body'))).background

    const button = page.getByRole('button', { name: `Theme: ${theme === 'light' ? 'Light' : 'Dark'}`, exact: true })
    const switchLook = await look(button)
    assertBoundary(t, 'the theme switch', switchLook, canvas)
    t.ok(contrast(switchLook.color, switchLook.background) >= 4.5, `its label is legible: ${switchLook.color} on ${switchLook.background}`)
    t.ok(contrast(switchLook.stroke, switchLook.background) >= 3, `its icon is seen: ${switchLook.stroke} on ${switchLook.background}`)
    await assertFocusRing(t, page, 'the theme switch', button, canvas)

    await page.evaluate(() => window.__toast?.success('Saved', { description: 'Your note was saved.' }))
    const toast = page.locator('[data-sonner-toast]', { hasText: 'Your note was saved.' })
    // The pointer over the toast holds it there (sonner pauses its timer), and its entrance is over.
    await toast.hover()
    await page.waitForFunction(() => document.querySelector('[data-sonner-toast]')?.getAnimations({ subtree: true }).length === 0)
    const toastLook = await look(toast)
    assertBoundary(t, 'the toast', toastLook, canvas)
    t.ok(contrast(toastLook.color, toastLook.background) >= 4.5, `its text is legible: ${toastLook.color} on ${toastLook.background}`)

    const close = toast.getByRole('button', { name: 'Close toast' })
    const closeLook = await look(close)
    const closeBox = await close.boundingBox()
    t.ok(closeBox && closeBox.width >= 16 && closeBox.height >= 16 && closeLook.opacity === '1' && closeLook.visibility === 'visible', 'the close button is shown whole')
    assertBoundary(t, 'the close button', closeLook, toastLook.background)
    t.ok(contrast(closeLook.stroke === 'none' ? closeLook.color : closeLook.stroke, closeLook.background) >= 3, 'its cross is seen')

    await assertFocusRing(t, page, 'the toast', toast, canvas)
    await assertFocusRing(t, page, 'the close button', close, toastLook.background)
    t.same(problems, [])
  })
}
