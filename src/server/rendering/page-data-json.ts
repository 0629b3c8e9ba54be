import type { PageData, PageState } from '../../shared/page-data.js'
import { SEND_INSTEAD } from '../../shared/survives-json.js'

// Page data is hydrated from JSON (types: src/shared/survives-json.ts). JSON's own failures (a BigInt, a cycle) are
// named for the screen at no cost; what it changes silently (a Date, a Map) takes a walk, paid outside production only.

export class PageDataError extends Error {
  constructor (screen: string, problem: string, options?: ErrorOptions) {
    super(`the screen "${screen}" cannot be sent to the browser: its loader's data must survive JSON, which carries it there to hydrate from (docs/building-a-screen.md), but ${problem}`, options)
    this.name = 'PageDataError'
  }
}

export function serializePage (data: PageData, serialize: (data: PageData) => string): string {
  try {
    return serialize(data)
  } catch (error) {
    throw new PageDataError(data.page.id, `serializing it failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
}

/** Throws for the first value in the page's data that JSON would change or cannot carry (development and tests only). */
export function checkPageData ({ id, data }: PageState): void {
  const problem = jsonLoss(data, 'data', new Set())
  if (problem !== null) throw new PageDataError(id, problem)
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

function jsonLoss (value: unknown, path: string, ancestors: Set<object>): string | null {
  switch (typeof value) {
    case 'string': case 'boolean': case 'undefined': return null
    case 'number': return Number.isFinite(value) ? null : `${path} is ${value}, which arrives as null`
    case 'bigint': return `${path} is a bigint, which JSON cannot carry: ${SEND_INSTEAD.bigint}`
    case 'symbol': case 'function': return `${path} is a ${typeof value}, which JSON drops`
  }
  if (value === null) return null
  const object = value as object
  if (ancestors.has(object)) return `${path} refers back to an object that holds it: JSON cannot carry a cycle`
  if (object instanceof Date) return `${path} is a Date, which arrives as a string: ${SEND_INSTEAD.date}`
  if (object instanceof Map) return `${path} is a Map, which arrives as {}: ${SEND_INSTEAD.map}`
  if (object instanceof Set) return `${path} is a Set, which arrives as {}: ${SEND_INSTEAD.set}`
  if (typeof (object as { then?: unknown }).then === 'function') return `${path} is a promise below the top level of the data, which arrives as {}: only the top level's are deferred (docs/streaming.md)`
  const prototype: unknown = Object.getPrototypeOf(object)
  const isArray = Array.isArray(object)
  if (!isArray && prototype !== Object.prototype && prototype !== null) {
    return `${path} is an instance of ${(object.constructor as { name?: string } | undefined)?.name || 'a class'}, which arrives as a plain object of its own fields: send plain data`
  }
  ancestors.add(object)
  let problem: string | null = null
  if (isArray) {
    for (let index = 0; index < object.length && problem === null; index++) {
      const item: unknown = object[index]
      problem = item === undefined ? `${path}[${index}] is undefined, which arrives as null` : jsonLoss(item, `${path}[${index}]`, ancestors)
    }
  } else {
    for (const [key, item] of Object.entries(object)) {
      problem = jsonLoss(item, IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`, ancestors)
      if (problem !== null) break
    }
  }
  ancestors.delete(object)
  return problem
}
