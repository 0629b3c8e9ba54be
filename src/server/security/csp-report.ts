// CSP violation reports (Reporting API batches or legacy `report-uri`). Anyone can post here, so every field is read
// defensively: URLs lose their query (it can carry tokens), samples are cut short, directives come from a fixed list.

export const CSP_REPORT_PATH = '/resources/csp-report'
/** The name the policy's `report-to` and the `Reporting-Endpoints` header share. */
export const CSP_REPORT_GROUP = 'csp-endpoint'

export const CSP_REPORT_TYPES = ['application/reports+json', 'application/csp-report'] as const

/** Entries of a batch read at most: a browser batches a handful, and the rest of a body is neither read nor counted. */
export const REPORTS_PER_BODY = 20

/** Directives a browser can report a violation of (CSP level 3 and Trusted Types); anything else reads `other`. */
const DIRECTIVES = [
  'default-src', 'child-src', 'connect-src', 'font-src', 'frame-src', 'img-src', 'manifest-src', 'media-src',
  'object-src', 'prefetch-src', 'script-src', 'script-src-elem', 'script-src-attr', 'style-src', 'style-src-elem',
  'style-src-attr', 'worker-src', 'fenced-frame-src', 'base-uri', 'form-action', 'frame-ancestors', 'navigate-to',
  'require-trusted-types-for', 'trusted-types', 'webrtc'
] as const

export type CspDirective = typeof DIRECTIVES[number] | 'other'

const KNOWN_DIRECTIVES = new Set<string>(DIRECTIVES)

/** What a blocked resource is called when it is not a URL (CSP3 §5.3 "violation's resource"). */
const BLOCKED_KEYWORDS = new Set(['inline', 'eval', 'wasm-eval', 'trusted-types-policy', 'trusted-types-sink', 'self'])

const SAMPLE_CHARS = 40
const FIELD_CHARS = 200
const UNREADABLE = '(unreadable)'

export interface CspViolation {
  document: string
  directive: CspDirective
  blocked: string
  sample: string
  disposition: 'enforce' | 'report'
}

/** Undefined when the body is not a Reporting API batch; other report types are skipped. */
export function readReportBatch (body: unknown): CspViolation[] | undefined {
  if (!Array.isArray(body)) return undefined
  const violations: CspViolation[] = []
  for (const report of body.slice(0, REPORTS_PER_BODY)) {
    if (!isRecord(report) || report.type !== 'csp-violation' || !isRecord(report.body)) continue
    const { body: fields } = report
    violations.push(violation({
      document: fields.documentURL ?? report.url,
      effectiveDirective: fields.effectiveDirective,
      violatedDirective: undefined,
      blocked: fields.blockedURL,
      sample: fields.sample,
      disposition: fields.disposition
    }))
  }
  return violations
}

export function readLegacyReport (body: unknown): CspViolation | undefined {
  if (!isRecord(body) || !isRecord(body['csp-report'])) return undefined
  const fields = body['csp-report']
  return violation({
    document: fields['document-uri'],
    effectiveDirective: fields['effective-directive'],
    violatedDirective: fields['violated-directive'],
    blocked: fields['blocked-uri'],
    sample: fields['script-sample'],
    disposition: fields.disposition
  })
}

interface RawViolation {
  document: unknown
  effectiveDirective: unknown
  violatedDirective: unknown
  blocked: unknown
  sample: unknown
  disposition: unknown
}

function violation (raw: RawViolation): CspViolation {
  return {
    document: documentPath(raw.document),
    // Older browsers send only violated-directive, with its sources after the name ("script-src 'self'").
    directive: directiveOf(raw.effectiveDirective) ?? directiveOf(firstWord(raw.violatedDirective)) ?? 'other',
    blocked: blockedOf(raw.blocked),
    sample: typeof raw.sample === 'string' ? cut(raw.sample, SAMPLE_CHARS) : '',
    disposition: raw.disposition === 'report' ? 'report' : 'enforce'
  }
}

function directiveOf (value: unknown): CspDirective | undefined {
  if (typeof value !== 'string') return undefined
  const name = value.toLowerCase()
  return KNOWN_DIRECTIVES.has(name) ? name as CspDirective : undefined
}

function firstWord (value: unknown): string | undefined {
  return typeof value === 'string' ? value.trim().split(/\s/, 1)[0] : undefined
}

function documentPath (value: unknown): string {
  const url = parseUrl(value)
  return url ? cut(url.pathname, FIELD_CHARS) : UNREADABLE
}

function blockedOf (value: unknown): string {
  if (typeof value !== 'string' || value === '') return ''
  if (BLOCKED_KEYWORDS.has(value)) return value
  const url = parseUrl(value)
  if (!url) return UNREADABLE
  // data:, blob: and the like carry content, not a place: the scheme says enough.
  return cut(url.origin === 'null' ? url.protocol : url.origin, FIELD_CHARS)
}

function parseUrl (value: unknown): URL | undefined {
  if (typeof value !== 'string' || value.length > 8192) return undefined
  try {
    return new URL(value)
  } catch {
    return undefined
  }
}

function cut (text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars)}…` : text
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
