import { createHash } from 'node:crypto'

/** The script-src sources of a Content-Security-Policy header. */
export function scriptSources (policy: unknown): string[] {
  if (typeof policy !== 'string') throw new Error(`no Content-Security-Policy header (got ${String(policy)})`)
  const directive = policy.split(';').map((part) => part.trim().split(/\s+/)).find(([name]) => name === 'script-src')
  return directive?.slice(1) ?? []
}

/** The script nonce of a Content-Security-Policy header, or undefined when it has none. */
export function scriptNonce (policy: unknown): string | undefined {
  return scriptSources(policy).map((source) => /^'nonce-(.+)'$/.exec(source)?.[1]).find(Boolean)
}

/**
 * The inline scripts of `html` (their first 40 characters) that `policy` would block, as a browser decides: a script
 * runs when it carries the policy's nonce, or when its text hashes to one of the policy's sha256 sources.
 */
export function blockedInlineScripts (html: string, policy: unknown): string[] {
  const sources = scriptSources(policy)
  const nonces = new Set(sources.map((source) => /^'nonce-(.+)'$/.exec(source)?.[1]).filter(Boolean))
  const hashes = new Set(sources.map((source) => /^'(sha256-.+)'$/.exec(source)?.[1]).filter(Boolean))
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    .filter(([, attributes = '']) => !/\ssrc=/.test(attributes))
    .filter(([, attributes = '', text = '']) => {
      const nonce = /\snonce="([^"]*)"/.exec(attributes)?.[1]
      return !(nonce && nonces.has(nonce)) && !hashes.has(`sha256-${createHash('sha256').update(text).digest('base64')}`)
    })
    .map(([, , text = '']) => text.slice(0, 40))
}
