import t from 'tap'
import {
  FALLBACK_THEME,
  THEME_COLORS,
  THEME_PREFERENCES,
  decideTheme,
  isThemePreference,
  nextThemePreference,
  type Theme,
  type ThemePreference,
  type ThemeSource
} from '../../src/shared/theme.js'

type Maybe<T> = T | null | undefined

const PREFERENCES: Array<Maybe<ThemePreference>> = [undefined, null, 'system', 'light', 'dark']
const HINTS: Array<Maybe<Theme>> = [undefined, null, 'light', 'dark']

/**
 * The rule, written as an ordered table rather than as code: the first row
 * whose condition holds gives the theme.
 */
interface Case { pending: Maybe<ThemePreference>, saved: Maybe<ThemePreference>, hint: Maybe<Theme> }
const isSet = (value: unknown): boolean => value !== undefined && value !== null
const RULES: Array<{ why: string, when: (c: Case) => boolean, then: (c: Case) => Theme, source: ThemeSource }> = [
  { why: 'a pending light/dark switch wins', when: (c) => c.pending === 'light' || c.pending === 'dark', then: (c) => c.pending as Theme, source: 'pending' },
  { why: 'a pending system switch means the hint', when: (c) => c.pending === 'system' && isSet(c.hint), then: (c) => c.hint as Theme, source: 'hint' },
  { why: 'a pending system switch without a hint means light', when: (c) => c.pending === 'system', then: () => 'light', source: 'fallback' },
  { why: 'a saved light/dark preference', when: (c) => c.saved === 'light' || c.saved === 'dark', then: (c) => c.saved as Theme, source: 'saved' },
  { why: 'no preference: the hint', when: (c) => isSet(c.hint), then: (c) => c.hint as Theme, source: 'hint' },
  { why: 'nothing known: light', when: () => true, then: () => 'light', source: 'fallback' }
]

function expected (c: Case): { theme: Theme, why: string, source: ThemeSource } {
  const rule = RULES.find((r) => r.when(c))
  if (rule === undefined) throw new Error('the rule table has no catch-all row')
  return { theme: rule.then(c), why: rule.why, source: rule.source }
}

t.test('decideTheme follows the rule, and names the rule that decided, for every combination', async (t) => {
  let count = 0
  for (const pending of PREFERENCES) {
    for (const saved of PREFERENCES) {
      for (const hint of HINTS) {
        const c = { pending, saved, hint }
        const { theme, why, source } = expected(c)
        t.same(decideTheme(c), { theme, source }, `${JSON.stringify(c) ?? ''} → ${theme} from ${source} (${why})`)
        count++
      }
    }
  }
  t.equal(count, 5 * 5 * 4, 'all 100 combinations were checked')
})

t.test('the theme colours are distinct CSS hex colours', async (t) => {
  t.match(THEME_COLORS.light, /^#[0-9a-f]{6}$/)
  t.match(THEME_COLORS.dark, /^#[0-9a-f]{6}$/)
  t.not(THEME_COLORS.light, THEME_COLORS.dark)
})

t.test('absent keys count as unknown, and nothing known paints the fallback', async (t) => {
  t.same(decideTheme({}), { theme: FALLBACK_THEME, source: 'fallback' })
  t.same(decideTheme({ hint: 'dark' }), { theme: 'dark', source: 'hint' })
  t.same(decideTheme({ saved: 'dark' }), { theme: 'dark', source: 'saved' })
  t.same(decideTheme({ pending: 'system', saved: 'dark' }), { theme: FALLBACK_THEME, source: 'fallback' }, 'a pending system ignores the saved theme')
})

t.test('nextThemePreference cycles system → light → dark → system', async (t) => {
  t.equal(nextThemePreference('system'), 'light')
  t.equal(nextThemePreference('light'), 'dark')
  t.equal(nextThemePreference('dark'), 'system')
  for (const start of THEME_PREFERENCES) {
    const seen = new Set<ThemePreference>()
    let current = start
    for (let i = 0; i < THEME_PREFERENCES.length; i++) {
      seen.add(current)
      current = nextThemePreference(current)
    }
    t.equal(current, start, `${start} comes back after one full cycle`)
    t.equal(seen.size, THEME_PREFERENCES.length, `${start} visits every preference`)
  }
})

t.test('isThemePreference accepts exactly the three preferences', async (t) => {
  for (const value of ['system', 'light', 'dark']) t.ok(isThemePreference(value), value)
  for (const value of [undefined, null, '', 'System', 'LIGHT', ' dark', 'dark ', 'auto', 'constructor', 'toString', 0, 1, true, {}, [], ['dark'], new String('dark')]) {
    t.notOk(isThemePreference(value), JSON.stringify(value) ?? String(value))
  }
})
