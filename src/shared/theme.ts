/** The one list of theme preferences: the schema, the type and the UI all derive from it. */
export const THEME_PREFERENCES = ['system', 'light', 'dark'] as const
export type ThemePreference = (typeof THEME_PREFERENCES)[number]

/** A theme that can actually be painted. `system` always resolves to one of these. */
export type Theme = 'light' | 'dark'

export const FALLBACK_THEME: Theme = 'light'

/**
 * The saved preference's cookie. The name lives here, not in the server's
 * cookie module, because the browser reads it too (a page restored from the
 * back/forward cache re-applies the current preference).
 */
export const THEME_COOKIE_NAME = 'en_theme'

/** The theme switch's endpoint: the form's action and the route's URL. */
export const THEME_SWITCH_PATH = '/resources/theme-switch'

/** `<meta name="theme-color">` per theme: the page background in styles.css (kept equal by a browser test). */
export const THEME_COLORS: Record<Theme, string> = { light: '#ffffff', dark: '#0b1120' }

export function isThemePreference (value: unknown): value is ThemePreference {
  return typeof value === 'string' && (THEME_PREFERENCES as readonly string[]).includes(value)
}

export interface ThemeInputs {
  /** The theme of a theme-switch submission still in flight, if any. */
  pending?: ThemePreference | null
  /** The preference saved in the theme cookie; `system` or absent means none. */
  saved?: ThemePreference | null
  /** The browser's colour-scheme hint, if known. */
  hint?: Theme | null
}

/**
 * Which rule of decideTheme decided: `fallback` means nothing was known, so
 * the stylesheet lets the OS colour scheme override the painted fallback.
 */
export type ThemeSource = 'pending' | 'saved' | 'hint' | 'fallback'

/**
 * The theme in effect and why, shared by the server render and the browser so
 * both always agree: a pending switch wins (its `system` means the hint), then
 * the saved preference, then the hint, then light.
 */
export function decideTheme ({ pending, saved, hint }: ThemeInputs): { theme: Theme, source: ThemeSource } {
  if (pending === 'light' || pending === 'dark') return { theme: pending, source: 'pending' }
  // A pending `system` discards the saved preference: it is what is being cleared.
  if (!pending && (saved === 'light' || saved === 'dark')) return { theme: saved, source: 'saved' }
  return hint ? { theme: hint, source: 'hint' } : { theme: FALLBACK_THEME, source: 'fallback' }
}

const CYCLE: Record<ThemePreference, ThemePreference> = { system: 'light', light: 'dark', dark: 'system' }

/** The preference the switch moves to next: system → light → dark → system. */
export function nextThemePreference (current: ThemePreference): ThemePreference {
  return CYCLE[current]
}
