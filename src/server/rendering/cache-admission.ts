// Admission on second sighting, so a flood of one-off addresses (scanners, `?utm_*`) never evicts what is cached.
// Two generations of hashes bound the memory: a key is remembered for between `capacity / 2` and `capacity` later
// sightings, and a collision only admits a key one sighting early.
// See docs/decisions/pages-rendered-per-request.md.
export class SecondSighting {
  readonly #generationSize: number
  #young = new Set<number>()
  #old = new Set<number>()

  constructor (capacity = 16_384) {
    if (!Number.isInteger(capacity) || capacity < 2) throw new RangeError('SecondSighting: capacity must be an integer ≥ 2')
    this.#generationSize = capacity / 2
  }

  /** Records a sighting of `key`; true when it had been seen before (and is still remembered). */
  seen (key: string): boolean {
    const hash = hashKey(key)
    if (this.#young.has(hash) || this.#old.has(hash)) return true
    if (this.#young.size >= this.#generationSize) {
      this.#old = this.#young
      this.#young = new Set()
    }
    this.#young.add(hash)
    return false
  }
}

/** A 53-bit string hash (cyrb53: two multiplicative 32-bit lanes), fast enough to run on every miss. */
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
