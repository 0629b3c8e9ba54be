import { createRequire } from 'node:module'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { THEME_PREFERENCES, type ThemePreference } from '../../shared/theme.js'
import type { CspDirective } from '../security/csp-report.js'
import type { HoneypotErrorCode } from '../security/honeypot.js'
import type { RenderCacheStats } from '../rendering/render-cache.js'
import type { Speculation } from '../http/speculation.js'
import type { Delivery } from '../rendering/render.js'
import { READINESS_STATES, type ReadinessState } from '../plugins/app/readiness.js'

// Required, not imported: an ES import of node:http loads Node's undici at every start (docs/decisions/start-up.md).
const { METHODS } = createRequire(import.meta.url)('node:http') as typeof import('node:http')

// An attacker chooses URLs, methods and report bodies: label values come from fixed lists (docs/decisions/observability.md).

export type CacheOutcome = 'hit' | 'miss' | 'bypass'

export interface DocumentOutcome {
  page: string
  cache: CacheOutcome
  renderSeconds: number
  delivery: Delivery
  /** To the document's head: its headers for a whole document, React's first write for one that waits. */
  headSeconds: number
  lastByteSeconds: number
  failed: boolean
}

export interface MetricsSources {
  renderCache: () => RenderCacheStats
  readiness: () => ReadinessState
}

const KNOWN_METHODS = new Set(METHODS)
const STATUS_CLASSES = ['1xx', '1xx', '2xx', '3xx', '4xx', '5xx']

/** `2xx` for 204; anything outside 100–599 (which Node refuses to send) reads as 5xx. */
export function statusClass (status: number): string {
  return STATUS_CLASSES[Math.floor(status / 100)] ?? '5xx'
}

function knownMethod (method: string): string {
  return KNOWN_METHODS.has(method) ? method : 'other'
}

export class Metrics {
  readonly registry = new Registry()

  // route: a route pattern or NOT_FOUND_ROUTE, never the URL; method: Node's list of methods, else `other`.
  readonly #requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request\'s arrival to the end of its response, by route pattern, method, status class and speculation (Sec-Purpose).',
    labelNames: ['route', 'method', 'status_class', 'speculation'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry]
  })

  readonly #abandoned = new Counter({
    name: 'http_requests_abandoned_total',
    help: 'Requests whose client closed the connection before their response ended (a closed tab, a cancelled speculation, a reload before the page ended), by route pattern, method and speculation. Not in http_request_duration_seconds.',
    labelNames: ['route', 'method', 'speculation'] as const,
    registers: [this.registry]
  })

  // page: a screen id from the registry (src/screens/index.ts), which is declared in code.
  readonly #documents = new Counter({
    name: 'documents_rendered_total',
    help: 'Documents sent, by page id and whether the render cache served them (hit), rendered them (miss; kept once asked for twice) or could not keep them (bypass).',
    labelNames: ['page', 'cache'] as const,
    registers: [this.registry]
  })

  readonly #renderDuration = new Histogram({
    name: 'document_render_duration_seconds',
    help: 'Time from the start of a document\'s render to its first byte (the Server-Timing `render` figure).',
    labelNames: ['cache'] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
    registers: [this.registry]
  })

  readonly #timeToHead = new Histogram({
    name: 'document_head_seconds',
    help: 'Time from the start of a document\'s render to its head leaving, by how it was delivered (whole, held until ready, or streamed).',
    labelNames: ['delivery'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry]
  })

  readonly #timeToLastByte = new Histogram({
    name: 'document_last_byte_seconds',
    help: 'Time from the start of a document\'s render to its last byte, by how it was delivered (whole, held until ready, or streamed).',
    labelNames: ['delivery'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry]
  })

  readonly #renderErrors = new Counter({
    name: 'render_errors_total',
    help: 'Documents whose render failed, by page id: the shell, or a deferred part that failed or reached the time limit (not one whose client left).',
    labelNames: ['page'] as const,
    registers: [this.registry]
  })

  readonly #loadShed = new Counter({
    name: 'load_shed_total',
    help: 'Requests answered 503 because the event loop was behind (load shedding).',
    registers: [this.registry]
  })

  // theme: THEME_PREFERENCES (system, light, dark), the only values the route's schema lets through.
  readonly #themeSwitches = new Counter({
    name: 'theme_switches_total',
    help: 'Theme preferences saved, by the theme chosen.',
    labelNames: ['theme'] as const,
    registers: [this.registry]
  })

  readonly #crossSiteRefusals = new Counter({
    name: 'cross_site_refusals_total',
    help: 'State-changing requests refused because another site sent them, by route pattern.',
    labelNames: ['route'] as const,
    registers: [this.registry]
  })

  readonly #honeypotRejections = new Counter({
    name: 'honeypot_rejections_total',
    help: 'Form posts refused by the honeypot, by reason.',
    labelNames: ['reason'] as const,
    registers: [this.registry]
  })

  readonly #cspReports = new Counter({
    name: 'csp_reports_total',
    help: 'Content-Security-Policy violation reports accepted within the route limits, by the directive violated.',
    labelNames: ['directive'] as const,
    registers: [this.registry]
  })

  constructor (sources: MetricsSources) {
    collectDefaultMetrics({ register: this.registry })
    const stats = sources.renderCache
    // Read from the cache when scraped: the hot path counts with plain numbers. No labels on any of the five.
    new Counter({
      name: 'render_cache_hits_total',
      help: 'Documents served from the render cache.',
      registers: [this.registry],
      collect () { this.reset(); this.inc(stats().hits) }
    })
    new Counter({
      name: 'render_cache_misses_total',
      help: 'Cacheable documents not found in the render cache, so rendered.',
      registers: [this.registry],
      collect () { this.reset(); this.inc(stats().misses) }
    })
    new Counter({
      name: 'render_cache_evictions_total',
      help: 'Documents pushed out of the render cache to make room.',
      registers: [this.registry],
      collect () { this.reset(); this.inc(stats().evictions) }
    })
    new Gauge({
      name: 'render_cache_entries',
      help: 'Documents held in the render cache.',
      registers: [this.registry],
      collect () { this.set(stats().entries) }
    })
    new Gauge({
      name: 'render_cache_chars',
      help: 'Characters held in the render cache, keys included: the figure its bound applies to.',
      registers: [this.registry],
      collect () { this.set(stats().chars) }
    })

    new Gauge({
      name: 'readiness_state',
      help: 'Whether the instance would answer its readiness probe: 1 for the current state (ready, draining, shedding), 0 for the others.',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect () {
        const current = sources.readiness()
        for (const state of READINESS_STATES) this.set({ state }, state === current ? 1 : 0)
      }
    })
    // Every theme shows from the start, so a rate over a never-chosen theme reads 0, not "no data".
    for (const theme of THEME_PREFERENCES) this.#themeSwitches.inc({ theme }, 0)
  }

  observeRequest (route: string, method: string, status: number, seconds: number, speculation: Speculation = 'none'): void {
    this.#requestDuration.observe({ route, method: knownMethod(method), status_class: statusClass(status), speculation }, seconds)
  }

  requestAbandoned (route: string, method: string, speculation: Speculation = 'none'): void {
    this.#abandoned.inc({ route, method: knownMethod(method), speculation })
  }

  documentSent ({ page, cache, renderSeconds, delivery, headSeconds, lastByteSeconds, failed }: DocumentOutcome): void {
    this.#documents.inc({ page, cache })
    this.#renderDuration.observe({ cache }, renderSeconds)
    this.#timeToHead.observe({ delivery }, headSeconds)
    this.#timeToLastByte.observe({ delivery }, lastByteSeconds)
    if (failed) this.#renderErrors.inc({ page })
  }

  loadShed (): void {
    this.#loadShed.inc()
  }

  themeSwitched (theme: ThemePreference): void {
    this.#themeSwitches.inc({ theme })
  }

  crossSiteRefused (route: string): void {
    this.#crossSiteRefusals.inc({ route })
  }

  honeypotRejected (reason: HoneypotErrorCode): void {
    this.#honeypotRejections.inc({ reason })
  }

  cspReported (directive: CspDirective): void {
    this.#cspReports.inc({ directive })
  }
}
