// "Starts with `/`, not `//`" is not enough: each check runs on every decoded and NFKC form, then on the parsed URL.

const BASE_ORIGIN = 'http://agent-stack.invalid'
export const MAX_REDIRECT_LENGTH = 2048
const MAX_DECODES = 3

// Browsers drop tab/CR/LF (`/<TAB>/evil` is `//evil`) and read `\` as `/` (WHATWG URL).
const FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\\\u2028\u2029]/
// Slash look-alikes NFKC leaves alone but lax normalizers read as slashes.
const SLASH_LOOKALIKES = /[\u2044\u2215\u2216\u2571\u2572\u29F5\u29F8\u29F9\uFE68\uFF0F\uFF3C]/
const PLAIN_PATH = /^\/(?:[A-Za-z0-9_~-]+(?:\/[A-Za-z0-9_~-]+)*\/?)?(?:\?[A-Za-z0-9_~.=&-]+)?$/

/** The path + query + hash `input` names on this site, or `fallback`; safe in a `Location` header. */
export function safeRedirect (input: unknown, fallback = '/'): string {
  if (typeof input !== 'string' || input.length > MAX_REDIRECT_LENGTH || input !== input.trim()) return fallback
  if (PLAIN_PATH.test(input)) return input
  if (!isUnambiguousPath(input)) return fallback
  const url = new URL(input, BASE_ORIGIN)
  const path = url.pathname + url.search + url.hash
  // Dot segments can collapse into a leading `//` (`/.//evil.com`): check the output too.
  return url.origin === BASE_ORIGIN && isUnambiguousPath(path) ? path : fallback
}

function isUnambiguousPath (value: string): boolean {
  const forms = decodedForms(value)
  return forms !== undefined && forms.every((form) =>
    isRootedPath(form) && !SLASH_LOOKALIKES.test(form) && isRootedPath(form.normalize('NFKC')))
}

function isRootedPath (value: string): boolean {
  return value.startsWith('/') && value[1] !== '/' && !FORBIDDEN.test(value)
}

function decodedForms (value: string): string[] | undefined {
  const forms = [value]
  let current = value
  for (let round = 0; round <= MAX_DECODES; round++) {
    // Sent text must be well formed; after decoding, a % that starts no escape is a literal.
    const next = round === 0 ? strictlyDecoded(current) : escapesDecoded(current)
    if (next === undefined) return undefined
    if (next === current) return forms
    forms.push(next)
    current = next
  }
  return undefined
}

function strictlyDecoded (value: string): string | undefined {
  try {
    return decodeURIComponent(value)
  } catch {
    return undefined
  }
}

const ESCAPE_RUN = /(?:%[0-9A-Fa-f]{2})+/g

function escapesDecoded (value: string): string | undefined {
  let malformed = false
  const decoded = value.replace(ESCAPE_RUN, (run) => {
    const text = strictlyDecoded(run)
    if (text === undefined) malformed = true
    return text ?? run
  })
  return malformed ? undefined : decoded
}
