import t from 'tap'
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { freePort } from '../helpers/process.js'

// The bench loads its probe into the app to count the render cache's outcomes, as each answer's Server-Timing tells
// them, by kind of address. Its hit ratios are only as good as that count, whichever way an answer sets its headers.
const PROBE = join(import.meta.dirname, '../../bench/app-probe.mjs')

// Each way a server can hand Node its headers: all at once to writeHead (Fastify), with a reason phrase, set one by one
// before (an answer written by hand), or none at all.
const SERVER = `
import { createServer } from 'node:http'
const TIMING = 'total;dur=1.2, cache;desc='
createServer((request, response) => {
  const url = new URL(request.url, 'http://localhost')
  const outcome = url.searchParams.get('outcome')
  const header = outcome ? { 'server-timing': TIMING + outcome } : {}
  if (url.pathname === '/set') {
    for (const [name, value] of Object.entries(header)) response.setHeader(name, value)
    response.writeHead(200)
  } else if (url.pathname === '/reason') response.writeHead(200, 'OK', header)
  else response.writeHead(200, { 'content-type': 'text/plain', ...header })
  response.end('answered')
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.send('listening'))
`

t.test('the probe counts each answer\'s cache outcome by kind of address, however its headers were set', async (t) => {
  const dir = t.testdir()
  const server = join(dir, 'server.mjs')
  await writeFile(server, SERVER)
  const port = await freePort()
  const child = fork(server, { execArgv: [`--import=${PROBE}`], env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  t.teardown(() => { child.kill() })
  const [ready] = await once(child, 'message') as [string]
  t.equal(ready, 'listening')

  const paths = [
    '/?outcome=hit', '/?outcome=hit', '/set?outcome=miss', '/reason?outcome=bypass',
    '/?unique=1&outcome=miss', '/set?unique=2&outcome=miss', '/reason?popular=3&outcome=hit',
    '/', '/set', '/reason', '/?outcome=stale'
  ]
  for (const path of paths) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`)
    t.equal(await response.text(), 'answered', `${path} is answered as the server meant`)
  }

  child.send('cache-outcomes')
  const [{ cacheOutcomes }] = await once(child, 'message') as [{ cacheOutcomes: unknown }]
  t.same(cacheOutcomes, {
    plain: { hit: 2, miss: 1, bypass: 1 },
    unique: { hit: 0, miss: 2, bypass: 0 },
    popular: { hit: 1, miss: 0, bypass: 0 }
  }, 'answers without an outcome, or with one it does not know, are not counted')

  child.send('cpu-usage')
  const [{ cpuUsage }] = await once(child, 'message') as [{ cpuUsage: { user: number, system: number } }]
  t.ok(cpuUsage.user > 0, 'and it tells the server\'s CPU time')
})
