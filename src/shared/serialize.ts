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
 */
export function serializeForScript (value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE, (character) => ESCAPES[character] ?? character)
}
