import type { FastifyRequest } from 'fastify'
import { COLOR_SCHEME_COOKIE, TIME_ZONE_COOKIE } from '../../shared/client-hints.js'

// Only a script sets the client-hint cookies (src/shared/hint-check-script.ts), so React's streamed boundaries will be
// moved into place there (docs/decisions/streaming-to-script-runners.md).
export function runsScripts (request: FastifyRequest): boolean {
  return request.cookies[TIME_ZONE_COOKIE] !== undefined || request.cookies[COLOR_SCHEME_COOKIE] !== undefined
}
