// How the bench turns rounds into figures and judges them against targets:
// pure, so test/bench checks it directly.

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
 * round. Flat: the highest reading of the last third is at most 10 % (and
 * 8 MiB) above the highest of the first third.
 */
export function memoryFlat (rssMiB) {
  const third = Math.max(1, Math.floor(rssMiB.length / 3))
  const firstPeak = Math.max(...rssMiB.slice(0, third))
  const lastPeak = Math.max(...rssMiB.slice(-third))
  return lastPeak <= Math.max(firstPeak * 1.1, firstPeak + 8)
}
