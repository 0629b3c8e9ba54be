import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { THEME_COOKIE_NAME, isThemePreference, type ThemePreference } from '../shared/theme.js'

/**
 * The saved theme preference. Not HttpOnly: it holds no secret, and the page
 * reads it when restored from the back/forward cache (ui/theme.tsx).
 */
export const THEME_COOKIE = THEME_COOKIE_NAME
/** One year, in seconds. */
export const THEME_COOKIE_MAX_AGE = 31_536_000

export interface ThemeCookieOptions {
  /** Send only over HTTPS: true in production. */
  secure: boolean
}

function attributes ({ secure }: ThemeCookieOptions) {
  return { path: '/', sameSite: 'lax', secure, httpOnly: false } as const
}

/** The saved preference; `system` when there is none or it is not one we know. */
export function readTheme (request: FastifyRequest): ThemePreference {
  const value = request.cookies[THEME_COOKIE]
  return isThemePreference(value) ? value : 'system'
}

/** Set-Cookie values by preference and `secure`: six at most, serialized once rather than on every switch. */
const serialized = new Map<string, string>()

/** Saves the preference; `system` is the absence of one, so it clears the cookie. */
export function writeTheme (reply: FastifyReply, theme: ThemePreference, options: ThemeCookieOptions): void {
  const key = `${theme} ${options.secure}`
  let header = serialized.get(key)
  if (header === undefined) {
    const { serializeCookie } = reply.server
    // Cleared with the same Path (and attributes) it was set with, or the browser keeps the original.
    header = theme === 'system'
      ? serializeCookie(THEME_COOKIE, '', { ...attributes(options), expires: new Date(0) })
      : serializeCookie(THEME_COOKIE, theme, { ...attributes(options), maxAge: THEME_COOKIE_MAX_AGE })
    serialized.set(key, header)
  }
  reply.header('set-cookie', header)
}

export interface ThemeCookie {
  read (request: FastifyRequest): ThemePreference
  write (reply: FastifyReply, theme: ThemePreference): void
}
declare module 'fastify' {
  interface FastifyInstance { themeCookie: ThemeCookie }
}
export const themeCookie = fp<ThemeCookieOptions>(async (app, options) => {
  app.decorate('themeCookie', { read: readTheme, write: (reply: FastifyReply, theme: ThemePreference) => writeTheme(reply, theme, options) })
}, { name: 'theme-cookie', dependencies: ['@fastify/cookie'] })
