// One log line per kind of violation a minute, with a share per client, so a flood of decoys cannot push a real
// report out of the log. The per-client request budget is @fastify/rate-limit's (routes/csp-report.ts).
import type { CspViolation } from './csp-report.js'

const MINUTE = 60_000

/** A fixed one-minute window of `limit` units: all of a `take` fits, or none of it. */
export class MinuteBudget {
  readonly #limit: number
  readonly #now: () => number
  #windowStart = -Infinity
  #used = 0

  constructor (limit: number, now: () => number = Date.now) {
    this.#limit = limit
    this.#now = now
  }

  take (units: number): boolean {
    this.#roll()
    if (this.#used + units > this.#limit) return false
    this.#used += units
    return true
  }

  secondsLeft (): number {
    return Math.max(1, Math.ceil((this.#windowStart + MINUTE - this.#now()) / 1000))
  }

  #roll (): void {
    const now = this.#now()
    if (now - this.#windowStart < MINUTE) return
    this.#windowStart = now
    this.#used = 0
  }
}

export interface ReportLogLimits {
  linesPerMinute: number
  linesPerClient: number
}

export type ReportFate = 'logged' | 'repeat' | 'over-budget'

export interface ReportLogEntry {
  fate: ReportFate
  /** Reports the minute that has just ended did not log, handed back once with the next minute's first report. */
  unloggedBefore: { repeats: number, overBudget: number } | undefined
}

/** The kind a report is sampled by: what was broken, by what, where. The sample text is left out, it varies freely. */
function kindOf (violation: CspViolation): string {
  return JSON.stringify([violation.directive, violation.blocked, violation.document, violation.disposition])
}

export class ReportLog {
  readonly #limits: ReportLogLimits
  readonly #now: () => number
  #windowStart = -Infinity
  #kinds = new Set<string>()
  #linesByClient = new Map<string, number>()
  #repeats = 0
  #overBudget = 0

  constructor (limits: ReportLogLimits, now: () => number = Date.now) {
    this.#limits = limits
    this.#now = now
  }

  record (violation: CspViolation, client: string): ReportLogEntry {
    const unloggedBefore = this.#roll()
    const kind = kindOf(violation)
    if (this.#kinds.has(kind)) {
      this.#repeats++
      return { fate: 'repeat', unloggedBefore }
    }
    const clientLines = this.#linesByClient.get(client) ?? 0
    if (this.#kinds.size >= this.#limits.linesPerMinute || clientLines >= this.#limits.linesPerClient) {
      this.#overBudget++
      return { fate: 'over-budget', unloggedBefore }
    }
    this.#kinds.add(kind)
    this.#linesByClient.set(client, clientLines + 1)
    return { fate: 'logged', unloggedBefore }
  }

  #roll (): ReportLogEntry['unloggedBefore'] {
    const now = this.#now()
    if (now - this.#windowStart < MINUTE) return undefined
    const unlogged = this.#repeats + this.#overBudget > 0 ? { repeats: this.#repeats, overBudget: this.#overBudget } : undefined
    this.#windowStart = now
    this.#kinds = new Set()
    this.#linesByClient = new Map()
    this.#repeats = 0
    this.#overBudget = 0
    return unlogged
  }
}
