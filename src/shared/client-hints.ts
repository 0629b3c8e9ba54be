import { clientHint as colorSchemeHint } from '@epic-web/client-hints/color-scheme'
import { clientHint as timeZoneHint } from '@epic-web/client-hints/time-zone'
import type { Theme } from './theme.js'

/**
 * The browser's hints (colour scheme, time zone): where they come from, how
 * they are validated and what is used when they are missing. Cookie names and
 * fallbacks are @epic-web/client-hints' own, so its helpers stay compatible.
 */

export const COLOR_SCHEME_COOKIE = colorSchemeHint.cookieName
export const TIME_ZONE_COOKIE = timeZoneHint.cookieName
export const FALLBACK_TIME_ZONE: string = timeZoneHint.fallback
/** Seconds; the library's subscribeToSchemeChange writes the same lifetime. */
export const HINT_COOKIE_MAX_AGE = 31_536_000

/** Chromium sends it once asked with Accept-CH (or retries for it on Critical-CH); other browsers never do. */
export const COLOR_SCHEME_HEADER = 'Sec-CH-Prefers-Color-Scheme'

export interface Hints {
  theme: Theme
  timeZone: string
}

/** Whether each hint came from the browser or is the fallback; `header` is the live Sec-CH value. */
export interface HintSources {
  theme: 'header' | 'cookie' | 'fallback'
  timeZone: 'cookie' | 'fallback'
}

export function parseColorScheme (value: unknown): Theme | null {
  return value === 'light' || value === 'dark' ? value : null
}

/**
 * The Sec-CH-Prefers-Color-Scheme value: a structured-field string (`"dark"`),
 * though Chromium has sent it as a bare token too. A repeated header (an
 * array) is ambiguous and ignored.
 */
export function parseColorSchemeHeader (value: unknown): Theme | null {
  if (typeof value !== 'string') return null
  const trimmed = value.trim()
  const unquoted = trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed
  return parseColorScheme(unquoted)
}

// The longest IANA name is about 30 characters; anything near this limit is not a zone.
const MAX_TIME_ZONE_LENGTH = 64
const TIME_ZONE_CHARACTERS = /^[A-Za-z0-9_+\-/]+$/

/** Zones already accepted. Intl accepts any letter case, so the set is capped: variants must not grow it without bound. */
const knownTimeZones = new Set<string>()
const MAX_KNOWN_TIME_ZONES = 1000

/**
 * The time zone if this runtime's Intl knows it, else null. Chrome can report
 * `Etc/Unknown`, and a cookie can hold anything; Intl throws RangeError on
 * zones it does not know. Intl.supportedValuesOf('timeZone') is no substitute:
 * it omits `UTC` and the aliases browsers report (`Asia/Calcutta`, `US/Eastern`).
 * Constructing a DateTimeFormat costs more than rendering much of a page, so
 * accepted zones are remembered; refused ones are not, since anyone can send
 * endless new ones.
 */
export function validTimeZone (value: unknown): string | null {
  if (typeof value !== 'string' || value.length > MAX_TIME_ZONE_LENGTH || !TIME_ZONE_CHARACTERS.test(value)) return null
  if (knownTimeZones.has(value)) return value
  try {
    // Constructing is the validation.
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

/**
 * The hints a page is rendered with. The live Sec-CH header beats the cookie,
 * which may have been written on an earlier visit under another OS setting.
 * Invalid values fall back (light, UTC) without an error.
 */
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
