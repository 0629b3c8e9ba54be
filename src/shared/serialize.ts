const UNSAFE = /[<>&\u2028\u2029]/g
const ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029'
}

/**
 * JSON that is safe to inline in a <script>: no value can close the script
 * (`</script>`), open a comment (`<!--`) or break the line in older parsers
 * (U+2028/U+2029). The escapes are JSON string escapes, so JSON.parse and a
 * JavaScript parser read back exactly the same value.
 *
 * The one exception is refused: in an object literal a "__proto__" key sets
 * the prototype instead of a property, so the browser would see other data
 * than the server rendered with (and a key from user input could choose an
 * object's prototype). No JSON text can avoid that, so such a value throws.
 */
export function serializeForScript (value: unknown): string {
  return JSON.stringify(value, refuseProtoKey).replace(UNSAFE, (character) => ESCAPES[character] ?? character)
}

function refuseProtoKey (key: string, value: unknown): unknown {
  if (key === '__proto__') throw new TypeError('serializeForScript: an object with a "__proto__" key cannot be inlined as a script literal')
  return value
}
