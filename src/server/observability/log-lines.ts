// U+2028 and U+2029 are allowed raw in a JSON string, but they end a line for JavaScript before ES2019 and for
// log shippers that split on Unicode line breaks: one client's text would then split our log line in two.
const LINE_SEPARATORS = /[\u2028\u2029]/g

export function escapeLineSeparators (line: string): string {
  return line.replace(LINE_SEPARATORS, (separator) => separator === '\u2028' ? '\\u2028' : '\\u2029')
}

export const LOG_HOOKS = { streamWrite: escapeLineSeparators }
