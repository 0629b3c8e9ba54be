// Pure, so test/bench checks it directly.

/** The targets of issue 27. */
export const TARGETS = {
  /** Shares of the ceiling's requests/s. */
  cachedPage: 0.5,
  renderedPerRequest: 0.2,
  healthCheck: 0.8,
  themeSwitch: 0.8,
  /** A page whose data takes a second, streamed: when its head arrives. */
  timeToHead: { connections: 50, p50Ms: 20, p99Ms: 100 },
  /** Server CPU per streamed request over the same page rendered whole, at most. */
  streamCost: 1.3,
  /** Median of ten starts, from spawn to the first 200 from the readiness probe. */
  startupMs: 250,
  /** gzip as served; the size test enforces package.json's config.initialJavaScriptBudgetKiB. */
  javascript: { shellKiB: 70, withHeaviestPageKiB: 72 },
  /** Every category, page and form factor (npm run lighthouse). */
  lighthouseScore: 100
}

export function median (values) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/** The median of each pair's ratio: the two runs of a pair share the machine's state, which cancels drift. */
export function pairedRatio (appRps, ceilingRps) {
  if (appRps.length === 0 || appRps.length !== ceilingRps.length) throw new Error('pairedRatio needs one ceiling run per app run')
  return median(appRps.map((rps, round) => rps / ceilingRps[round]))
}

/** When the generator saturates its core while the server still has room, the number is the generator's. */
export const generatorBound = (summary) => summary.generatorCpu >= 0.9 && summary.serverCpu < 0.85

/** A generator-bound ceiling reads low and the app's share high: a ratio at or above the target proves nothing. */
export function targetStatus (ratio, target, appSummary, ceilingGeneratorBound) {
  if (appSummary.errors > 0 || appSummary.badStatus > 0 || ratio < target) return 'missed'
  return ceilingGeneratorBound ? 'unproven' : 'met'
}

const OUTCOMES = ['hit', 'miss', 'bypass']
const emptyTally = () => ({ hit: 0, miss: 0, bypass: 0 })

export function hitRatio (tally) {
  const total = tally.hit + tally.miss + tally.bypass
  return total === 0 ? null : tally.hit / total
}

/** `sign` -1 takes `other` away: a route's counts are the probe's after its runs less those before. */
export function combineTallies (base, other, sign = 1) {
  const result = structuredClone(base)
  for (const [kind, tally] of Object.entries(other)) {
    const into = result[kind] ??= emptyTally()
    for (const outcome of OUTCOMES) into[outcome] += sign * tally[outcome]
  }
  return result
}

export function totalTally (kinds) {
  const total = emptyTally()
  for (const tally of Object.values(kinds)) for (const outcome of OUTCOMES) total[outcome] += tally[outcome]
  return total
}

export function startupStatus (readyMs, targetMs) {
  return median(readyMs) <= targetMs ? 'met' : 'missed'
}

/** The median of each round's difference, so both sides of a round share the machine's state. */
export function pairedCost (variantMicros, baseMicros) {
  if (variantMicros.length === 0 || variantMicros.length !== baseMicros.length) throw new Error('pairedCost needs one base run per variant run')
  return median(variantMicros.map((micros, round) => micros - baseMicros[round]))
}

/** A leak raises the peaks round after round; the first third is V8 growing its heap (docs/performance.md, "What the
 * memory check reads"). */
export function memoryFlat (rssMiB) {
  const third = Math.max(1, Math.floor(rssMiB.length / 3))
  const middlePeak = Math.max(...rssMiB.slice(third, -third))
  const lastPeak = Math.max(...rssMiB.slice(-third))
  return lastPeak <= Math.max(middlePeak * 1.1, middlePeak + 8)
}

/** By nearest rank: p99 of 200 readings is the 198th. */
export function percentile (values, share) {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(share * sorted.length))) - 1]
}

/** Of a bare Node http server, which the ceiling must reach (issue 27). */
export const CEILING_SHARE_OF_BARE = 0.9

/** Each side at its better connection count, so neither is held back by too few; below CEILING_SHARE_OF_BARE, the
 * ratios against the ceiling have no floor: the run is void. */
export function ceilingCheck (ceiling, bare) {
  const counts = Object.keys(ceiling)
  if (counts.length < 2 || counts.some((count) => !(count in bare))) throw new Error('ceilingCheck needs both servers at the same two connection counts')
  const better = (readings) => counts.reduce((best, count) => readings[count] > readings[best] ? count : best)
  const ceilingConnections = better(ceiling)
  const bareConnections = better(bare)
  const bestCeiling = ceiling[ceilingConnections]
  const bestBare = bare[bareConnections]
  const share = bestCeiling / bestBare
  return { bestCeiling, bestBare, ceilingConnections: Number(ceilingConnections), bareConnections: Number(bareConnections), share, valid: share >= CEILING_SHARE_OF_BARE }
}

export function timeToHeadStatus ({ p50, p99, errors, badStatus }, target) {
  if (p50 === null || errors > 0 || badStatus > 0) return 'missed'
  return p50 < target.p50Ms && p99 < target.p99Ms ? 'met' : 'missed'
}

export function streamCostStatus (streamedMicros, wholeMicros, max) {
  const ratio = pairedRatio(streamedMicros, wholeMicros)
  return { ratio, status: ratio <= max ? 'met' : 'missed' }
}

export function javascriptStatus ({ shellKiB, withHeaviestPageKiB }, budgets) {
  return shellKiB <= budgets.shellKiB && withHeaviestPageKiB <= budgets.withHeaviestPageKiB ? 'met' : 'missed'
}

/** `void` when any ceiling check failed: the figures then say nothing about the targets. */
export function runVerdict (ceilingChecks, statuses) {
  if (ceilingChecks.some((check) => !check.valid)) return 'void'
  return statuses.every((status) => status === 'met') ? 'met' : 'missed'
}

/** Same-origin pages linked from `html`, as paths: never a resource (an action or an endpoint) or an asset. */
export function linkedPages (html, from) {
  const pages = new Set()
  for (const [, href] of html.matchAll(/<a [^>]*href="([^"]+)"/g)) {
    const url = new URL(href.replaceAll('&amp;', '&'), from)
    if (url.origin !== new URL(from).origin || /^\/(resources|assets)\//.test(url.pathname) || /\.[a-z0-9]+$/i.test(url.pathname)) continue
    pages.add(url.pathname)
  }
  return [...pages]
}

export function lighthouseShortfalls (reports, target) {
  return reports.flatMap(({ page, formFactor, scores }) => Object.entries(scores)
    .filter(([, score]) => score < target)
    .map(([category, score]) => ({ page, formFactor, category, score })))
}
