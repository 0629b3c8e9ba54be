import { boundedMemo } from '../shared/bounded-memo.js'
import { TIME_ZONE_MARKER } from '../shared/client-hints.js'
import { useRequestInfo } from './request-info.js'

export interface LocalTimeProps {
  date: Date | number | string
  /** The document's language by default: the server and the browser must format alike. */
  locale?: string
  options?: Intl.DateTimeFormatOptions
}

// Building a DateTimeFormat costs more than the rest of such a page's render; the zone is one the server accepted
// (shared/client-hints.ts), so the keys are few.
const formatter = boundedMemo(256, (key) => {
  const [locale, options, timeZone] = JSON.parse(key) as [string, Intl.DateTimeFormatOptions, string]
  return new Intl.DateTimeFormat(locale, { ...options, timeZone })
})

/** In the hinted zone (UTC until hinted). The marker is what lets the check script reload a first visit from another
 * zone; a page without one never reloads (docs/decisions/theme-and-client-hints.md). */
export function LocalTime ({ date, locale = 'en', options = { dateStyle: 'medium', timeStyle: 'short' } }: LocalTimeProps) {
  const { timeZone } = useRequestInfo().hints
  const instant = new Date(date)
  const marker = { [TIME_ZONE_MARKER]: timeZone }
  return <time dateTime={instant.toISOString()} {...marker}>{formatter(JSON.stringify([locale, options, timeZone])).format(instant)}</time>
}
