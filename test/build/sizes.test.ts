import t from 'tap'
import { overBudget } from '../../build/sizes.mjs'

// npm run build says what npm test's size-budget test will refuse, and what to do about it.
const BUDGETS = { initialJavaScriptBudgetKiB: 70, pageJavaScriptBudgetKiB: 72 }
const sizes = (shell: number, page: number) => ({ shell: { gzip: shell }, heaviestPage: { id: 'forecast', gzip: page }, initial: { gzip: shell + page } })

t.test('the build warns of a page over its budget, naming it, the budget and the way out', async (t) => {
  t.same(overBudget(sizes(70 * 1024, 2 * 1024), BUDGETS), [], 'at the budgets, nothing to say')
  const [page, ...rest] = overBudget(sizes(71_475, 3_175), BUDGETS)
  t.same(rest, [])
  t.match(page, /^warning: the page "forecast" with the shell is 72\.9 KiB \(74650 B\) gzip, over 72 KiB \(73728 B\): pageJavaScriptBudgetKiB/)
  t.match(page, /npm test fails; load what the page needs later with import\(\) after hydration, or raise the budget/)
  const [shell] = overBudget(sizes(70 * 1024 + 1, 0), BUDGETS)
  t.match(shell, /^warning: the shell is 70\.0 KiB \(71681 B\) gzip, over 70 KiB \(71680 B\): initialJavaScriptBudgetKiB/, 'a byte over, in bytes')
})
