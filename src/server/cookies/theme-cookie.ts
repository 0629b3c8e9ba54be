import type { FastifyReply, FastifyRequest } from 'fastify'
import { THEME_COOKIE_NAME, isThemePreference, type ThemePreference } from '../../shared/theme.js'
import type { CookieAttributes } from './attributes.js'

export const THEME_COOKIE_MAX_AGE = 31_536_000

export interface ThemeCookie {
  read (request: FastifyRequest): ThemePreference
  /** Saves the preference; `system` is the absence of one, so it clears the cookie. */
  write (reply: FastifyReply, theme: ThemePreference): void
}

// Not HttpOnly: it holds no secret, and the page reads it when restored from the back/forward cache (ui/theme.tsx).
export function createThemeCookie (appAttributes: CookieAttributes, serialize: FastifyReply['server']['serializeCookie']): ThemeCookie {
  const attributes = { ...appAttributes, httpOnly: false }
  const headers = new Map<ThemePreference, string>()
  const header = (theme: ThemePreference) => theme === 'system'
    // Cleared with the same Path (and attributes) it was set with, or the browser keeps the original.
    ? serialize(THEME_COOKIE_NAME, '', { ...attributes, expires: new Date(0) })
    : serialize(THEME_COOKIE_NAME, theme, { ...attributes, maxAge: THEME_COOKIE_MAX_AGE })
  return {
    read (request) {
      const value = request.cookies[THEME_COOKIE_NAME]
      return isThemePreference(value) ? value : 'system'
    },
    write (reply, theme) {
      let value = headers.get(theme)
      if (value === undefined) headers.set(theme, value = header(theme))
      reply.header('set-cookie', value)
    }
  }
}
