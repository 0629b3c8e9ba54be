import { errorCodes, type onRequestHookHandler } from 'fastify'
import { isCrossSite } from '../http/cross-site.js'
import { clientError } from '../errors.js'
import { mediaTypeOf } from '../http/negotiation.js'

export const FORM_TYPE = 'application/x-www-form-urlencoded'
const ACCEPTED_TYPES = new Set([FORM_TYPE, 'application/json'])

/** Before the body is read: another site's form gets a 403, any body but a form or JSON a 415. */
export function refuseForeignRequests (crossSiteMessage?: string): onRequestHookHandler {
  return (request, _reply, done) => {
    if (isCrossSite(request)) {
      done(clientError('CROSS_SITE', crossSiteMessage))
      return
    }
    const type = mediaTypeOf(request)
    done(ACCEPTED_TYPES.has(type) ? undefined : new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(type || 'none'))
  }
}
