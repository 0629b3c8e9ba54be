// When `</head>` arrives under load, which a browser needs to start fetching the stylesheet and scripts: wrk times
// whole responses only. At about one answer a second per connection, one Node process measures without queueing of
// its own. Prints one line of JSON.
//   node bench/time-to-head.mjs '{"url":…,"path":…,"headers":{…},"connections":50,"seconds":5}'
import { Agent, request } from 'node:http'

const { url, path, headers = {}, connections, seconds } = JSON.parse(process.argv[2])
const agent = new Agent({ keepAlive: true, maxSockets: connections })
const HEAD_END = '</head>'

function timeOne () {
  return new Promise((resolve) => {
    const started = performance.now()
    let headMs = null
    let seen = ''
    const outgoing = request(`${url}${path}`, { agent, headers }, (response) => {
      response.setEncoding('utf8')
      response.on('data', (chunk) => {
        if (headMs !== null) return
        seen += chunk
        if (seen.includes(HEAD_END)) headMs = performance.now() - started
      })
      response.on('end', () => resolve({ status: response.statusCode, headMs, totalMs: performance.now() - started }))
      response.on('error', (error) => resolve({ error }))
    })
    outgoing.on('error', (error) => resolve({ error }))
    outgoing.end()
  })
}

const deadline = performance.now() + seconds * 1000
const results = []
async function connection () {
  while (performance.now() < deadline) results.push(await timeOne())
}
await Promise.all(Array.from({ length: connections }, connection))
agent.destroy()

const answered = results.filter((result) => !result.error)
process.stdout.write(JSON.stringify({
  requests: answered.length,
  errors: results.length - answered.length,
  badStatus: answered.filter((result) => result.status >= 400 || result.headMs === null).length,
  headMs: answered.filter((result) => result.headMs !== null).map((result) => Number(result.headMs.toFixed(2))),
  totalMs: answered.map((result) => Number(result.totalMs.toFixed(2)))
}) + '\n')
