// The load generator: autocannon in a process of its own, pinned to its own
// core, that stays up for the whole bench or soak. A fresh process per run
// would spend the start of every run compiling autocannon, which in short
// runs holds the generator back. Takes autocannon's options as IPC messages
// and answers each with the run's result (or its error).
import autocannon from 'autocannon'

let runs = 0

/**
 * The addresses of a run, when they vary: `unique`, a new query string on
 * every request (each one renders); `mixed`, a share of those among requests
 * for a fixed set of popular addresses, each unique one asked for `uniqueAsks`
 * times in a row (an attacker asking twice to get past admission).
 */
function addressesFor ({ path, addresses }) {
  if (!addresses) return undefined
  const prefix = `${process.pid.toString(36)}-${(++runs).toString(36)}`
  let count = 0
  let asksLeft = 0
  const unique = () => {
    if (asksLeft === 0) {
      count++
      asksLeft = addresses.uniqueAsks ?? 1
    }
    asksLeft--
    return `${path}?unique=${prefix}-${count.toString(36)}`
  }
  const next = addresses.kind === 'unique'
    ? unique
    : () => Math.random() < addresses.uniqueShare ? unique() : `${path}?popular=${Math.floor(Math.random() * addresses.popular)}`
  return [{ setupRequest: (request) => ({ ...request, path: next() }) }]
}

process.on('message', async ({ addresses, path, ...options }) => {
  try {
    const result = await autocannon({ ...options, body: options.body ?? undefined, requests: addressesFor({ path, addresses }) })
    process.send({
      requests: result.requests,
      latency: result.latency,
      errors: result.errors,
      timeouts: result.timeouts,
      statusCodeStats: result.statusCodeStats,
      duration: result.duration
    })
  } catch (error) {
    process.send({ error: error.message })
  }
})
process.on('disconnect', () => process.exit(0))
