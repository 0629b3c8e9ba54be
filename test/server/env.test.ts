import t, { type Test } from 'tap'
import { DRAINING_IDLE_GRACE_MS, EnvError, loadEnv, publicEnv } from '../../src/server/env.js'
import { TEST_SECRETS } from '../helpers/app.js'
import { upstreamKeepaliveTimeoutMs } from '../helpers/readme.js'

const SECRETS = {
  SESSION_SECRET: 'session-secret-for-env-tests-0123456789abcdef',
  HONEYPOT_SECRET: 'honeypot-secret-for-env-tests-0123456789abcdef'
}

/** The lines loadEnv reports for a bad environment; fails the test when it accepts it. */
function problemsOf (t: Test, source: NodeJS.ProcessEnv): string[] {
  try {
    loadEnv(source)
  } catch (error) {
    if (error instanceof EnvError) return error.problems
    throw error
  }
  t.fail(`expected ${JSON.stringify(source)} to be rejected`)
  return []
}

t.test('with nothing set, every variable has its embedded default', async (t) => {
  const { env } = loadEnv({})
  t.equal(env.PORT, 3000)
  t.equal(env.HOST, '127.0.0.1')
  t.equal(env.NODE_ENV, 'development')
  t.equal(env.LOG_LEVEL, 'info')
  t.equal(env.ALLOW_INDEXING, 'true')
  t.equal(env.LOAD_SHEDDING_DELAY_MS, 1000)
  t.equal(env.STREAM_TIME_LIMIT_MS, 10_000)
  t.equal(env.OPENREPLAY_INSECURE, 'false')
  t.equal(env.OPENREPLAY_PROJECT_KEY, undefined)
  t.equal(env.OPENREPLAY_INGEST_POINT, undefined)
  t.equal(env.TRUST_PROXY, false, 'no proxy is trusted unless the operator says so')
  t.equal(env.METRICS_PORT, undefined, 'no metrics')
  t.equal(env.METRICS_HOST, '127.0.0.1')
  t.equal(env.OTEL_EXPORTER_OTLP_ENDPOINT, undefined, 'no tracing')
  t.equal(env.OTEL_SERVICE_NAME, 'agent-stack')
})

t.test('the metrics port may be random like PORT (tests), and a collector may be named by IPv6 address', async (t) => {
  t.equal(loadEnv({ PORT: '0', METRICS_PORT: '0' }).env.METRICS_PORT, 0, 'two random ports (tests) never collide')
  t.equal(loadEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://[::1]:4318/otlp' }).env.OTEL_EXPORTER_OTLP_ENDPOINT, 'https://[::1]:4318/otlp')
})

t.test('an empty string counts as unset, so a blank line in a .env file means the default', async (t) => {
  const blank = Object.fromEntries(['PORT', 'HOST', 'NODE_ENV', 'LOG_LEVEL', 'LOG_PRETTY', 'ALLOW_INDEXING', 'LOAD_SHEDDING_DELAY_MS', 'STREAM_TIME_LIMIT_MS', 'SESSION_SECRET', 'HONEYPOT_SECRET', 'OPENREPLAY_PROJECT_KEY', 'OPENREPLAY_INGEST_POINT', 'OPENREPLAY_INSECURE', 'SERVE_SOURCE_MAPS', 'SHUTDOWN_DELAY_MS', 'SHUTDOWN_IDLE_GRACE_MS', 'METRICS_PORT', 'METRICS_HOST', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME', 'TRUST_PROXY'].map((name) => [name, '']))
  const { env } = loadEnv(blank)
  const defaults = loadEnv({}).env
  t.same({ ...env, SESSION_SECRET: [], HONEYPOT_SECRET: [] }, { ...defaults, SESSION_SECRET: [], HONEYPOT_SECRET: [] })
  t.equal(env.SESSION_SECRET.length, 1)
  t.ok(env.SESSION_SECRET[0]!.length >= 32, 'a blank secret is generated like a missing one')
})

t.test('valid values are read and converted to their types', async (t) => {
  const { env, warnings } = loadEnv({
    ...SECRETS,
    NODE_ENV: 'production',
    PORT: '8080',
    HOST: '0.0.0.0',
    LOG_LEVEL: 'warn',
    LOG_PRETTY: 'true',
    ALLOW_INDEXING: 'false',
    LOAD_SHEDDING_DELAY_MS: '0',
    STREAM_TIME_LIMIT_MS: '2500',
    OPENREPLAY_PROJECT_KEY: 'abc_DEF-123',
    OPENREPLAY_INGEST_POINT: 'https://openreplay.example.com/ingest',
    OPENREPLAY_INSECURE: 'true',
    SERVE_SOURCE_MAPS: 'true',
    SHUTDOWN_DELAY_MS: '5000',
    SHUTDOWN_IDLE_GRACE_MS: '15000',
    TRUST_PROXY: '10.0.0.0/8, 192.168.1.7',
    METRICS_PORT: '9464',
    METRICS_HOST: '0.0.0.0',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
    OTEL_SERVICE_NAME: 'shop-web',
    UNRELATED_VARIABLE: 'ignored'
  })
  t.same(env, {
    SESSION_SECRET: [SECRETS.SESSION_SECRET],
    HONEYPOT_SECRET: [SECRETS.HONEYPOT_SECRET],
    NODE_ENV: 'production',
    PORT: 8080,
    HOST: '0.0.0.0',
    LOG_LEVEL: 'warn',
    LOG_PRETTY: 'true',
    ALLOW_INDEXING: 'false',
    LOAD_SHEDDING_DELAY_MS: 0,
    STREAM_TIME_LIMIT_MS: 2500,
    OPENREPLAY_PROJECT_KEY: 'abc_DEF-123',
    OPENREPLAY_INGEST_POINT: 'https://openreplay.example.com/ingest',
    OPENREPLAY_INSECURE: 'true',
    SERVE_SOURCE_MAPS: 'true',
    SHUTDOWN_DELAY_MS: 5000,
    SHUTDOWN_IDLE_GRACE_MS: 15000,
    TRUST_PROXY: ['10.0.0.0/8', '192.168.1.7'],
    METRICS_PORT: 9464,
    METRICS_HOST: '0.0.0.0',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
    OTEL_SERVICE_NAME: 'shop-web'
  })
  t.same(warnings, [], 'nothing to warn about when the secrets are given')
})

t.test('each invalid variable is one line naming it, its value and what it accepts', async (t) => {
  const cases: Array<[name: string, value: string, accepts: RegExp]> = [
    ['PORT', '80x', /a port number from 0 to 65535/],
    ['PORT', '70000', /a port number from 0 to 65535/],
    ['PORT', '-1', /a port number from 0 to 65535/],
    ['PORT', '80.5', /a port number from 0 to 65535/],
    ['PORT', '8e3', /a port number from 0 to 65535/],
    ['LOAD_SHEDDING_DELAY_MS', '1.5', /milliseconds from 0 \(off\) to 60000/],
    ['ALLOW_INDEXING', 'yes', /"true" or "false"/],
    ['OPENREPLAY_INSECURE', '1', /"true" or "false"/],
    ['LOAD_SHEDDING_DELAY_MS', '-5', /milliseconds from 0 \(off\) to 60000/],
    ['LOAD_SHEDDING_DELAY_MS', 'soon', /milliseconds from 0 \(off\) to 60000/],
    ['LOAD_SHEDDING_DELAY_MS', '60001', /milliseconds from 0 \(off\) to 60000/],
    ['STREAM_TIME_LIMIT_MS', '0', /milliseconds from 100 to 120000/],
    ['STREAM_TIME_LIMIT_MS', 'forever', /milliseconds from 100 to 120000/],
    ['LOG_LEVEL', 'loud', /one of fatal, error, warn, info, debug, trace, silent/],
    ['NODE_ENV', 'staging', /"production", "development" or "test"/],
    ['OPENREPLAY_INGEST_POINT', 'ftp://x', /an http\(s\) URL/],
    // Each would break the CSP source expression the ingest origin becomes.
    ['OPENREPLAY_INGEST_POINT', 'https://x;script-src *', /without spaces, commas, semicolons or quotes/],
    ['OPENREPLAY_INGEST_POINT', 'https://x,https://evil.example', /an http\(s\) URL/],
    ['OPENREPLAY_INGEST_POINT', 'https://x/ingest script-src', /an http\(s\) URL/],
    ['OPENREPLAY_INGEST_POINT', "https://x/'unsafe-inline'", /an http\(s\) URL/],
    ['OPENREPLAY_INGEST_POINT', 'https://x/"', /an http\(s\) URL/],
    ['OPENREPLAY_INGEST_POINT', 'https://x\tscript-src', /an http\(s\) URL/],
    ['OPENREPLAY_INGEST_POINT', 'https://', /an http\(s\) URL/],
    // Past the pattern, but `new URL` throws on it: start-up stopped with a stack trace (security.ts, its CSP).
    ['OPENREPLAY_INGEST_POINT', 'https://ingest.example:99999', /an http\(s\) URL/],
    // Started, then the tracker failed quietly in every browser.
    ['OPENREPLAY_INGEST_POINT', 'http://ingest.example/ingest', /an https URL; a plain-http one needs OPENREPLAY_INSECURE=true/],
    ['SERVE_SOURCE_MAPS', 'yes', /"true" or "false"/],
    ['LOG_PRETTY', 'yes', /"true" or "false"/],
    ['OPENREPLAY_PROJECT_KEY', 'has spaces', /letters, digits, "-" and "_"/],
    ['HOST', 'my host name', /a host name or IP address/],
    // Passed the check, then listen() looked it up as a host name: a fatal log line that named no variable.
    ['HOST', '[::1]', /IPv6 without brackets/],
    ['METRICS_HOST', '[::]', /IPv6 without brackets/],
    ['TRUST_PROXY', 'yes', /"false", "true", a number of proxy hops from 1 to 10, or a comma-separated list of proxy IP addresses and CIDR ranges/],
    ['TRUST_PROXY', '0', /a number of proxy hops from 1 to 10/],
    ['TRUST_PROXY', '11', /a number of proxy hops from 1 to 10/],
    ['TRUST_PROXY', '1.5', /proxy IP addresses and CIDR ranges/],
    ['TRUST_PROXY', '10.0.0.0/33', /CIDR ranges/],
    ['TRUST_PROXY', 'fd00::/129', /CIDR ranges/],
    ['TRUST_PROXY', '10.0.0.0/8/8', /CIDR ranges/],
    ['TRUST_PROXY', '10.0.0.1,', /CIDR ranges/],
    ['TRUST_PROXY', 'proxy.internal', /CIDR ranges/],
    ['TRUST_PROXY', '256.0.0.1', /CIDR ranges/],
    ['METRICS_PORT', '9464x', /a port number from 0 to 65535, other than PORT/],
    ['METRICS_PORT', '70000', /a port number from 0 to 65535/],
    ['METRICS_PORT', '3000', /a port other than PORT/],
    ['METRICS_HOST', 'all of them', /a host name or IP address/],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'otel-collector:4318', /the http\(s\) URL of an OTLP\/HTTP collector/],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'grpc://otel-collector:4317', /the http\(s\) URL of an OTLP\/HTTP collector/],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'http://collector /v1', /the http\(s\) URL/],
    // Past the pattern, but the exporter's URL parse throws: start-up stopped with a stack trace.
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'http://otel-collector:99999', /the http\(s\) URL/],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'http://[::1', /the http\(s\) URL/],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'http://:4318', /the http\(s\) URL/],
    ['OTEL_SERVICE_NAME', 'agent stack', /letters, digits, "\.", "-" and "_"/]
  ]
  for (const [name, value, accepts] of cases) {
    const problems = problemsOf(t, { ...SECRETS, [name]: value })
    t.equal(problems.length, 1, `${name}=${value} is one problem`)
    const [line = ''] = problems
    t.ok(line.startsWith(`Invalid environment variable ${name}=${JSON.stringify(value)}: expected `), `names ${name} and its value: ${line}`)
    t.match(line, accepts, `says what ${name} accepts`)
    t.notMatch(line, /\n/, 'a single line')
  }
})

t.test('every invalid variable is reported at once, not just the first', async (t) => {
  const problems = problemsOf(t, { ...SECRETS, PORT: '80x', LOG_LEVEL: 'loud', NODE_ENV: 'staging', HOST: 'a b' })
  t.same(problems.map((line) => /^Invalid environment variable (\w+)=/.exec(line)?.[1]).sort(), ['HOST', 'LOG_LEVEL', 'NODE_ENV', 'PORT'])
})

t.test('a value that contains a line break or is very long is still reported on one short line', async (t) => {
  const [newline = ''] = problemsOf(t, { ...SECRETS, LOG_LEVEL: 'loud\nFAKE LOG LINE' })
  t.equal(newline, 'Invalid environment variable LOG_LEVEL="loud\\nFAKE LOG LINE": expected one of fatal, error, warn, info, debug, trace, silent.')
  const [long = ''] = problemsOf(t, { ...SECRETS, HOST: `${'h'.repeat(100)} x` })
  t.ok(long.includes(`"${'h'.repeat(40)}…"`), 'the value is cut after 40 characters')
  t.notOk(long.includes('h'.repeat(41)))
})

t.test('outside production a missing secret is generated for this process, with a warning naming it', async (t) => {
  for (const NODE_ENV of ['development', 'test']) {
    const first = loadEnv({ NODE_ENV })
    const second = loadEnv({ NODE_ENV })
    for (const name of ['SESSION_SECRET', 'HONEYPOT_SECRET'] as const) {
      t.equal(first.env[name].length, 1, `${NODE_ENV}: ${name} is one secret`)
      t.ok(first.env[name][0]!.length >= 32, `${NODE_ENV}: ${name} is a long random string`)
      t.not(first.env[name], second.env[name], `${NODE_ENV}: ${name} differs per process`)
      t.equal(first.warnings.filter((warning) => warning.startsWith(`${name} is not set`)).length, 1, `${NODE_ENV}: one warning names ${name}`)
      t.notOk(first.warnings.join('\n').includes(first.env[name][0]!), 'the warning does not reveal the generated secret')
    }
    t.not(first.env.SESSION_SECRET[0], first.env.HONEYPOT_SECRET[0], 'each secret is generated on its own')
  }
  const oneGiven = loadEnv({ SESSION_SECRET: SECRETS.SESSION_SECRET })
  t.same(oneGiven.env.SESSION_SECRET, [SECRETS.SESSION_SECRET], 'a given secret is kept')
  t.same(oneGiven.warnings.map((warning) => warning.split(' ')[0]), ['HONEYPOT_SECRET'], 'only the missing one is warned about')
})

t.test('in production a missing secret stops start-up with one line naming each variable', async (t) => {
  const problems = problemsOf(t, { NODE_ENV: 'production' })
  t.same(problems, [
    'Missing environment variable SESSION_SECRET: required in production (a random string of at least 32 characters, or a comma-separated list of them, newest first).',
    'Missing environment variable HONEYPOT_SECRET: required in production (a random string of at least 32 characters, or a comma-separated list of them, newest first).'
  ])
  t.same(problemsOf(t, { NODE_ENV: 'production', SESSION_SECRET: SECRETS.SESSION_SECRET }), [
    'Missing environment variable HONEYPOT_SECRET: required in production (a random string of at least 32 characters, or a comma-separated list of them, newest first).'
  ])
})

t.test('a rejected secret is named but its value is never echoed', async (t) => {
  const tooShort = 'hunter2-is-not-long-enough'
  for (const NODE_ENV of ['production', 'development']) {
    const problems = problemsOf(t, { NODE_ENV, SESSION_SECRET: tooShort, HONEYPOT_SECRET: SECRETS.HONEYPOT_SECRET })
    t.same(problems, ['Invalid environment variable SESSION_SECRET: the secret is shorter than 32 characters; expected a random string of at least 32 characters, or a comma-separated list of them, newest first.'], `${NODE_ENV}: invalid, not also missing`)
    t.notOk(problems.join('\n').includes(tooShort), `${NODE_ENV}: the value is not in the message`)
  }
  try {
    loadEnv({ HONEYPOT_SECRET: tooShort })
    t.fail('a short secret is rejected')
  } catch (error) {
    t.ok(error instanceof EnvError)
    t.notOk(String((error as Error).message).includes(tooShort), 'nor in the error message')
    t.notOk(String((error as Error).stack).includes(tooShort), 'nor in its stack')
  }
})

t.test('a secret list longer than any the schema takes is named without its value, like any rejected secret', async (t) => {
  const entry = 'a-long-secret-0123456789abcdefghijklmnopqrstuvwxyz'
  const value = Array.from({ length: 2000 }, () => entry).join(',')
  for (const name of ['SESSION_SECRET', 'HONEYPOT_SECRET']) {
    const problems = problemsOf(t, { ...SECRETS, [name]: value })
    t.same(problems, [`Invalid environment variable ${name}: expected a random string of at least 32 characters, or a comma-separated list of them, newest first.`], name)
    t.notOk(problems.join('\n').includes(entry.slice(0, 20)), 'not even its start')
  }
})

t.test('a secret may be a comma-separated list, newest first, so it can be rotated', async (t) => {
  const newest = 'newest-session-secret-0123456789abcdefghij'
  const older = 'older-session-secret-0123456789abcdefghijk'
  const { env } = loadEnv({ ...SECRETS, SESSION_SECRET: `${newest}, ${older}`, HONEYPOT_SECRET: `${older},${newest}` })
  t.same(env.SESSION_SECRET, [newest, older], 'in the order given, spaces around commas ignored')
  t.same(env.HONEYPOT_SECRET, [older, newest])
})

t.test('a bad entry in a secret list is named by its position, and no entry is echoed', async (t) => {
  const good = 'a-good-secret-0123456789abcdefghijklmnop'
  const short = 'short-one'
  const accepts = 'expected a random string of at least 32 characters, or a comma-separated list of them, newest first.'
  const cases: Array<[value: string, says: string]> = [
    [`${good},${short}`, 'entry 2 of 2 is shorter than 32 characters'],
    [`${short},${good},${good}`, 'entry 1 of 3 is shorter than 32 characters'],
    [`${good},,${good}`, 'entry 2 of 3 is empty'],
    [`${good},`, 'entry 2 of 2 is empty'],
    [`${good},${'x'.repeat(4097)}`, 'entry 2 of 2 is longer than 4096 characters'],
    [`${short},${good},`, 'entry 1 of 3 is shorter than 32 characters, entry 3 of 3 is empty']
  ]
  for (const [value, says] of cases) {
    for (const name of ['SESSION_SECRET', 'HONEYPOT_SECRET']) {
      const problems = problemsOf(t, { ...SECRETS, [name]: value })
      t.same(problems, [`Invalid environment variable ${name}: ${says}; ${accepts}`], `${name}: ${says}`)
      t.notOk(problems.join('\n').includes(good) || problems.join('\n').includes(short), 'no entry is echoed')
    }
  }
})

t.test('TRUST_PROXY: off by default, or every proxy, a number of hops, or the proxies\' addresses and ranges', async (t) => {
  const cases: Array<[value: string, setting: unknown]> = [
    ['false', false],
    ['FALSE', false],
    ['true', true],
    ['1', 1],
    ['10', 10],
    ['127.0.0.1', ['127.0.0.1']],
    ['10.0.0.0/8,172.16.0.0/12 , 192.168.0.0/16', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']],
    ['::1, fd00::/8, 10.1.2.3/32', ['::1', 'fd00::/8', '10.1.2.3/32']],
    ['loopback,uniquelocal', ['loopback', 'uniquelocal']]
  ]
  for (const [value, setting] of cases) t.same(loadEnv({ ...SECRETS, TRUST_PROXY: value }).env.TRUST_PROXY, setting, value)
})

t.test('publicEnv is exactly the public subset and never carries a secret', async (t) => {
  const { env } = loadEnv({
    ...SECRETS,
    NODE_ENV: 'production',
    ALLOW_INDEXING: 'false',
    OPENREPLAY_PROJECT_KEY: 'project-key',
    OPENREPLAY_INGEST_POINT: 'https://ingest.example.com',
    OPENREPLAY_INSECURE: 'true',
    STREAM_TIME_LIMIT_MS: '5000'
  })
  t.same(publicEnv(env), {
    MODE: 'production',
    ALLOW_INDEXING: false,
    OPENREPLAY_PROJECT_KEY: 'project-key',
    OPENREPLAY_INGEST_POINT: 'https://ingest.example.com',
    OPENREPLAY_INSECURE: true,
    STREAM_TIME_LIMIT_MS: 5000
  })
  const serialized = JSON.stringify(publicEnv(env))
  for (const secret of Object.values(SECRETS)) t.notOk(serialized.includes(secret), 'no secret value')
  t.notMatch(serialized, /SECRET|PORT|HOST|LOG_LEVEL/, 'no server-only variable name')

  t.same(publicEnv(loadEnv({}).env), {
    MODE: 'development',
    ALLOW_INDEXING: true,
    OPENREPLAY_PROJECT_KEY: null,
    OPENREPLAY_INGEST_POINT: null,
    OPENREPLAY_INSECURE: false,
    STREAM_TIME_LIMIT_MS: 10_000
  }, 'unset tracker settings are null, so the browser sees every key')
})

t.test('production, or SHUTDOWN_DELAY_MS alone, drains idle keep-alive connections safely: the idle grace outlasts the documented proxy', async (t) => {
  const grace = (env: Record<string, string>) => loadEnv({ ...TEST_SECRETS, ...env }).env.SHUTDOWN_IDLE_GRACE_MS
  t.equal(grace({}), 0, 'development with no delay exits at once')
  t.equal(grace({ NODE_ENV: 'production' }), DRAINING_IDLE_GRACE_MS, 'production has the grace without any setting')
  t.equal(grace({ SHUTDOWN_DELAY_MS: '5000' }), DRAINING_IDLE_GRACE_MS, 'a delay brings the grace along')
  t.ok(DRAINING_IDLE_GRACE_MS > upstreamKeepaliveTimeoutMs(), `longer than the README nginx's keepalive_timeout (${upstreamKeepaliveTimeoutMs()} ms)`)
  t.equal(grace({ SHUTDOWN_DELAY_MS: '5000', SHUTDOWN_IDLE_GRACE_MS: '9000' }), 9000, 'a grace set is kept')
})

t.test('a plain-http ingest point is taken when OPENREPLAY_INSECURE says so', async (t) => {
  const { env } = loadEnv({ ...SECRETS, OPENREPLAY_INGEST_POINT: 'http://127.0.0.1:9000/ingest', OPENREPLAY_INSECURE: 'true' })
  t.equal(env.OPENREPLAY_INGEST_POINT, 'http://127.0.0.1:9000/ingest')
})
