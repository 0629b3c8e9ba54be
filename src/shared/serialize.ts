const UNSAFE = /[<>&\u2028\u2029]/g
const ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029'
}

// Nothing can close the <script>, open a comment or break a line. A "__proto__" key would set a literal's prototype:
// refused, by a replacer run only when needed (docs/performance.md).
export function serializeForScript (value: unknown): string {
  let json = JSON.stringify(value)
  if (json.includes('"__proto__":')) json = JSON.stringify(value, refuseProtoKey)
  return json.replace(UNSAFE, (character) => ESCAPES[character] ?? character)
}

function refuseProtoKey (key: string, value: unknown): unknown {
  if (key === '__proto__') throw new TypeError('serializeForScript: an object with a "__proto__" key cannot be inlined as a script literal')
  return value
}
