/** The one list of theme preferences: the schema, the type and the UI all derive from it. */
export const THEME_PREFERENCES = ['system', 'light', 'dark'] as const
export type ThemePreference = (typeof THEME_PREFERENCES)[number]

/** A theme that can actually be painted. `system` always resolves to one of these. */
export type Theme = 'light' | 'dark'

export const FALLBACK_THEME: Theme = 'light'

export function isThemePreference (value: unknown): value is ThemePreference {
  return typeof value === 'string' && (THEME_PREFERENCES as readonly string[]).includes(value)
}

export function isTheme (value: unknown): value is Theme {
  return value === 'light' || value === 'dark'
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
 * The theme in effect, shared by the server render and the browser so both
 * always agree: a pending switch wins (its `system` means the hint), then the
 * saved preference, then the hint, then light.
 */
export function resolveTheme ({ pending, saved, hint }: ThemeInputs): Theme {
  const fromHint = hint ?? FALLBACK_THEME
  if (pending) return pending === 'system' ? fromHint : pending
  if (saved && saved !== 'system') return saved
  return fromHint
}

const CYCLE: Record<ThemePreference, ThemePreference> = { system: 'light', light: 'dark', dark: 'system' }

/** The preference the switch moves to next: system → light → dark → system. */
export function nextThemePreference (current: ThemePreference): ThemePreference {
  return CYCLE[current]
}
