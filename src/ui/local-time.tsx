import { TIME_ZONE_MARKER } from '../shared/client-hints.js'
import { useRequestInfo } from './request-info.js'

export interface LocalTimeProps {
  date: Date | number | string
  /** The document's language by default: the server and the browser must format alike. */
  locale?: string
  options?: Intl.DateTimeFormatOptions
}

/**
 * A date and time in the visitor's time zone, as their browser hinted it
 * (UTC until it has), the same on the server and when hydrating. It marks the
 * document as depending on the zone: a first visit from another zone reloads
 * once to render it right, and a page without one never reloads for the zone.
 */
export function LocalTime ({ date, locale = 'en', options = { dateStyle: 'medium', timeStyle: 'short' } }: LocalTimeProps) {
  const { timeZone } = useRequestInfo().hints
  const instant = new Date(date)
  const marker = { [TIME_ZONE_MARKER]: timeZone }
  return <time dateTime={instant.toISOString()} {...marker}>{new Intl.DateTimeFormat(locale, { ...options, timeZone }).format(instant)}</time>
}
