import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './dockerfile.js'

/** The nginx configuration docs/deploying.md gives operators ("Behind a proxy"), as written there. */
export function readmeNginx (): string {
  const readme = readFileSync(join(ROOT, 'docs', 'deploying.md'), 'utf8')
  const block = /```nginx\n([\s\S]*?)```/.exec(readme)?.[1]
  if (!block) throw new Error('docs/deploying.md has no nginx block')
  return block
}

/** The `upstream-keepalive-timeout` docs/deploying.md has operators give the ingress-nginx controller, in milliseconds. */
export function ingressNginxKeepaliveTimeoutMs (): number {
  const deploying = readFileSync(join(ROOT, 'docs', 'deploying.md'), 'utf8')
  const seconds = /```yaml\n[\s\S]*?^ {2}upstream-keepalive-timeout: "(\d+)"$[\s\S]*?```/m.exec(deploying)?.[1]
  if (seconds === undefined) throw new Error('docs/deploying.md sets no upstream-keepalive-timeout for ingress-nginx')
  return Number(seconds) * 1000
}

/** The upstream keepalive_timeout of that configuration, in milliseconds. */
export function upstreamKeepaliveTimeoutMs (config = readmeNginx()): number {
  const upstream = /upstream\s+\w+\s*\{([^}]*)\}/.exec(config)?.[1] ?? ''
  const [, value = '', unit = 's'] = /^\s*keepalive_timeout\s+(\d+)(ms|s)?;/m.exec(upstream) ?? []
  // nginx's default is 60 s.
  if (!value) return 60_000
  return Number(value) * (unit === 'ms' ? 1 : 1000)
}
