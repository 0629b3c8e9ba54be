// The load generator, driven by bench/wrk-route.lua. On the 2-core machine wrk drives a bare Node server about a
// third harder than autocannon did, so the ceiling, not the generator, is what runs out.
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'

const SCRIPT = fileURLToPath(new URL('wrk-route.lua', import.meta.url))
/** Linux's USER_HZ: /proc reports CPU time in these ticks. */
const TICKS_PER_SECOND = 100

const found = (command) => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

export function ensureWrk () {
  if (found('wrk')) return
  if (!found('apt-get')) throw new Error('the bench drives its load with wrk: install it (Debian and Ubuntu: apt-get install wrk; macOS: brew install wrk)')
  console.log("Installing Debian's wrk for the bench")
  const viaSudo = process.getuid?.() !== 0
  const run = (args) => execFileSync(viaSudo ? 'sudo' : 'apt-get', viaSudo ? ['apt-get', ...args] : args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
  run(['update', '-qq'])
  run(['install', '-y', '-qq', 'wrk'])
}

let runs = 0

const headerLines = (headers = {}) => Object.entries(headers).map(([name, value]) => `${name}: ${value}\n`).join('')

function mixEnv (mix) {
  const env = { BENCH_MIX_COUNT: String(mix.length), BENCH_COUNT_STATUSES: '1' }
  mix.forEach((request, index) => {
    const prefix = `BENCH_MIX_${index + 1}_`
    Object.assign(env, { [`${prefix}METHOD`]: request.method ?? 'GET', [`${prefix}PATH`]: request.path, [`${prefix}HEADERS`]: headerLines(request.headers) })
    if (request.body !== undefined) env[`${prefix}BODY`] = request.body
  })
  return env
}

function scriptEnv ({ route, mix, stopAfter, delayMs }) {
  if (mix) return { ...process.env, ...mixEnv(mix), ...(delayMs ? { BENCH_DELAY_MS: String(delayMs) } : {}) }
  return {
    ...process.env,
    BENCH_METHOD: route.method ?? 'GET',
    BENCH_PATH: route.path,
    BENCH_HEADERS: headerLines(route.headers),
    ...(route.body === undefined ? {} : { BENCH_BODY: route.body }),
    ...(route.addresses
      ? {
          BENCH_ADDRESSES: route.addresses.kind,
          // Unique across runs and processes, so no address a run asks for was asked for before.
          BENCH_PREFIX: `${process.pid.toString(36)}-${(++runs).toString(36)}`,
          BENCH_POPULAR: String(route.addresses.popular ?? 1),
          BENCH_UNIQUE_SHARE: String(route.addresses.uniqueShare ?? 0),
          BENCH_UNIQUE_ASKS: String(route.addresses.uniqueAsks ?? 1)
        }
      : {}),
    ...(stopAfter ? { BENCH_STOP_AFTER: String(stopAfter) } : {})
  }
}

/** Of `route`, or of a `mix` each connection cycles through, pausing `delayMs` before each request. `errors`:
 * connection errors and timeouts; `badStatus`: 4xx and 5xx, as wrk counts them. */
export async function runWrk ({ url, route, mix, connections, seconds, stopAfter, delayMs, core }) {
  const target = mix ? `${url}/` : `${url}${route.path}`
  const args = ['-c', core, 'wrk', '-t1', `-c${connections}`, `-d${Math.max(1, Math.round(seconds))}s`, '--timeout', '5s', '-s', SCRIPT, target]
  const started = performance.now()
  const child = spawn('taskset', args, { env: scriptEnv({ route, mix, stopAfter, delayMs }), stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk) => { stderr += chunk })
  const [code] = await once(child, 'exit')
  const wallSeconds = (performance.now() - started) / 1000
  const line = stdout.split('\n').find((text) => text.startsWith('BENCH_RESULT '))
  if (code !== 0 || !line) throw new Error(`wrk exited with ${code} for ${route?.name ?? route?.path ?? 'a mix'}: ${(stderr || stdout).trim().split('\n').at(-1)}`)
  const result = JSON.parse(line.slice('BENCH_RESULT '.length))
  const { errors } = result
  return {
    requests: result.requests,
    rps: result.requests / (result.durationMicros / 1e6),
    p50: result.latencyMicros.p50 / 1000,
    p99: result.latencyMicros.p99 / 1000,
    max: result.latencyMicros.max / 1000,
    errors: errors.connect + errors.read + errors.write + errors.timeout,
    badStatus: errors.status,
    statuses: result.statuses,
    generatorCpu: result.cpuTicks < 0 ? 0 : result.cpuTicks / TICKS_PER_SECOND / wallSeconds
  }
}
