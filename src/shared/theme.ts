export const THEME_PREFERENCES = ['system', 'light', 'dark'] as const
export type ThemePreference = (typeof THEME_PREFERENCES)[number]

export type Theme = 'light' | 'dark'

export const FALLBACK_THEME: Theme = 'light'

/** The saved preference's cookie: here, because the browser reads it too. */
export const THEME_COOKIE_NAME = 'en_theme'

export const THEME_SWITCH_PATH = '/resources/theme-switch'

/** `<meta name="theme-color">` per theme: the page background in styles.css (kept equal by a browser test). */
export const THEME_COLORS: Record<Theme, string> = { light: '#ffffff', dark: '#0b1120' }

export function isThemePreference (value: unknown): value is ThemePreference {
  return typeof value === 'string' && (THEME_PREFERENCES as readonly string[]).includes(value)
}

export interface ThemeInputs {
  pending?: ThemePreference | null
  saved?: ThemePreference | null
  hint?: Theme | null
}

/** `fallback`: nothing was known, so the stylesheet lets the OS scheme override it. */
export type ThemeSource = 'pending' | 'saved' | 'hint' | 'fallback'

export function decideTheme ({ pending, saved, hint }: ThemeInputs): { theme: Theme, source: ThemeSource } {
  if (pending === 'light' || pending === 'dark') return { theme: pending, source: 'pending' }
  if (!pending && (saved === 'light' || saved === 'dark')) return { theme: saved, source: 'saved' }
  return hint ? { theme: hint, source: 'hint' } : { theme: FALLBACK_THEME, source: 'fallback' }
}

const CYCLE: Record<ThemePreference, ThemePreference> = { system: 'light', light: 'dark', dark: 'system' }

export function nextThemePreference (current: ThemePreference): ThemePreference {
  return CYCLE[current]
}
