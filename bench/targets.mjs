// How the bench turns rounds into figures and judges them against targets:
// pure, so test/bench checks it directly.

/** The targets of issue 27, by measure; the bench prints each against its figure. */
export const TARGETS = {
  /** Shares of the ceiling's requests/s. */
  cachedPage: 0.5,
  renderedPerRequest: 0.2,
  healthCheck: 0.8,
  themeSwitch: 0.8,
  /** A page whose data takes a second, streamed: when its head arrives, at this many connections. */
  timeToHead: { connections: 50, p50Ms: 20, p99Ms: 100 },
  /** Server CPU per streamed request over the same page rendered whole, at most. */
  streamCost: 1.3,
  /** Median of ten starts, from spawn to the first 200 from the readiness probe. */
  startupMs: 250,
  /** gzip as served: the shell (package.json's config.initialJavaScriptBudgetKiB, which the size test enforces) and the shell with the heaviest page. */
  javascript: { shellKiB: 70, withHeaviestPageKiB: 72 },
  /** Lighthouse's score in each of its categories, for every page, mobile and desktop (npm run lighthouse). */
  lighthouseScore: 100
}

export function median (values) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/**
 * App ÷ ceiling from interleaved rounds. Each round's app run and the ceiling
 * run next to it share the machine's state of the moment: the ratio of each
 * pair, then their median, cancels drift that medians taken apart would not.
 */
export function pairedRatio (appRps, ceilingRps) {
  if (appRps.length === 0 || appRps.length !== ceilingRps.length) throw new Error('pairedRatio needs one ceiling run per app run')
  return median(appRps.map((rps, round) => rps / ceilingRps[round]))
}

/** When the generator saturates its core while the server still has room, the number is the generator's. */
export const generatorBound = (summary) => summary.generatorCpu >= 0.9 && summary.serverCpu < 0.85

/**
 * A ceiling held back by the generator reads low, which makes the app's share
 * read high: a ratio at or above the target then proves nothing (`unproven`).
 * Below the target it is a miss all the same.
 */
export function targetStatus (ratio, target, appSummary, ceilingGeneratorBound) {
  if (appSummary.errors > 0 || appSummary.badStatus > 0 || ratio < target) return 'missed'
  return ceilingGeneratorBound ? 'unproven' : 'met'
}

const OUTCOMES = ['hit', 'miss', 'bypass']
const emptyTally = () => ({ hit: 0, miss: 0, bypass: 0 })

/** What a tally of page outcomes ({ hit, miss, bypass }) says: the share served from the render cache, or null without pages. */
export function hitRatio (tally) {
  const total = tally.hit + tally.miss + tally.bypass
  return total === 0 ? null : tally.hit / total
}

/**
 * Tallies by kind of address ({ plain|popular|unique: tally }) combined:
 * `sign` 1 adds `other` to `base`, -1 takes it away (the counts of one
 * route's runs are the probe's counts after them less those before).
 */
export function combineTallies (base, other, sign = 1) {
  const result = structuredClone(base)
  for (const [kind, tally] of Object.entries(other)) {
    const into = result[kind] ??= emptyTally()
    for (const outcome of OUTCOMES) into[outcome] += sign * tally[outcome]
  }
  return result
}

/** Every kind of address in one tally. */
export function totalTally (kinds) {
  const total = emptyTally()
  for (const tally of Object.values(kinds)) for (const outcome of OUTCOMES) total[outcome] += tally[outcome]
  return total
}

/** Start-up is judged on the median of its runs, against an upper bound in milliseconds. */
export function startupStatus (readyMs, targetMs) {
  return median(readyMs) <= targetMs ? 'met' : 'missed'
}

/**
 * What a variant of a route (the same requests to the app with metrics on)
 * costs over the plain app, in CPU microseconds per request: the median of
 * each round's difference, so both sides of a round share the machine's state.
 */
export function pairedCost (variantMicros, baseMicros) {
  if (variantMicros.length === 0 || variantMicros.length !== baseMicros.length) throw new Error('pairedCost needs one base run per variant run')
  return median(variantMicros.map((micros, round) => micros - baseMicros[round]))
}

/**
 * Whether memory held flat over the rounds. Resident memory saws up and down
 * as the heap fills and is collected, and settles where collection keeps
 * pace, so one reading says little; a leak raises the peaks round after
 * round. The first third is the warm-up: V8 grows its heap to the load then,
 * and the resident size with it (docs/performance.md, "What the memory check
 * reads"). Flat: the highest reading of the last third is at most 10 % (and
 * 8 MiB) above the highest of the middle third.
 */
export function memoryFlat (rssMiB) {
  const third = Math.max(1, Math.floor(rssMiB.length / 3))
  const middlePeak = Math.max(...rssMiB.slice(third, -third))
  const lastPeak = Math.max(...rssMiB.slice(-third))
  return lastPeak <= Math.max(middlePeak * 1.1, middlePeak + 8)
}

/** The value at or below which `share` (0–1) of `values` lie, by nearest rank: p99 of 200 readings is the 198th. */
export function percentile (values, share) {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(share * sorted.length))) - 1]
}

/** The share of a bare Node http server that the ceiling must reach (issue 27): below it, the run is void. */
export const CEILING_SHARE_OF_BARE = 0.9

/**
 * Whether the ceiling was a ceiling. `ceiling` and `bare` map each of the two
 * connection counts to the requests/s measured there (the Fastify replay and
 * Node's own http server replaying the same bytes, from the same generator).
 * Each side is taken at its better count (returned, so that the run can
 * report each server's CPU there), so that neither is held back by
 * too few connections; a ceiling below CEILING_SHARE_OF_BARE of the bare
 * server leaves the ratios measured against it without a floor: the run is void.
 */
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

/** Time to head of a streamed page: both percentiles under their bounds, and every request answered. */
export function timeToHeadStatus ({ p50, p99, errors, badStatus }, target) {
  if (p50 === null || errors > 0 || badStatus > 0) return 'missed'
  return p50 < target.p50Ms && p99 < target.p99Ms ? 'met' : 'missed'
}

/** The CPU a streamed request costs over the same page rendered whole, from interleaved rounds: a ratio at most `max` meets it. */
export function streamCostStatus (streamedMicros, wholeMicros, max) {
  const ratio = pairedRatio(streamedMicros, wholeMicros)
  return { ratio, status: ratio <= max ? 'met' : 'missed' }
}

/** The first JavaScript against its two budgets, in KiB gzip: the shell alone, and the shell with the heaviest page's chunks. */
export function javascriptStatus ({ shellKiB, withHeaviestPageKiB }, budgets) {
  return shellKiB <= budgets.shellKiB && withHeaviestPageKiB <= budgets.withHeaviestPageKiB ? 'met' : 'missed'
}

/**
 * The run's verdict: `void` when any route's ceiling check failed (its
 * figures say nothing about the targets), else `met` when every status is,
 * else `missed`.
 */
export function runVerdict (ceilingChecks, statuses) {
  if (ceilingChecks.some((check) => !check.valid)) return 'void'
  return statuses.every((status) => status === 'met') ? 'met' : 'missed'
}

/**
 * The site's pages as a visitor reaches them from `html` (a page at `from`): the same-origin links it holds, as
 * paths, without a query or fragment, never a resource (`/resources/…`, an action or an endpoint) or an asset.
 */
export function linkedPages (html, from) {
  const pages = new Set()
  for (const [, href] of html.matchAll(/<a [^>]*href="([^"]+)"/g)) {
    const url = new URL(href.replaceAll('&amp;', '&'), from)
    if (url.origin !== new URL(from).origin || /^\/(resources|assets)\//.test(url.pathname) || /\.[a-z0-9]+$/i.test(url.pathname)) continue
    pages.add(url.pathname)
  }
  return [...pages]
}

/** Each Lighthouse report's categories below `target` ({ page, formFactor, category, score }); none means met. */
export function lighthouseShortfalls (reports, target) {
  return reports.flatMap(({ page, formFactor, scores }) => Object.entries(scores)
    .filter(([, score]) => score < target)
    .map(([category, score]) => ({ page, formFactor, category, score })))
}
