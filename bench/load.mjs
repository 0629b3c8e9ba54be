// The load generator: autocannon in a process of its own, pinned to its own
// core, that stays up for the whole bench or soak. A fresh process per run
// would spend the start of every run compiling autocannon, which in short
// runs holds the generator back. Takes autocannon's options as IPC messages
// and answers each with the run's result (or its error).
import autocannon from 'autocannon'

process.on('message', async (options) => {
  try {
    const result = await autocannon({ ...options, body: options.body ?? undefined })
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
