import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { handleErrorPlainly } from '../error-handler.js'
import { clientError } from '../errors.js'
import { bodyTypeOf, readableCharset } from '../http/negotiation.js'
import { MinuteBudget, ReportLog, type ReportLogEntry } from '../security/csp-report-log.js'
import { CSP_REPORT_PATH, CSP_REPORT_TYPES, readLegacyReport, readReportBatch, type CspViolation } from '../security/csp-report.js'

export interface CspReportOptions {
  /** Requests a minute from one client address (the proxy's `X-Forwarded-For` when trusted) before 429. */
  requestsPerClient?: number
  reportsPerMinute?: number
  /** Log lines a minute at most, one per distinct kind of report; the rest are counted. */
  logLinesPerMinute?: number
  logLinesPerClient?: number
  now?: () => number
}

/** Half the app's limit: a browser's batch is a few KiB, and what is parsed is what a report costs in CPU. */
export const CSP_REPORT_BODY_LIMIT = 32 * 1024
const ACCEPTED = new Set<string>(CSP_REPORT_TYPES)
const TYPES_IN_WORDS = 'application/reports+json or application/csp-report'
/** The default key of @fastify/rate-limit: an IPv6 client is its /64, which one household or host holds. */
const IPV6_SUBNET = 64

function violationsOf (request: FastifyRequest): CspViolation[] {
  if (bodyTypeOf(request).type === 'application/reports+json') {
    const batch = readReportBatch(request.body)
    if (batch) return batch
    throw clientError('BAD_REQUEST', 'An application/reports+json body must be a JSON array of reports.')
  }
  const single = readLegacyReport(request.body)
  if (single) return [single]
  throw clientError('BAD_REQUEST', 'An application/csp-report body must be a JSON object with a "csp-report" object.')
}

// A compressed body is refused unread: a few hundred gzip bytes can expand to thousands of reports, and browsers send
// reports uncompressed.
function refuseUnexpected (request: FastifyRequest): Error | undefined {
  const { type, charset } = bodyTypeOf(request)
  if (!ACCEPTED.has(type)) return clientError('FST_ERR_CTP_INVALID_MEDIA_TYPE', `CSP reports are accepted as ${TYPES_IN_WORDS}.`)
  if (!readableCharset(charset)) return clientError('CHARSET_NOT_ACCEPTED', 'CSP reports are read as UTF-8: send them with charset=utf-8 or no charset at all.')
  const encoding = request.headers['content-encoding']
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') return clientError('FST_ERR_CTP_INVALID_MEDIA_TYPE', 'CSP reports are accepted uncompressed, without Content-Encoding.')
  return undefined
}

function unloggedLine (unlogged: NonNullable<ReportLogEntry['unloggedBefore']>, limit: number): string {
  return `${unlogged.repeats + unlogged.overBudget} CSP reports were not logged in the last minute: ${unlogged.repeats} repeated a kind already logged, ${unlogged.overBudget} came past the budget of ${limit} lines`
}

/** Never a page, so no cookie is read or set. */
export const cspReportRoutes = fp<CspReportOptions>(async function cspReportRoutes (app: FastifyInstance, options: CspReportOptions = {}) {
  const { requestsPerClient = 30, reportsPerMinute = 1000, logLinesPerMinute = 30, logLinesPerClient = 5, now } = options
  const overall = new MinuteBudget(reportsPerMinute, now)
  const log = new ReportLog({ linesPerMinute: logLinesPerMinute, linesPerClient: logLinesPerClient }, now)
  // The per-client limit is the library's; the overall one counts reports, not requests (security/csp-report-log.ts).
  await app.register(rateLimit, {
    global: false,
    max: requestsPerClient,
    timeWindow: 60_000,
    ipv6Subnet: IPV6_SUBNET,
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    addHeaders: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false, 'retry-after': true },
    errorResponseBuilder: () => clientError('TOO_MANY_REPORTS', 'Too many CSP reports have come from this address this minute. Retry after the time Retry-After gives.')
  })
  // This scope parses the two report types and nothing else: a form or JSON body is refused unread.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser([...CSP_REPORT_TYPES], { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'))

  app.post(CSP_REPORT_PATH, {
    bodyLimit: CSP_REPORT_BODY_LIMIT,
    compress: false,
    decompress: false,
    // Reports can come in floods: no access log at info, and the warn lines below are capped.
    logLevel: 'warn',
    errorHandler: handleErrorPlainly,
    onRequest: [app.rateLimit(), (request, _reply, done) => { done(refuseUnexpected(request)) }]
  }, (request, reply) => {
    const violations = violationsOf(request)
    if (!overall.take(violations.length)) {
      reply.header('Retry-After', String(overall.secondsLeft()))
      throw clientError('TOO_MANY_REPORTS')
    }
    const client = normalizeIP(request.ip, IPV6_SUBNET)
    for (const violation of violations) {
      // Counted only once accepted: past both budgets, and among the first entries of a body (security/csp-report.ts).
      app.metrics?.cspReported(violation.directive)
      const { fate, unloggedBefore } = log.record(violation, client)
      if (unloggedBefore) request.log.warn({ unlogged: unloggedBefore }, unloggedLine(unloggedBefore, logLinesPerMinute))
      if (fate === 'logged') request.log.warn({ csp: violation }, 'CSP violation')
    }
    reply.code(204).header('Cache-Control', 'no-store').send()
  })
}, { name: 'csp-report-routes', fastify: '5.x', encapsulate: true, dependencies: ['metrics'] })
