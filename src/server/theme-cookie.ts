import type { FastifyRequest } from 'fastify'
import { isThemePreference, type ThemePreference } from '../shared/theme.js'

export const THEME_COOKIE = 'en_theme'

/** The saved preference; `system` when there is none or it is not one we know. */
export function readTheme (request: FastifyRequest): ThemePreference {
  const value = request.cookies[THEME_COOKIE]
  return isThemePreference(value) ? value : 'system'
}
