import type { FastifyInstance, FastifyRequest } from 'fastify'
import { CSP_REPORT_PATH, CSP_REPORT_TYPES, LineBudget, readLegacyReport, readReportBatch, type CspViolation } from '../security/csp-report.js'
import { handleErrorPlainly } from '../error-handler.js'
import { clientError } from '../errors.js'
import { mediaTypeOf } from '../http/negotiation.js'
import fp from 'fastify-plugin'

export interface CspReportOptions {
  /** Log lines a minute at most; the rest are counted (default 30). */
  logLinesPerMinute?: number
  now?: () => number
}

const BODY_LIMIT = 64 * 1024
const ACCEPTED = new Set<string>(CSP_REPORT_TYPES)
const TYPES_IN_WORDS = 'application/reports+json or application/csp-report'

function violationsOf (request: FastifyRequest): CspViolation[] {
  if (mediaTypeOf(request) === 'application/reports+json') {
    const batch = readReportBatch(request.body)
    if (batch) return batch
    throw clientError('BAD_REQUEST', 'An application/reports+json body must be a JSON array of reports.')
  }
  const single = readLegacyReport(request.body)
  if (single) return [single]
  throw clientError('BAD_REQUEST', 'An application/csp-report body must be a JSON object with a "csp-report" object.')
}

/** Never a page, so no cookie is read or set. */
export const cspReportRoutes = fp<CspReportOptions>(async function cspReportRoutes (app: FastifyInstance, { logLinesPerMinute = 30, now }: CspReportOptions = {}) {
  const budget = new LineBudget(logLinesPerMinute, now)
  // This scope parses the two report types and nothing else: a form or JSON body is refused unread.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser([...CSP_REPORT_TYPES], { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'))

  app.post(CSP_REPORT_PATH, {
    bodyLimit: BODY_LIMIT,
    compress: false,
    // Reports can come in floods: no access log at info, and the warn lines below are capped.
    logLevel: 'warn',
    errorHandler: handleErrorPlainly,
    onRequest: (request, _reply, done) => {
      done(ACCEPTED.has(mediaTypeOf(request)) ? undefined : clientError('FST_ERR_CTP_INVALID_MEDIA_TYPE', `CSP reports are accepted as ${TYPES_IN_WORDS}.`))
    }
  }, (request, reply) => {
    for (const violation of violationsOf(request)) {
      app.metrics?.cspReported(violation.directive)
      const { admitted, refusedBefore } = budget.take()
      if (refusedBefore > 0) request.log.warn({ unlogged: refusedBefore }, `${refusedBefore} CSP reports were not logged in the last minute (at most ${logLinesPerMinute} lines a minute)`)
      if (admitted) request.log.warn({ csp: violation }, 'CSP violation')
    }
    reply.code(204).header('Cache-Control', 'no-store').send()
  })
}, { name: 'csp-report-routes', fastify: '5.x', encapsulate: true, dependencies: ['metrics'] })
