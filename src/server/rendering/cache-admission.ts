// TinyLFU admission (Einziger, Friedman and Manes, "TinyLFU: A Highly Efficient Cache Admission Policy", 2017): a
// count-min sketch aged by halving, so asking twice for many addresses loses to any page asked for more
// (docs/decisions/pages-rendered-per-request.md).

const DEPTH = 4
const MAX_COUNT = 15
/** Increments between two halvings, per counter of a row: the sketch's notion of "recently". */
const SAMPLE_FACTOR = 10

export class FrequencySketch {
  readonly #counters: Uint8Array
  readonly #mask: number
  readonly #sampleSize: number
  #additions = 0

  /** `capacity`: about how many distinct keys it tells apart, rounded up to a power of two. */
  constructor (capacity = 16_384) {
    if (!Number.isInteger(capacity) || capacity < 2) throw new RangeError('FrequencySketch: capacity must be an integer ≥ 2')
    const width = 2 ** Math.ceil(Math.log2(capacity))
    this.#counters = new Uint8Array(width * DEPTH)
    this.#mask = width - 1
    this.#sampleSize = width * SAMPLE_FACTOR
  }

  add (hash: number): number {
    const estimate = this.frequency(hash)
    // Conservative update: only the counters at the minimum grow, which keeps collisions from inflating counts.
    if (estimate < MAX_COUNT) {
      for (let row = 0; row < DEPTH; row++) {
        const slot = this.#slot(hash, row)
        if (this.#counters[slot] === estimate) this.#counters[slot]++
      }
    }
    if (++this.#additions >= this.#sampleSize) this.#halve()
    return Math.min(estimate + 1, MAX_COUNT)
  }

  frequency (hash: number): number {
    let min = MAX_COUNT
    for (let row = 0; row < DEPTH; row++) min = Math.min(min, this.#counters[this.#slot(hash, row)]!)
    return min
  }

  /** The key's counter in `row`, from two halves of its hash (double hashing). */
  #slot (hash: number, row: number): number {
    const low = hash >>> 0
    const high = Math.floor(hash / 4294967296) | 1
    return row * (this.#mask + 1) + ((low + Math.imul(row, high)) & this.#mask)
  }

  #halve (): void {
    for (let index = 0; index < this.#counters.length; index++) this.#counters[index]! >>= 1
    this.#additions = Math.floor(this.#additions / 2)
  }
}

// TinyLFU's doorkeeper: under a flood of one-off addresses the sketch's counters fill up and read unseen keys as seen
// (docs/decisions/pages-rendered-per-request.md). Cleared when full, which delays a popular key by one request.
export class Doorkeeper {
  readonly #seen = new Set<number>()
  constructor (private readonly capacity = 16_384) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('Doorkeeper: capacity must be an integer ≥ 1')
  }

  knows (hash: number): boolean {
    if (this.#seen.has(hash)) return true
    if (this.#seen.size >= this.capacity) this.#seen.clear()
    this.#seen.add(hash)
    return false
  }
}

/** A 53-bit string hash (cyrb53: two multiplicative 32-bit lanes), taken once per key: a cached entry keeps its own. */
export function hashKey (key: string): number {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let index = 0; index < key.length; index++) {
    const code = key.charCodeAt(index)
    h1 = Math.imul(h1 ^ code, 2654435761)
    h2 = Math.imul(h2 ^ code, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4294967296 * (2097151 & h2) + (h1 >>> 0)
}
