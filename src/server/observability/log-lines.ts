// U+2028 and U+2029 are valid raw in JSON, but end a line for pre-ES2019 JavaScript and some log shippers.
const LINE_SEPARATORS = /[\u2028\u2029]/g

export function escapeLineSeparators (line: string): string {
  return line.replace(LINE_SEPARATORS, (separator) => separator === '\u2028' ? '\\u2028' : '\\u2029')
}

export const LOG_HOOKS = { streamWrite: escapeLineSeparators }
