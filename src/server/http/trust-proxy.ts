import { isIP } from 'node:net'

// Believing a forwarded header nobody in front of us sets lets any client choose its own address, scheme and host.
export type TrustProxy = boolean | number | readonly string[]

export const TRUST_PROXY_ACCEPTS = '"false", "true", a number of proxy hops from 1 to 10, or a comma-separated list of proxy IP addresses and CIDR ranges'

const MAX_HOPS = 10
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal'])

export function parseTrustProxy (value: string): TrustProxy | undefined {
  const text = value.trim().toLowerCase()
  if (text === 'false') return false
  if (text === 'true') return true
  if (/^\d+$/.test(text)) {
    const hops = Number(text)
    return hops >= 1 && hops <= MAX_HOPS ? hops : undefined
  }
  const entries = text.split(',').map((entry) => entry.trim())
  return entries.every(isAddressOrRange) ? entries : undefined
}

function isAddressOrRange (entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true
  const [address = '', prefix, ...rest] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  if (prefix === undefined) return true
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)
}

// Fastify refuses a bare hop count (it would believe a client reaching the app directly); as a function it keeps its
// meaning, and docs/deploying.md says to use it only when nothing reaches the app but through those proxies.
export function fastifyTrustProxy (setting: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting === 'number') return (_address, hop) => hop < setting
  return typeof setting === 'boolean' ? setting : [...setting]
}
