import { parse } from 'content-type'
import { errorCodes, type onRequestHookHandler } from 'fastify'
import { isCrossSite } from '../http/cross-site.js'
import { clientError } from '../errors.js'

export const FORM_TYPE = 'application/x-www-form-urlencoded'
const ACCEPTED_TYPES = new Set([FORM_TYPE, 'application/json'])
// The body parsers read every body as UTF-8, of which US-ASCII is a part; any other charset would be misread.
const READABLE_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii'])

/** Before the body is read: another site's form gets a 403, any body but a form or JSON in UTF-8 a 415. */
export function refuseForeignRequests (crossSiteMessage?: string): onRequestHookHandler {
  return (request, _reply, done) => {
    if (isCrossSite(request)) {
      done(clientError('CROSS_SITE', crossSiteMessage))
      return
    }
    const { type, parameters } = parse(request.headers['content-type'] ?? '')
    if (!ACCEPTED_TYPES.has(type)) done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(type || 'none'))
    else if (parameters.charset !== undefined && !READABLE_CHARSETS.has(parameters.charset.toLowerCase())) done(clientError('CHARSET_NOT_ACCEPTED'))
    else done()
  }
}
