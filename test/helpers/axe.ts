import type { AxeResults, Result } from 'axe-core'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import type { Test } from 'tap'

/**
 * axe-core in Chromium: every rule axe runs by default (WCAG 2.0, 2.1 and
 * 2.2 A and AA, colour contrast included, and axe's best practices) plus the
 * WCAG A and AA rules it leaves off as experimental.
 */

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
const WCAG_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']

declare global {
  interface Window {
    axe?: typeof import('axe-core')
  }
}

/**
 * Runs axe in the page. Evaluated through the DevTools protocol, which the
 * page's CSP does not govern: the page keeps its policy, and a <script>
 * tag for axe would be refused (it carries no nonce).
 */
async function audit (page: Page): Promise<{ results: AxeResults, wcagRules: string[] }> {
  await page.evaluate(AXE_SOURCE)
  return page.evaluate(async (tags) => {
    const axe = window.axe!
    // Deprecated rules are on their way out of axe; experimental WCAG rules are off by default and turned on here.
    const wcagRules = axe.getRules(tags).filter((rule) => !rule.tags.includes('deprecated')).map((rule) => rule.ruleId)
    const results = await axe.run(document, { rules: Object.fromEntries(wcagRules.map((rule) => [rule, { enabled: true }])) })
    return { results, wcagRules }
  }, WCAG_AA_TAGS)
}

/** One line per failing element: rule, impact, what axe says, where. */
function readable (results: Result[]): string[] {
  return results.flatMap((result) => result.nodes.map((node) =>
    `${result.id} (${result.impact ?? 'undecided'}): ${node.failureSummary?.replace(/\s+/g, ' ') ?? result.help} at ${node.target.join(' ')}`
  ))
}

/**
 * Zero violations, and no contrast check left undecided ("incomplete"): an
 * undecided check would let a contrast regression through unseen.
 */
export async function assertAccessible (t: Test, page: Page): Promise<void> {
  const { results, wcagRules } = await audit(page)
  t.same(readable(results.violations), [], `no violation of axe ${results.testEngine.version}'s rules`)
  t.same(readable(results.incomplete.filter((result) => result.id === 'color-contrast')), [], 'every contrast check decided')
  const contrast = results.passes.find((result) => result.id === 'color-contrast')
  t.comment(`contrast ratios: ${contrast?.nodes.map((node) => `${node.target.join(' ')} ${(node.any[0]?.data as { contrastRatio?: number } | undefined)?.contrastRatio}:1`).join(', ')}`)
  t.ok(contrast && contrast.nodes.length > 0, `contrast was checked (${contrast?.nodes.length ?? 0} elements)`)
  const ran = new Set([...results.passes, ...results.violations, ...results.incomplete, ...results.inapplicable].map((result) => result.id))
  t.same(wcagRules.filter((rule) => !ran.has(rule)), [], `every WCAG 2.0 and 2.1 A and AA rule ran (${wcagRules.length})`)
}
