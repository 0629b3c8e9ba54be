import { createHash } from 'node:crypto'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { COMPRESSION_LEVELS, type Encoding } from '../plugins/external/compression.js'
import type { DocumentEncoding } from './document-encoding.js'
import type { Template } from './render-cache.js'

// Inline scripts allowed by hash, not a per-response nonce, so every hit while the honeypot token holds gets the same
// bytes, compressed once per encoding (docs/decisions/cached-documents-allow-scripts-by-hash.md).

export interface SealedDocument {
  readonly honeypotToken: string
  readonly identity: Buffer
  readonly scriptHashes: readonly string[]
  readonly encoded: Partial<Record<Encoding, Buffer>>
}

const NONCE_ATTRIBUTE_START = ' nonce="'

export function sealDocument ({ parts, slots }: Template, honeypotToken: string): SealedDocument {
  const texts = parts.map((part) => part.toString('utf8'))
  let html = texts[0]!
  for (let index = 0; index < slots.length; index++) {
    let next = texts[index + 1]!
    if (slots[index] === 'honeypotToken') {
      html += honeypotToken
    } else if (html.endsWith(NONCE_ATTRIBUTE_START) && next.startsWith('"')) {
      // The nonce goes with its attribute; a nonce anywhere else is left empty.
      html = html.slice(0, -NONCE_ATTRIBUTE_START.length)
      next = next.slice(1)
    }
    html += next
  }
  return { honeypotToken, identity: Buffer.from(html), scriptHashes: inlineScriptHashes(html), encoded: {} }
}

// React escapes `>` in attribute values and every `</script` inside a script it writes, so the first `</script>`
// after a tag ends it. A browser hashes a script's text as it stands between its tags (CSP 3, "script-src" hashes).
const SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script>/g
const SOURCE_ATTRIBUTE = /\ssrc=/

export function inlineScriptHashes (html: string): string[] {
  const hashes = new Set<string>()
  for (const [, attributes, text] of html.matchAll(SCRIPT)) {
    if (SOURCE_ATTRIBUTE.test(attributes!)) continue
    hashes.add(`sha256-${createHash('sha256').update(text!).digest('base64')}`)
  }
  return [...hashes]
}

export function sealedBody (document: SealedDocument, encoding: DocumentEncoding): Buffer {
  if (encoding === null) return document.identity
  return document.encoded[encoding] ??= encoding === 'br'
    ? brotliCompressSync(document.identity, { params: { [constants.BROTLI_PARAM_QUALITY]: COMPRESSION_LEVELS.brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: document.identity.length } })
    : gzipSync(document.identity, { level: COMPRESSION_LEVELS.gzipLevel })
}
