// Loaded into the app by the bench (node --import): counts what the render
// cache did for every page sent, from the diagnostics channel sendPage
// publishes on, and answers the bench's IPC question with the counts so far.
// Requests are told apart by their address: `unique=` (asked for once),
// `popular=` (one of a set asked for again and again), or neither.
import { subscribe } from 'node:diagnostics_channel'

const counts = {}

subscribe('agent-stack:page-sent', ({ request, cache }) => {
  const kind = request.url.includes('unique=') ? 'unique' : request.url.includes('popular=') ? 'popular' : 'plain'
  const tally = counts[kind] ??= { hit: 0, miss: 0, bypass: 0 }
  tally[cache]++
})

process.on('message', (message) => {
  if (message === 'page-sent-counts') process.send({ pageSentCounts: structuredClone(counts) })
})
// The IPC channel must not keep a draining app alive.
process.channel?.unref()
