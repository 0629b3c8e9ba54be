// Loaded into the app by the bench (node --import): over IPC, the render cache's outcomes as Server-Timing tells them,
// by kind of address (`unique=` asked for once, `popular=` one of a set asked again and again, or neither), and
// process.cpuUsage(), finer than /proc's 10 ms ticks.
import { ServerResponse } from 'node:http'

const counts = {}
const OUTCOME = /\bcache;desc=(hit|miss|bypass)\b/

// It runs on every answer the app sends, and the ceiling pays nothing like it: so no rest parameters and no closure.
// Fastify hands writeHead all of a reply's headers; an answer written by hand may have set them before.
const writeHead = ServerResponse.prototype.writeHead
ServerResponse.prototype.writeHead = function (status, reason, headers) {
  const given = typeof reason === 'object' ? reason : headers
  const timing = given ? given['server-timing'] : this.getHeader('server-timing')
  if (typeof timing === 'string') count(timing, this.req?.url ?? '')
  return writeHead.apply(this, arguments)
}

function count (timing, url) {
  const outcome = OUTCOME.exec(timing)?.[1]
  if (!outcome) return
  const kind = url.includes('unique=') ? 'unique' : url.includes('popular=') ? 'popular' : 'plain'
  const tally = counts[kind] ??= { hit: 0, miss: 0, bypass: 0 }
  tally[outcome]++
}

process.on('message', (message) => {
  if (message === 'cache-outcomes') process.send({ cacheOutcomes: structuredClone(counts) })
  if (message === 'cpu-usage') process.send({ cpuUsage: process.cpuUsage() })
})
// The IPC channel must not keep a draining app alive.
process.channel?.unref()
