import { errorCodes, type onRequestHookHandler } from 'fastify'
import { isCrossSite } from '../http/cross-site.js'
import { bodyTypeOf, readableCharset } from '../http/negotiation.js'
import { clientError } from '../errors.js'

export const FORM_TYPE = 'application/x-www-form-urlencoded'
const ACCEPTED_TYPES = new Set([FORM_TYPE, 'application/json'])

/** Before the body is read: another site's form gets a 403, any body but a form or JSON in UTF-8 a 415. */
export function refuseForeignRequests (crossSiteMessage?: string): onRequestHookHandler {
  return (request, _reply, done) => {
    if (isCrossSite(request)) {
      done(clientError('CROSS_SITE', crossSiteMessage))
      return
    }
    const { type, charset } = bodyTypeOf(request)
    if (!ACCEPTED_TYPES.has(type)) done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(type || 'none'))
    else if (!readableCharset(charset)) done(clientError('CHARSET_NOT_ACCEPTED'))
    else done()
  }
}
