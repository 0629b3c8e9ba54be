// Loaded into the app by the bench (node --import): over IPC, the render cache's outcomes as Server-Timing tells them,
// by kind of address (`unique=` asked for once, `popular=` one of a set asked again and again, or neither), and
// process.cpuUsage(), finer than /proc's 10 ms ticks.
import { ServerResponse } from 'node:http'

const counts = {}
const OUTCOME = /\bcache;desc=(hit|miss|bypass)\b/

const writeHead = ServerResponse.prototype.writeHead
ServerResponse.prototype.writeHead = function (status, ...rest) {
  // Fastify passes the headers as an object; the probe reads them there or as already set.
  const headers = rest.find((argument) => typeof argument === 'object' && argument !== null)
  const timing = headers?.['server-timing'] ?? this.getHeader('server-timing')
  const outcome = typeof timing === 'string' ? OUTCOME.exec(timing)?.[1] : undefined
  if (outcome) {
    const { url = '' } = this.req ?? {}
    const kind = url.includes('unique=') ? 'unique' : url.includes('popular=') ? 'popular' : 'plain'
    const tally = counts[kind] ??= { hit: 0, miss: 0, bypass: 0 }
    tally[outcome]++
  }
  return writeHead.call(this, status, ...rest)
}

process.on('message', (message) => {
  if (message === 'cache-outcomes') process.send({ cacheOutcomes: structuredClone(counts) })
  if (message === 'cpu-usage') process.send({ cpuUsage: process.cpuUsage() })
})
// The IPC channel must not keep a draining app alive.
process.channel?.unref()
