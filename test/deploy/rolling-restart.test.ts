import * as esbuild from 'esbuild'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { DIST_DIR } from '../../src/server/app.js'
import { PLAIN_HTTP_WARNING } from '../../src/server/plugins/app/plain-http-warning.js'
import { drainBoundMs } from '../../src/server/plugins/app/graceful-close.js'
import { timeoutOptions } from '../../src/server/http/timeouts.js'
import { pageData } from '../helpers/app.js'
import { ROOT } from '../helpers/dockerfile.js'
import { createHosts } from '../helpers/netns.js'
import { freePort, startProcess, type ServerProcess } from '../helpers/process.js'
import { HOSTNAME, startNginx, until } from '../helpers/nginx.js'
import { readmeNginx, upstreamKeepaliveTimeoutMs } from '../helpers/readme.js'

/**
 * Rolling restarts under load, on real hosts: three instances, each in its own
 * network namespace, behind Debian's nginx configured with the block of docs/deploying.md
 * and terminating TLS. Steady mixed traffic flows while each instance in turn
 * is signalled (readiness fails, it keeps serving for SHUTDOWN_DELAY_MS, then
 * drains and exits) and replaced by one that signs with the new secret: the
 * second step of the rotation in docs/deploying.md, `old,new` → `new,old`, the one where
 * instances sign differently side by side. Nothing may fail.
 */

const CLIENTS = 4
/** Everything, setup included, ends within this; tap's own timeout is 120 s. */
const DEADLINE_MS = 100_000
const OLD = 'rollout-old-secret-0123456789abcdefghijklmn'
const NEW = 'rollout-new-secret-0123456789abcdefghijklmn'
const BEFORE = [OLD, NEW]
const AFTER = [NEW, OLD]
const DRAIN = { SHUTDOWN_DELAY_MS: '1000', SHUTDOWN_IDLE_GRACE_MS: String(upstreamKeepaliveTimeoutMs() + 1000) }
const VISITOR_COOKIES = 'en_theme=dark; CH-prefers-color-scheme=dark; CH-time-zone=Europe%2FParis'
const INSTANCE_ENTRY = join(DIST_DIR, 'test-rollout', 'instance.js')

interface Outcome {
  id: string
  kind: 'page' | 'theme-switch' | 'form' | 'toast-page' | 'health'
  start: number
  end: number
  status?: number
  error?: string
  problem?: string
}

t.test('the nginx of docs/deploying.md closes idle upstream connections before the app does, and before the drain lets go of them', async (t) => {
  const proxyMs = upstreamKeepaliveTimeoutMs()
  t.ok(proxyMs < timeoutOptions().keepAliveTimeout, `nginx's keepalive_timeout (${proxyMs} ms) < the app's keep-alive timeout (${timeoutOptions().keepAliveTimeout} ms)`)
  t.ok(proxyMs < Number(DRAIN.SHUTDOWN_IDLE_GRACE_MS), 'and < SHUTDOWN_IDLE_GRACE_MS')
  t.match(readmeNginx(), /proxy_next_upstream\s+error timeout http_502 http_503 http_504;/, 'a refused connection or an unavailable instance is tried on the next')
  t.notMatch(readmeNginx(), /non_idempotent/, 'and a POST already sent is never sent twice')
})

t.test('three restarts, one at a time, under steady load behind nginx, rotating the secrets: nothing fails, every POST is answered once', async (t) => {
  const deadline = Date.now() + DEADLINE_MS
  const work = mkdtempSync(join(tmpdir(), 'agent-stack-rollout-'))
  chmodSync(work, 0o755)
  t.teardown(() => rmSync(work, { recursive: true, force: true }))

  await esbuild.build({
    entryPoints: [join(ROOT, 'test', 'helpers', 'rollout-instance.ts')],
    outfile: INSTANCE_ENTRY,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    jsx: 'automatic',
    // Coverage of the instances counts for the sources, as with the built server.
    sourcemap: 'inline',
    logLevel: 'warning'
  })

  // Three hosts, or three loopback addresses where namespaces are refused.
  const made = createHosts(t, 3)
  const port = 'hosts' in made ? 3000 : await freePort()
  const hosts = 'hosts' in made
    ? made.hosts.map((host) => ({ address: host.address, trust: host.peer, command: host.command }))
    : [2, 3, 4].map((n) => ({ address: `127.0.0.${n}`, trust: 'loopback', command: (argv: string[]) => argv }))
  t.comment('hosts' in made
    ? `three network namespaces: ${hosts.map((host) => host.address).join(', ')}`
    : `network namespaces refused (${made.refused}): falling back to loopback addresses ${hosts.map((host) => host.address).join(', ')}`)

  const start = async (index: number, secrets: readonly string[]): Promise<ServerProcess> => {
    const host = hosts[index]!
    const env = {
      NODE_ENV: 'production',
      HOST: 'hosts' in made ? '0.0.0.0' : host.address,
      PORT: String(port),
      LOG_LEVEL: 'info',
      TRUST_PROXY: host.trust,
      SESSION_SECRET: secrets.join(','),
      HONEYPOT_SECRET: secrets.join(','),
      // What is measured is the drain: a shared CI machine running this beside other tests can stall an event loop
      // past the shedding threshold, and a shed POST would read as a lost one (load shedding has its own tests).
      LOAD_SHEDDING_DELAY_MS: '0',
      ...DRAIN
    }
    const server = startProcess(t, host.command([process.execPath, INSTANCE_ENTRY]), env)
    await server.waitForLog((line) => typeof line.msg === 'string' && line.msg.startsWith('Server listening at'), 20_000)
    await until(async () => (await readiness(host.address)) === 200, 10_000, `instance ${index} ready`)
    return server
  }
  const readiness = (address: string) => fetch(`http://${address}:${port}/resources/readiness`).then((response) => response.status, () => 0)
  const every: ServerProcess[] = []
  const instances = await Promise.all(hosts.map((_, index) => start(index, BEFORE)))
  every.push(...instances)

  const proxy = await startNginx(t, work, hosts.map((host) => `${host.address}:${port}`))
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS, ca: proxy.certificate })
  t.teardown(() => agent.destroy())
  const send = (kind: Outcome['kind'], id: string, path: string, options: { method?: string, headers?: Record<string, string>, body?: string } = {}) =>
    new Promise<Outcome & { headers: Record<string, string | string[] | undefined>, body: string }>((resolve) => {
      const begun = Date.now()
      const done = (rest: Partial<Outcome> & { headers?: Record<string, string | string[] | undefined>, body?: string }) =>
        resolve({ id, kind, start: begun, end: Date.now(), headers: {}, body: '', ...rest })
      const req = request({
        agent,
        host: '127.0.0.1',
        port: proxy.port,
        servername: HOSTNAME,
        path,
        method: options.method ?? 'GET',
        headers: { host: HOSTNAME, 'x-request-id': id, accept: 'text/html', ...options.headers },
        timeout: 15_000
      }, (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.once('end', () => done({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }))
        response.once('error', (error: NodeJS.ErrnoException) => done({ error: error.code ?? error.message }))
      })
      req.once('timeout', () => req.destroy(new Error('timed out')))
      req.once('error', (error: NodeJS.ErrnoException) => done({ error: error.code ?? error.message }))
      req.end(options.body)
    })

  // The load: pages with a visitor's cookies, theme switches, the form with its toast, and health probes.
  const outcomes: Outcome[] = []
  const tokens: Array<{ fields: Record<string, string>, at: number }> = []
  const postIds: string[] = []
  let stop = false
  const record = (outcome: Outcome, problem?: string) => { outcomes.push(problem ? { ...outcome, problem } : outcome) }
  const client = async (c: number) => {
    for (let n = 0; !stop && Date.now() < deadline; n++) {
      const id = `c${c}-${n}`
      const step = (c + n) % 4
      if (step === 0) {
        const page = await send('page', id, '/', { headers: { cookie: VISITOR_COOKIES } })
        let problem = page.status === 200 ? undefined : `status ${page.status}`
        try {
          if (!problem) {
            const { honeyProps } = pageData(page.body)
            tokens.push({ at: Date.now(), fields: { [honeyProps.nameFieldName]: '', [honeyProps.validFromFieldName]: honeyProps.encryptedValidFrom } })
          }
        } catch (error) {
          problem = `not a whole document: ${(error as Error).message}`
        }
        record(page, problem)
      } else if (step === 1) {
        postIds.push(id)
        const switched = await send('theme-switch', id, '/resources/theme-switch', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: `https://${HOSTNAME}`, 'sec-fetch-site': 'same-origin' },
          body: new URLSearchParams({ theme: ['light', 'dark', 'system'][n % 3]!, redirectTo: '/' }).toString()
        })
        record(switched, switched.status === 303 ? undefined : `status ${switched.status}`)
      } else if (step === 2) {
        // A form rendered at least 2.5 s ago, by whichever instance served that page.
        const token = tokens.findLast((candidate) => Date.now() - candidate.at > 2500)
        if (!token) continue
        postIds.push(id)
        const posted = await send('form', id, `/test/form?post=${encodeURIComponent(id)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: `https://${HOSTNAME}` },
          body: new URLSearchParams(token.fields).toString()
        })
        const cookie = ([] as string[]).concat(posted.headers['set-cookie'] ?? []).find((line) => line.startsWith('__Host-en_toast='))
        record(posted, posted.status === 303 && cookie ? undefined : `status ${posted.status}, toast cookie ${cookie ? 'set' : 'missing'}`)
        if (!cookie) continue
        const next = await send('toast-page', `${id}-next`, '/', { headers: { cookie: `${VISITOR_COOKIES}; ${cookie.split(';')[0]}` } })
        let shown: string | undefined
        try {
          shown = pageData(next.body).toast?.id
        } catch {}
        record(next, next.status === 200 && shown === id ? undefined : `status ${next.status}, toast ${JSON.stringify(shown)} instead of ${id}`)
      } else {
        const health = await send('health', id, '/resources/healthcheck')
        record(health, health.status === 200 && health.body === 'OK' ? undefined : `status ${health.status}`)
      }
      await sleep(15)
    }
  }
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c))
  t.teardown(async () => {
    stop = true
    await Promise.all(clients)
  })

  await until(async () => outcomes.length >= 200 && tokens.length > 0, 20_000, 'traffic flowing')
  const before = tokens.at(-1)!
  t.comment(`warmed up: ${outcomes.length} requests`)

  // The rollout, as Kubernetes does it: one instance at a time, each replaced once the last is ready.
  const rolloutStart = Date.now()
  for (const index of hosts.keys()) {
    if (Date.now() > deadline) break
    const old = instances[index]!
    old.child.kill('SIGTERM')
    await old.waitForLog((line) => line.msg === 'shutting down')
    t.equal(await readiness(hosts[index]!.address), 503, `instance ${index}: readiness fails at once`)
    const exit = await Promise.race([old.exited, sleep(drainBoundMs({ delayMs: 1000, idleGraceMs: Number(DRAIN.SHUTDOWN_IDLE_GRACE_MS) }) + 2000).then(() => null)])
    t.same(exit, { code: 0, signal: null }, `instance ${index}: drained and exited 0`)
    instances[index] = await start(index, AFTER)
    every.push(instances[index]!)
  }
  const rolloutEnd = Date.now()
  t.ok(rolloutEnd <= deadline, 'the rollout finished within the bound')

  // Forms rendered by the new instances are posted too, then the load stops.
  await sleep(3000)
  stop = true
  await Promise.all(clients)

  const late = await send('form', 'rendered-before-the-rollout', '/test/form', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: `https://${HOSTNAME}` },
    body: new URLSearchParams(before.fields).toString()
  })
  t.equal(late.status, 303, 'a form rendered before the rollout, with the old secret, is accepted after it')

  const failed = outcomes.filter((outcome) => outcome.error || outcome.problem || (outcome.status ?? 0) >= 500)
  t.same(failed.slice(0, 20), [], `no request failed, none was answered 5xx (${failed.length} did)`)
  if (failed.length > 0) t.comment(`nginx: ${proxy.accessLog().split('\n').filter((line) => failed.some((outcome) => line.includes(outcome.id))).slice(0, 20).join('\n')}`)

  const logs = every.flatMap((server) => server.logs())
  // nginx gives each request an id of its own (the client's is not believed): its access log maps them back.
  const clientIds = new Map(proxy.accessLog().split('\n').map((line) => line.split(' ')).map(([client = '', sent = '']) => [sent, client]))
  const completions = new Map<string, number>()
  for (const line of logs) {
    const id = clientIds.get(String(line.requestId))
    if (line.msg === 'request completed' && id !== undefined) completions.set(id, (completions.get(id) ?? 0) + 1)
  }
  const notOnce = postIds.filter((id) => completions.get(id) !== 1).map((id) => ({ id, times: completions.get(id) ?? 0 }))
  t.same(notOnce.slice(0, 20), [], `each of the ${postIds.length} POSTs was handled by exactly one instance, once`)
  t.same(logs.filter((line) => (line.level ?? 0) >= 50).map((line) => line.msg), [], 'no instance logged an error')
  t.notOk(logs.some((line) => line.msg === PLAIN_HTTP_WARNING), 'every instance saw https, through the trusted proxy\'s X-Forwarded-Proto')
  t.ok(outcomes.filter((outcome) => outcome.kind === 'toast-page').length > 0, 'forms and their toasts were part of the load')

  const during = outcomes.filter((outcome) => outcome.start >= rolloutStart && outcome.end <= rolloutEnd)
  const latencies = during.map((outcome) => outcome.end - outcome.start).sort((a, b) => a - b)
  const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0
  const ends = during.map((outcome) => outcome.end).sort((a, b) => a - b)
  const longestGap = ends.reduce((gap, end, i) => i === 0 ? gap : Math.max(gap, end - ends[i - 1]!), 0)
  t.comment(`${outcomes.length} requests (${postIds.length} POSTs), ${during.length} during ${hosts.length} restarts over ${rolloutEnd - rolloutStart} ms: p99 ${p99} ms, longest gap ${longestGap} ms`)
})
