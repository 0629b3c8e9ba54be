import { randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import { Type, type Static, type TSchema } from 'typebox'
import { Value } from 'typebox/value'
import type { PublicEnv } from '../shared/page-data.js'
import { parseTrustProxy, TRUST_PROXY_ACCEPTS, type TrustProxy } from './http/trust-proxy.js'

const Bool = (fallback: 'true' | 'false') =>
  Type.Union([Type.Literal('true'), Type.Literal('false')], { default: fallback, description: '"true" or "false"' })

const SECRET_ACCEPTS = 'a random string of at least 32 characters, or a comma-separated list of them, newest first'
const SECRET_LENGTH = { min: 32, max: 4096 }
/** Newest first: the first signs and encrypts, every one verifies and decrypts, so a secret can be rotated without a cut. */
const SecretList = Type.String({ minLength: 1, maxLength: 16 * SECRET_LENGTH.max, description: SECRET_ACCEPTS })

// No brackets: listen() takes `::1`, and looks `[::1]` up as a host name, failing after the checks passed.
const Host = () => Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:-]+$', default: '127.0.0.1', description: 'a host name or IP address (IPv6 without brackets, such as ::)' })

/** Every variable the server reads; `description` is what an operator is told it accepts. */
export const EnvSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('production'), Type.Literal('development'), Type.Literal('test')], {
    default: 'development', description: '"production", "development" or "test"'
  }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'a port number from 0 to 65535' }),
  HOST: Host(),
  LOG_LEVEL: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map(level => Type.Literal(level)), {
    default: 'info', description: 'one of fatal, error, warn, info, debug, trace, silent'
  }),
  // pino-pretty is a devDependency: loadEnv refuses `true` where it is not installed.
  LOG_PRETTY: Bool('false'),
  ALLOW_INDEXING: Bool('true'),
  LOAD_SHEDDING_DELAY_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 1000, description: 'milliseconds from 0 (off) to 60000' }),
  SHUTDOWN_DELAY_MS: Type.Integer({ minimum: 0, maximum: 120_000, default: 0, description: 'milliseconds from 0 to 120000' }),
  SHUTDOWN_IDLE_GRACE_MS: Type.Optional(Type.Integer({ minimum: 0, maximum: 120_000, description: 'milliseconds from 0 to 120000' })),
  // How long a document may wait on its data before the parts still pending show as failed.
  STREAM_TIME_LIMIT_MS: Type.Integer({ minimum: 100, maximum: 120_000, default: 10_000, description: 'milliseconds from 100 to 120000' }),
  SESSION_SECRET: Type.Optional(SecretList),
  HONEYPOT_SECRET: Type.Optional(SecretList),
  TRUST_PROXY: Type.String({ minLength: 1, maxLength: 1024, default: 'false', description: TRUST_PROXY_ACCEPTS }),
  OPENREPLAY_PROJECT_KEY: Type.Optional(Type.String({ minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9_-]+$', description: 'letters, digits, "-" and "_"' })),
  // Its origin goes into the CSP's connect-src: a space, comma, semicolon or quote there would break the policy.
  OPENREPLAY_INGEST_POINT: Type.Optional(Type.String({
    maxLength: 2048,
    pattern: '^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[^\\s;,\'"]*)?$',
    description: 'an http(s) URL of a host name and path, without spaces, commas, semicolons or quotes'
  })),
  OPENREPLAY_INSECURE: Bool('false'),
  SERVE_SOURCE_MAPS: Bool('false'),
  // Unset: on outside production. Render time and cache outcome tell a client whether someone else asked for the page.
  SERVER_TIMING: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: '"true" or "false"' })),
  METRICS_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: 'a port number from 0 to 65535, other than PORT' })),
  METRICS_HOST: Host(),
  // Unset: tracing is off and OpenTelemetry is never loaded.
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(Type.String({
    maxLength: 2048,
    pattern: '^https?://[A-Za-z0-9.:\\[\\]-]+(/[^\\s]*)?$',
    description: 'the http(s) URL of an OTLP/HTTP collector, such as http://otel-collector:4318'
  })),
  OTEL_SERVICE_NAME: Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\w.-]+$', default: 'agent-stack', description: 'letters, digits, ".", "-" and "_"' })
})

type RawEnv = Static<typeof EnvSchema>
// Longer than the nginx upstream keepalive timeout (docs/deploying.md): the proxy closes an idle connection first.
export const DRAINING_IDLE_GRACE_MS = 5000

export type Env = Omit<RawEnv, 'SESSION_SECRET' | 'HONEYPOT_SECRET' | 'TRUST_PROXY' | 'SHUTDOWN_IDLE_GRACE_MS'> & {
  SHUTDOWN_IDLE_GRACE_MS: number
  /** Newest first; never empty. */
  SESSION_SECRET: readonly string[]
  HONEYPOT_SECRET: readonly string[]
  TRUST_PROXY: TrustProxy
}

const SECRETS = ['SESSION_SECRET', 'HONEYPOT_SECRET'] as const
// Their patterns let through what `new URL` throws on at start-up (a port past 65535, a broken IPv6 address): the CSP and
// the exporter parse them, so a stack trace would stand in for the line naming the variable.
const URLS: readonly string[] = ['OPENREPLAY_INGEST_POINT', 'OTEL_EXPORTER_OTLP_ENDPOINT']

export class EnvError extends Error {
  constructor (readonly problems: string[]) {
    super(problems.join('\n'))
    this.name = 'EnvError'
  }
}

export interface LoadedEnv {
  env: Env
  warnings: string[]
}

/** Reads the environment once; an empty string is unset. Throws EnvError with one line per bad variable. */
export function loadEnv (source: NodeJS.ProcessEnv = process.env): LoadedEnv {
  const raw: Record<string, unknown> = {}
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = source[key]
    if (value !== undefined && value !== '') raw[key] = value
  }
  const candidate = Value.Convert(EnvSchema, Value.Default(EnvSchema, raw)) as Record<string, unknown>

  const problems: string[] = []
  const reported = new Set<string>()
  for (const [name, schema] of Object.entries(EnvSchema.properties) as Array<[string, TSchema & { description?: string, type?: string }]>) {
    // Conversion truncates "80.5" to 80: a whole number must be written as one.
    const given = source[name]
    const notWhole = schema.type === 'integer' && given !== undefined && given !== '' && !/^\d+$/.test(given)
    const notUrl = URLS.includes(name) && typeof candidate[name] === 'string' && !URL.canParse(candidate[name])
    if (candidate[name] === undefined || (!notWhole && !notUrl && Value.Check(schema, candidate[name]))) continue
    reported.add(name)
    problems.push(invalid(name, given, schema.description ?? 'a valid value'))
  }

  const parsed = candidate as RawEnv
  const trustProxy = parseTrustProxy(parsed.TRUST_PROXY)
  if (trustProxy === undefined && !reported.has('TRUST_PROXY')) problems.push(invalid('TRUST_PROXY', source.TRUST_PROXY, TRUST_PROXY_ACCEPTS))

  const warnings: string[] = []
  const secrets: Partial<Record<typeof SECRETS[number], readonly string[]>> = {}
  for (const name of SECRETS) {
    if (reported.has(name)) continue
    const value = parsed[name]
    if (value) {
      const entries = value.split(',').map((entry) => entry.trim())
      const faults = entries.flatMap((entry, index) => {
        const fault = secretFault(entry)
        if (!fault) return []
        return [`${entries.length === 1 ? 'the secret' : `entry ${index + 1} of ${entries.length}`} is ${fault}`]
      })
      if (faults.length === 0) secrets[name] = entries
      else problems.push(`Invalid environment variable ${name}: ${faults.join(', ')}; expected ${SECRET_ACCEPTS}.`)
    } else if (parsed.NODE_ENV === 'production') {
      problems.push(`Missing environment variable ${name}: required in production (${SECRET_ACCEPTS}).`)
    } else {
      secrets[name] = [randomBytes(32).toString('base64url')]
      warnings.push(`${name} is not set: using a random secret for this process only (set it in production).`)
    }
  }

  if (!reported.has('METRICS_PORT') && parsed.METRICS_PORT !== undefined && parsed.METRICS_PORT !== 0 && parsed.METRICS_PORT === parsed.PORT) {
    problems.push(`Invalid environment variable METRICS_PORT="${parsed.METRICS_PORT}": expected a port other than PORT (the metrics never share the public port).`)
  }

  // The browser would refuse it from an https page, or CSP's upgrade-insecure-requests send it where nothing listens.
  if (!reported.has('OPENREPLAY_INGEST_POINT') && parsed.OPENREPLAY_INGEST_POINT?.startsWith('http:') && parsed.OPENREPLAY_INSECURE !== 'true') {
    problems.push(invalid('OPENREPLAY_INGEST_POINT', source.OPENREPLAY_INGEST_POINT, 'an https URL; a plain-http one needs OPENREPLAY_INSECURE=true (development, tests)'))
  }

  if (parsed.LOG_PRETTY === 'true' && !reported.has('LOG_PRETTY') && !isInstalled('pino-pretty')) {
    problems.push(invalid('LOG_PRETTY', source.LOG_PRETTY, '"false" here: pino-pretty, a devDependency, is not installed (a production install leaves it out)'))
  }

  if (problems.length > 0) throw new EnvError(problems)
  const idleGrace = parsed.SHUTDOWN_IDLE_GRACE_MS ?? (parsed.NODE_ENV === 'production' || parsed.SHUTDOWN_DELAY_MS > 0 ? DRAINING_IDLE_GRACE_MS : 0)
  return { env: { ...parsed, TRUST_PROXY: trustProxy, SHUTDOWN_IDLE_GRACE_MS: idleGrace, ...secrets } as Env, warnings }
}

function isInstalled (name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(name)
    return true
  } catch {
    return false
  }
}

/** One line naming the variable, its value (never a secret's) and what it accepts. */
function invalid (name: string, given: string | undefined, accepts: string): string {
  const shown = (SECRETS as readonly string[]).includes(name) ? '' : `=${JSON.stringify(truncate(String(given)))}`
  return `Invalid environment variable ${name}${shown}: expected ${accepts}.`
}

/** What is wrong with one secret of a list, in words that do not reveal it. */
function secretFault (entry: string): string | undefined {
  if (entry === '') return 'empty'
  if (entry.length < SECRET_LENGTH.min) return `shorter than ${SECRET_LENGTH.min} characters`
  if (entry.length > SECRET_LENGTH.max) return `longer than ${SECRET_LENGTH.max} characters`
  return undefined
}

function truncate (value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value
}

/** The only door from configuration to the browser: never add a secret here. */
export function publicEnv (env: Env): PublicEnv {
  return {
    MODE: env.NODE_ENV,
    ALLOW_INDEXING: env.ALLOW_INDEXING === 'true',
    OPENREPLAY_PROJECT_KEY: env.OPENREPLAY_PROJECT_KEY ?? null,
    OPENREPLAY_INGEST_POINT: env.OPENREPLAY_INGEST_POINT ?? null,
    OPENREPLAY_INSECURE: env.OPENREPLAY_INSECURE === 'true',
    STREAM_TIME_LIMIT_MS: env.STREAM_TIME_LIMIT_MS
  }
}
