// One autocannon run, in its own process so it can be pinned to its own core.
// Prints the result as JSON on stdout.
import autocannon from 'autocannon'

const options = JSON.parse(process.argv[2])
const result = await autocannon({ ...options, body: options.body ?? undefined })
process.stdout.write(JSON.stringify({
  requests: result.requests,
  latency: result.latency,
  errors: result.errors,
  timeouts: result.timeouts,
  statusCodeStats: result.statusCodeStats,
  duration: result.duration
}))
