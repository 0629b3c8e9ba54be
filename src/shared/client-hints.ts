import { clientHint as colorSchemeHint } from '@epic-web/client-hints/color-scheme'
import { clientHint as timeZoneHint } from '@epic-web/client-hints/time-zone'
import type { Theme } from './theme.js'

export const COLOR_SCHEME_COOKIE = colorSchemeHint.cookieName
export const TIME_ZONE_COOKIE = timeZoneHint.cookieName
export const FALLBACK_TIME_ZONE: string = timeZoneHint.fallback
export const HINT_COOKIE_MAX_AGE = 31_536_000
export const TIME_ZONE_MARKER = 'data-time-zone'

/** Chromium sends it from the second request on, once a response asked with Accept-CH; other browsers never do. */
export const COLOR_SCHEME_HEADER = 'Sec-CH-Prefers-Color-Scheme'

export interface Hints {
  theme: Theme
  timeZone: string
}

export interface HintSources {
  theme: 'header' | 'cookie' | 'fallback'
  timeZone: 'cookie' | 'fallback'
}

export function parseColorScheme (value: unknown): Theme | null {
  return value === 'light' || value === 'dark' ? value : null
}

/** A structured-field string (`"dark"`), or the bare token Chromium has also sent; a repeated header is ignored. */
export function parseColorSchemeHeader (value: unknown): Theme | null {
  if (typeof value !== 'string') return null
  const trimmed = value.trim()
  const unquoted = trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed
  return parseColorScheme(unquoted)
}

const MAX_TIME_ZONE_LENGTH = 64
const TIME_ZONE_CHARACTERS = /^[A-Za-z0-9_+\-/]+$/

/** Zones already accepted. Intl accepts any letter case, so the set is capped: variants must not grow it without bound. */
const knownTimeZones = new Set<string>()
export const MAX_KNOWN_TIME_ZONES = 1000

export function rememberedTimeZones (): number {
  return knownTimeZones.size
}

/** Intl.supportedValuesOf would miss `UTC` and aliases browsers send; memoized: docs/performance.md. */
export function validTimeZone (value: unknown): string | null {
  if (typeof value !== 'string' || value.length > MAX_TIME_ZONE_LENGTH || !TIME_ZONE_CHARACTERS.test(value)) return null
  if (knownTimeZones.has(value)) return value
  try {
    void new Intl.DateTimeFormat('en', { timeZone: value })
  } catch {
    return null
  }
  if (knownTimeZones.size < MAX_KNOWN_TIME_ZONES) knownTimeZones.add(value)
  return value
}

export interface HintInputs {
  colorSchemeCookie?: unknown
  timeZoneCookie?: unknown
  colorSchemeHeader?: unknown
}

/** The live Sec-CH header beats the cookie, which an earlier visit may have written. */
export function resolveHints ({ colorSchemeCookie, timeZoneCookie, colorSchemeHeader }: HintInputs): { hints: Hints, sources: HintSources } {
  const fromHeader = parseColorSchemeHeader(colorSchemeHeader)
  const fromCookie = parseColorScheme(colorSchemeCookie)
  const timeZone = validTimeZone(timeZoneCookie)
  return {
    hints: {
      theme: fromHeader ?? fromCookie ?? parseColorScheme(colorSchemeHint.fallback) ?? 'light',
      timeZone: timeZone ?? FALLBACK_TIME_ZONE
    },
    sources: {
      theme: fromHeader ? 'header' : fromCookie ? 'cookie' : 'fallback',
      timeZone: timeZone ? 'cookie' : 'fallback'
    }
  }
}
