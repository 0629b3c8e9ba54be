/**
 * Reduces an untrusted redirect target (a `redirectTo` field) to a same-site
 * path, or the fallback. "Starts with `/` and not `//`" is not enough
 * (PITFALLS.md, Redirects; the Epic Stack theme action is the open redirect
 * STYLE.md warns about), so every check runs on the raw string, on each
 * percent-decoded form and on their NFKC forms, and then once more on what
 * the URL parser actually produced.
 */

// Only its identity matters: `.invalid` can never resolve (RFC 2606 §2).
const BASE_ORIGIN = 'http://agent-stack.invalid'
const MAX_LENGTH = 2048
// Sees through double and triple encoding (`%252F`); deeper nesting is refused.
const MAX_DECODES = 3

// Browsers delete tab/CR/LF anywhere in a URL (`/<TAB>/evil` is `//evil`) and
// read `\` as `/` (WHATWG URL, "special" schemes). C1 controls and U+2028/9
// are refused too: some decoders and log viewers treat them as line breaks.
const FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\\\u2028\u2029]/
// Slash look-alikes that NFKC leaves alone but humans and lax normalizers
// (IDNA mapping, "smart" proxies) read as slashes (PayloadsAllTheThings,
// Open Redirect, "Unicode normalization").
const SLASH_LOOKALIKES = /[\u2044\u2215\u2216\u2571\u2572\u29F5\u29F8\u29F9\uFE68\uFF0F\uFF3C]/
// The common case, a plain path (and query) of unreserved ASCII: nothing in it
// decodes, normalizes, collapses or resolves, so it is its own answer and the
// checks below would only confirm it. No dots (dot segments resolve), no `%`,
// no empty segment (so no `//`), no empty query (the parser drops a bare `?`).
const PLAIN_PATH = /^\/(?:[A-Za-z0-9_~-]+(?:\/[A-Za-z0-9_~-]+)*\/?)?(?:\?[A-Za-z0-9_~.=&-]+)?$/

/**
 * The path + query + hash that `input` names on this site, or `fallback`
 * when it is not a string, names another origin or scheme, or could be read
 * differently by a browser or a decoding layer in between. The result never
 * contains control characters, so it is safe in a `Location` header.
 */
export function safeRedirect (input: unknown, fallback = '/'): string {
  // Leading/trailing whitespace (including Unicode spaces) is stripped by
  // browsers, so what we check would not be what they follow.
  if (typeof input !== 'string' || input.length > MAX_LENGTH || input !== input.trim()) return fallback
  if (PLAIN_PATH.test(input)) return input
  if (!isUnambiguousPath(input)) return fallback
  // Cannot throw: a path-absolute reference against a valid base always parses.
  const url = new URL(input, BASE_ORIGIN)
  const path = url.pathname + url.search + url.hash
  // Dot segments can collapse into a leading `//`: `/.//evil.com` and
  // `/%2e%2e//evil.com` resolve to the pathname `//evil.com`. Check the output too.
  return url.origin === BASE_ORIGIN && isUnambiguousPath(path) ? path : fallback
}

function isUnambiguousPath (value: string): boolean {
  const forms = decodedForms(value)
  return forms !== undefined && forms.every((form) =>
    isRootedPath(form) && !SLASH_LOOKALIKES.test(form) && isRootedPath(form.normalize('NFKC')))
}

/** One `/` then no second slash, and no character a browser would drop or reinterpret. */
function isRootedPath (value: string): boolean {
  return value.startsWith('/') && value[1] !== '/' && !FORBIDDEN.test(value)
}

/**
 * The value and each successive percent-decoding of it until it stops
 * changing, or undefined when an encoding is malformed or nested deeper than
 * MAX_DECODES: a layer that decodes leniently could read either differently.
 */
function decodedForms (value: string): string[] | undefined {
  const forms = [value]
  let current = value
  // One extra round to confirm the last form is stable.
  for (let round = 0; round <= MAX_DECODES; round++) {
    // What was sent must be well formed: a literal % travels as %25. In what
    // decoding produced, a % that starts no escape is that literal percent sign.
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

/** A run of escapes, decoded together because one character can take several bytes. */
const ESCAPE_RUN = /(?:%[0-9A-Fa-f]{2})+/g

/** Decodes every escape and keeps any other %; undefined when an escape run is not UTF-8. */
function escapesDecoded (value: string): string | undefined {
  let malformed = false
  const decoded = value.replace(ESCAPE_RUN, (run) => {
    const text = strictlyDecoded(run)
    if (text === undefined) malformed = true
    return text ?? run
  })
  return malformed ? undefined : decoded
}
