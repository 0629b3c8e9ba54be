import { getHintUtils } from '@epic-web/client-hints'
import { clientHint as colorSchemeHint } from '@epic-web/client-hints/color-scheme'
import { clientHint as timeZoneHint } from '@epic-web/client-hints/time-zone'
import type { FastifyRequest } from 'fastify'
import type { RequestInfo } from '../shared/page-data.js'

export const hintUtils = getHintUtils({ theme: colorSchemeHint, timeZone: timeZoneHint })

/** The browser's hints as sent in its cookies, with the library's fallbacks (light, UTC). */
export function readHints (request: FastifyRequest): RequestInfo['hints'] {
  const cookie = request.headers.cookie ?? ''
  const hints = hintUtils.getHints({ headers: { get: () => cookie } } as unknown as Request)
  return { theme: hints.theme === 'dark' ? 'dark' : 'light', timeZone: hints.timeZone }
}
