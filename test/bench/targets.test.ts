import t from 'tap'
import { CEILING_SHARE_OF_BARE, ceilingCheck, combineTallies, generatorBound, hitRatio, javascriptStatus, lighthouseShortfalls, linkedPages, median, memoryFlat, pairedCost, pairedRatio, percentile, runVerdict, startupStatus, streamCostStatus, TARGETS, targetStatus, timeToHeadStatus, totalTally } from '../../bench/targets.mjs'

const clean = { errors: 0, badStatus: 0 }

t.test('the median of an odd count is the middle value, of an even count the mean of the two middle ones', async (t) => {
  t.equal(median([5, 1, 3]), 3)
  t.equal(median([4, 1, 3, 2]), 2.5)
})

t.test('the ratio is the median of each round\'s app ÷ ceiling pair, not one median over the other', async (t) => {
  // The machine slows down in round 2 for both servers: the pair still reads 0.8.
  const app = [80, 40, 80]
  const ceiling = [100, 50, 100]
  t.equal(pairedRatio(app, ceiling), 0.8)
  // Medians taken apart would divide round 2's app (80) by round 3's ceiling (60): 1.33.
  t.equal(pairedRatio([40, 80, 90], [50, 100, 60]), 0.8)
  t.throws(() => pairedRatio([1, 2], [1]), /one ceiling run per app run/)
  t.throws(() => pairedRatio([], []), /one ceiling run per app run/)
})

t.test('a server is generator-bound when the generator\'s core is saturated and the server\'s is not', async (t) => {
  t.equal(generatorBound({ generatorCpu: 0.95, serverCpu: 0.6 }), true)
  t.equal(generatorBound({ generatorCpu: 0.95, serverCpu: 0.95 }), false, 'both saturated: the server is the limit')
  t.equal(generatorBound({ generatorCpu: 0.7, serverCpu: 0.6 }), false)
})

t.test('a target is met only by a clean run at or above it, measured against a ceiling the generator did not hold back', async (t) => {
  t.equal(targetStatus(0.85, 0.8, clean, false), 'met')
  t.equal(targetStatus(0.8, 0.8, clean, false), 'met', 'the target itself counts')
  t.equal(targetStatus(0.79, 0.8, clean, false), 'missed')
  t.equal(targetStatus(0.85, 0.8, clean, true), 'unproven', 'a held-back ceiling flatters the app')
  t.equal(targetStatus(0.7, 0.8, clean, true), 'missed', 'below the target even so')
  t.equal(targetStatus(0.9, 0.8, { errors: 1, badStatus: 0 }, false), 'missed')
  t.equal(targetStatus(0.9, 0.8, { errors: 0, badStatus: 3 }, false), 'missed')
})

t.test('the hit ratio is the share of pages served from the render cache, bypasses included, and none without pages', async (t) => {
  t.equal(hitRatio({ hit: 3, miss: 1, bypass: 0 }), 0.75)
  t.equal(hitRatio({ hit: 1, miss: 1, bypass: 2 }), 0.25, 'a page never cacheable counts as not served from the cache')
  t.equal(hitRatio({ hit: 0, miss: 0, bypass: 0 }), null, 'a route that sends no page (a redirect, a probe) has no ratio')
})

t.test('one route\'s counts are the probe\'s counts after its runs less those before, by kind of address', async (t) => {
  const before = { plain: { hit: 5, miss: 2, bypass: 0 } }
  const after = { plain: { hit: 9, miss: 2, bypass: 0 }, unique: { hit: 0, miss: 7, bypass: 0 } }
  const run = combineTallies(after, before, -1)
  t.same(run, { plain: { hit: 4, miss: 0, bypass: 0 }, unique: { hit: 0, miss: 7, bypass: 0 } })
  t.same(combineTallies(run, run), { plain: { hit: 8, miss: 0, bypass: 0 }, unique: { hit: 0, miss: 14, bypass: 0 } }, 'and runs add up')
  t.same(totalTally(run), { hit: 4, miss: 7, bypass: 0 })
})

t.test('start-up is met when the median of its runs is within the bound', async (t) => {
  t.equal(startupStatus([240, 900, 230, 250, 245], 250), 'met', 'one slow start does not decide')
  t.equal(startupStatus([260, 240, 270], 250), 'missed')
})

t.test('a variant\'s cost is the median of each round\'s difference in CPU per request', async (t) => {
  // Round 2 is slow for both: its difference is still 4 µs.
  t.equal(pairedCost([54, 84, 55], [50, 80, 50]), 4)
  t.equal(pairedCost([50, 49], [50, 50]), -0.5, 'noise can read as a saving')
  t.throws(() => pairedCost([1], []), /one base run per variant run/)
})

t.test('memory is flat when its peaks hold: the sawtooth of garbage collection, or a level it settles at, is not growth', async (t) => {
  // Two bench runs on a quiet machine: collected every eight rounds or so, and settled after a deep collection.
  const sawtooth = [112.6, 114.4, 131.8, 135.8, 137.9, 140.4, 142.9, 146, 101.7, 111.8, 114.6, 117.7, 120, 124.5, 127.3, 130.5, 133.4, 135.8, 138.8, 141, 144.5, 147.8, 151.2, 96.4, 102.8, 113.3, 115, 117.4, 118, 132.1]
  t.equal(memoryFlat(sawtooth), true, 'its last reading is above its first, its peaks are not')
  const settled = [123.4, 130.1, 133.2, 136.6, 139.5, 142.5, 145.9, 149.5, 101.8, 111.5, 114, 116.6, 119.3, 132.5, 133, 132.3, 132.5, 132.6, 132.5, 132.5, 132.4, 132.5, 132.5, 132.5, 132.7, 132.6, 132.6, 132.7, 132, 132.2]
  t.equal(memoryFlat(settled), true, 'its floor rose from a deep collection to where it settled')
  // A run of 2026-11-27: V8 grew its heap to the load in the first rounds (the heap kept after collections held flat).
  const sized = [143.8, 159.9, 159.6, 159.1, 159.3, 190, 192.3, 192.4, 192.5, 192.4, 193.2, 230.7, 249.1, 250.9, 254.7, 257.5, 260.2, 260.6, 261, 260.5, 260.7, 260.8, 266.8, 267, 267.7, 267.8, 267.7, 267.8, 267.6, 268.1]
  t.equal(memoryFlat(sized), true, 'the first third is the warm-up: growth there is V8 sizing its heap')
  const leaking = [100, 120, 140, 115, 135, 155, 135, 155, 175]
  t.equal(memoryFlat(leaking), false, 'each collection leaves more behind: peaks 140 → 155 → 175 MiB')
  t.equal(memoryFlat([100, 100, 100, 100, 100, 100, 107, 109, 108]), true, 'within 8 MiB')
  t.equal(memoryFlat([300, 300, 300, 300, 300, 300, 328, 329, 330]), true, 'within 10 %')
  t.equal(memoryFlat([300, 300, 300, 300, 300, 300, 331, 335, 340]), false)
  t.equal(memoryFlat([100, 150, 200, 300, 300, 300, 300, 300, 300]), true, 'however much it grew while warming up')
})

t.test('the targets are issue 27\'s table', async (t) => {
  t.same(
    [TARGETS.cachedPage, TARGETS.renderedPerRequest, TARGETS.healthCheck, TARGETS.themeSwitch],
    [0.5, 0.2, 0.8, 0.8],
    'shares of the ceiling: cached GET /, a page rendered per request, the health check, the theme switch'
  )
  t.same(TARGETS.timeToHead, { connections: 50, p50Ms: 20, p99Ms: 100 })
  t.equal(TARGETS.streamCost, 1.3)
  t.equal(TARGETS.startupMs, 250)
  t.same(TARGETS.javascript, { shellKiB: 70, withHeaviestPageKiB: 72 })
})

t.test('a percentile is read by nearest rank, and none without readings', async (t) => {
  const hundred = Array.from({ length: 100 }, (_, index) => 100 - index)
  t.equal(percentile(hundred, 0.5), 50)
  t.equal(percentile(hundred, 0.99), 99, 'the 99th of 100, whatever order they came in')
  t.equal(percentile([7], 0.99), 7)
  t.equal(percentile([3, 1, 2], 0), 1, 'the lowest, not an index before it')
  t.equal(percentile([], 0.5), null)
})

t.test('a ceiling short of 90 % of bare Node http, each at its better connection count, voids the run', async (t) => {
  t.equal(CEILING_SHARE_OF_BARE, 0.9)
  const close = ceilingCheck({ 16: 30_000, 64: 45_000 }, { 16: 40_000, 64: 48_000 })
  t.same(close, { bestCeiling: 45_000, bestBare: 48_000, ceilingConnections: 64, bareConnections: 64, share: 45_000 / 48_000, valid: true }, 'the better count of each side counts')
  t.equal(ceilingCheck({ 16: 27_000, 64: 27_000 }, { 16: 40_000, 64: 52_000 }).valid, false, 'a ceiling at half of what Node can do is no ceiling')
  const crossed = ceilingCheck({ 16: 45_000, 64: 30_000 }, { 16: 46_000, 64: 50_000 })
  t.equal(crossed.valid, true, 'at 90 % exactly')
  t.same([crossed.ceilingConnections, crossed.bareConnections], [16, 64], 'each side at its own better count, which the run reports CPU at')
  t.throws(() => ceilingCheck({ 64: 45_000 }, { 64: 48_000 }), /same two connection counts/)
  t.throws(() => ceilingCheck({ 16: 1, 64: 1 }, { 16: 1, 32: 1 }), /same two connection counts/)
})

t.test('a streamed page\'s head is on time when both percentiles are under their bounds and every request was answered', async (t) => {
  const target = TARGETS.timeToHead
  t.equal(timeToHeadStatus({ p50: 5, p99: 60, errors: 0, badStatus: 0 }, target), 'met')
  t.equal(timeToHeadStatus({ p50: 20, p99: 60, errors: 0, badStatus: 0 }, target), 'missed', 'under, not at')
  t.equal(timeToHeadStatus({ p50: 5, p99: 100, errors: 0, badStatus: 0 }, target), 'missed')
  t.equal(timeToHeadStatus({ p50: 5, p99: 60, errors: 1, badStatus: 0 }, target), 'missed', 'a request that failed has no head to time')
  t.equal(timeToHeadStatus({ p50: 5, p99: 60, errors: 0, badStatus: 2 }, target), 'missed')
  t.equal(timeToHeadStatus({ p50: null, p99: null, errors: 0, badStatus: 0 }, target), 'missed', 'no reading is no pass')
})

t.test('streaming\'s CPU cost is the median of each round\'s streamed ÷ whole, at most the bound', async (t) => {
  // Round 2 is slow for both: its pair still reads 1.2.
  t.same(streamCostStatus([120, 240, 130], [100, 200, 100], TARGETS.streamCost), { ratio: 1.2, status: 'met' })
  t.equal(streamCostStatus([130], [100], 1.3).status, 'met', 'the bound itself counts')
  t.equal(streamCostStatus([140, 150], [100, 100], 1.3).status, 'missed')
  t.throws(() => streamCostStatus([1, 2], [1], 1.3), /one ceiling run per app run/)
})

t.test('the first JavaScript meets its budgets only when the shell and the shell with the heaviest page both do', async (t) => {
  const budgets = TARGETS.javascript
  t.equal(javascriptStatus({ shellKiB: 69.2, withHeaviestPageKiB: 71.6 }, budgets), 'met')
  t.equal(javascriptStatus({ shellKiB: 70, withHeaviestPageKiB: 72 }, budgets), 'met', 'the budgets themselves count')
  t.equal(javascriptStatus({ shellKiB: 70.1, withHeaviestPageKiB: 70.1 }, budgets), 'missed', 'a heavy shell, even with no page beside it')
  t.equal(javascriptStatus({ shellKiB: 69.2, withHeaviestPageKiB: 72.1 }, budgets), 'missed', 'a page with a form that pushes past 72')
})

t.test('a run is void when a ceiling check failed, whatever its figures; else met only when every target is', async (t) => {
  const valid = { valid: true }
  t.equal(runVerdict([valid, valid], ['met', 'met']), 'met')
  t.equal(runVerdict([valid, valid], ['met', 'missed']), 'missed')
  t.equal(runVerdict([valid], ['met', 'unproven']), 'missed', 'an unproven ratio is not a met one')
  t.equal(runVerdict([valid, { valid: false }], ['met', 'met']), 'void', 'figures against no real ceiling prove nothing')
  t.equal(runVerdict([], ['met']), 'met', 'a run that measured no route (BENCH_ONLY) has no ceiling to check')
})

t.test('npm run lighthouse audits the pages a visitor reaches by links: same-origin paths, never a resource or an asset', async (t) => {
  const html = '<a href="/examples">x</a><a href="/examples/streaming?delay=5000&amp;fail=1">x</a><a href="form#top">x</a>' +
    '<a href="https://example.com/elsewhere">x</a><a href="/resources/theme-switch">x</a><a href="/assets/entry-1.js">x</a><a href="/favicon.svg">x</a><a class="x" href="/">x</a>'
  t.same(linkedPages(html, 'http://127.0.0.1:3000/examples/'), ['/examples', '/examples/streaming', '/examples/form', '/'])
})

t.test('a Lighthouse category under the target is named with its page and form factor', async (t) => {
  const reports = [
    { page: '/', formFactor: 'mobile', scores: { performance: 100, seo: 100 } },
    { page: '/examples', formFactor: 'mobile', scores: { performance: 99, seo: 100 } }
  ]
  t.same(lighthouseShortfalls(reports, 100), [{ page: '/examples', formFactor: 'mobile', category: 'performance', score: 99 }])
  t.same(lighthouseShortfalls(reports.slice(0, 1), 100), [], 'none: met')
})
