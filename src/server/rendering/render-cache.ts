import type { PageData } from '../../shared/page-data.js'
import { Doorkeeper, FrequencySketch, hashKey } from './cache-admission.js'
import { serializePage } from './page-data-json.js'

// Keyed by the page data, of which a component is a pure function; the nonce and honeypot token are cut out as slots.

export interface Fillings {
  nonce: string
  honeypotToken: string
}

type Slot = keyof Fillings

export interface Template {
  /** Literal bytes around the slots, ready to send: parts.length === slots.length + 1. */
  parts: Buffer[]
  slots: Slot[]
  /** The document's length in characters, its slots left out: what it weighs in the cache. */
  chars: number
}

export function toTemplate (html: string, fillings: Fillings): Template {
  const parts: Buffer[] = []
  const slots: Slot[] = []
  const names = Object.keys(fillings) as Slot[]
  let chars = 0
  let position = 0
  const literal = (end?: number) => {
    const part = html.slice(position, end)
    chars += part.length
    parts.push(Buffer.from(part))
  }
  for (;;) {
    let next = -1
    let slot: Slot | undefined
    for (const name of names) {
      const found = html.indexOf(fillings[name], position)
      if (found !== -1 && (next === -1 || found < next)) {
        next = found
        slot = name
      }
    }
    if (slot === undefined) break
    literal(next)
    slots.push(slot)
    position = next + fillings[slot].length
  }
  literal()
  return { parts, slots, chars }
}

// Bytes: a joined string is copied once for Content-Length and again for the socket (docs/performance.md).
export function fillTemplate ({ parts, slots }: Template, fillings: Fillings): Buffer {
  const pieces: Buffer[] = [parts[0]!]
  for (let index = 0; index < slots.length; index++) pieces.push(Buffer.from(fillings[slots[index]!]), parts[index + 1]!)
  return Buffer.concat(pieces)
}

// Null renders every time: a toast shows once, a refused form holds one visitor's answers, and a honeypot token in the
// data would become a slot (another visitor's token in a URL). The nonce is drawn after the data, so none carries it.
export function renderCacheKey (data: PageData, honeypotToken: string, cacheable: boolean): string | null {
  if (!cacheable || data.toast || data.page.form) return null
  const key = serializePage(data, keyJson)
  return key.includes(honeypotToken) ? null : key
}

const keyJson = (data: PageData) => JSON.stringify([data.requestInfo, data.page])

export interface Capture {
  whole (html: Buffer): void
  piece (html: Uint8Array | string): void
  end (): void
  spoil (): void
}

export const passThrough = (): Capture => ({ whole () {}, piece () {}, end () {}, spoil () {} })

export interface RenderCacheOptions {
  maxChars?: number
  /** Larger data is rendered every time: it is unlikely to repeat. */
  maxKeyChars?: number
  admissionMemory?: number
}

export interface RenderCacheStats {
  hits: number
  misses: number
  evictions: number
  entries: number
  chars: number
}

export class RenderCache {
  readonly #entries = new Map<string, { template: Template, chars: number, hash: number }>()
  readonly #maxChars: number
  readonly #maxKeyChars: number
  readonly #frequencies: FrequencySketch
  readonly #doorkeeper: Doorkeeper
  #chars = 0
  #hits = 0
  #misses = 0
  #evictions = 0

  constructor ({ maxChars = 8 * 1024 * 1024, maxKeyChars = 16 * 1024, admissionMemory = 16_384 }: RenderCacheOptions = {}) {
    this.#maxChars = maxChars
    this.#maxKeyChars = maxKeyChars
    this.#frequencies = new FrequencySketch(admissionMemory)
    this.#doorkeeper = new Doorkeeper(admissionMemory)
  }

  get size (): number {
    return this.#entries.size
  }

  get stats (): RenderCacheStats {
    return { hits: this.#hits, misses: this.#misses, evictions: this.#evictions, entries: this.#entries.size, chars: this.#chars }
  }

  get (key: string): Template | undefined {
    const entry = this.#entries.get(key)
    if (!entry) {
      this.#misses++
      return undefined
    }
    // A hit counts as a request too: what is served from the cache must keep outranking newcomers.
    this.#frequencies.add(entry.hash)
    this.#hits++
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    return entry.template
  }

  /** A lookup that leaves no trace: no recency, no hit or miss counted (a speculative request, which may never be shown). */
  peek (key: string): Template | undefined {
    return this.#entries.get(key)?.template
  }

  set (key: string, template: Template): void {
    if (key.length > this.#maxKeyChars) return
    const chars = key.length + template.chars
    if (chars > this.#maxChars) return
    this.#forget(key)
    const hash = hashKey(key)
    if (!this.#makesRoom(hash, chars)) return
    this.#entries.set(key, { template, chars, hash })
    this.#chars += chars
  }

  /** After a miss: whether the document about to be rendered is worth keeping (asked for before, and small enough). */
  admits (key: string): boolean {
    if (key.length > this.#maxKeyChars) return false
    const hash = hashKey(key)
    this.#frequencies.add(hash)
    return this.#doorkeeper.knows(hash)
  }

  // Least recently used first, but only documents asked for no more often than this key (TinyLFU): else none goes.
  #makesRoom (hash: number, chars: number): boolean {
    let freed = 0
    const victims: string[] = []
    const frequency = this.#frequencies.frequency(hash)
    for (const [oldest, entry] of this.#entries) {
      if (this.#chars - freed + chars <= this.#maxChars) break
      if (this.#frequencies.frequency(entry.hash) > frequency) return false
      victims.push(oldest)
      freed += entry.chars
    }
    for (const victim of victims) {
      this.#forget(victim)
      this.#evictions++
    }
    return true
  }

  capture (key: string, fillings: Fillings): Capture {
    let spoiled = false
    const keep = (html: Buffer) => { if (!spoiled) this.set(key, toTemplate(html.toString('utf8'), fillings)) }
    const pieces: Buffer[] = []
    return {
      whole: keep,
      piece (html) { pieces.push(typeof html === 'string' ? Buffer.from(html) : Buffer.from(html.buffer, html.byteOffset, html.byteLength)) },
      end () { keep(Buffer.concat(pieces)) },
      spoil () { spoiled = true }
    }
  }

  #forget (key: string): void {
    const entry = this.#entries.get(key)
    if (!entry) return
    this.#entries.delete(key)
    this.#chars -= entry.chars
  }
}
