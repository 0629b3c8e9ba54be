// The speculation rules every document carries (https://developer.chrome.com/docs/web-platform/prerender-pages):
// same-origin links are prerendered when the pointer rests on them, except where that would do harm. Built by the
// server; the browser only reads them back from the document.

/** The attribute that opts a link out: `none` speculates nothing, `prefetch` fetches the document but runs nothing. */
export const SPECULATE_ATTRIBUTE = 'data-speculate'

export type SpeculateMarker = 'none' | 'prefetch'

/** Never fetched ahead: endpoints that act or answer something other than a page. */
export const NEVER_SPECULATED = ['/resources/*'] as const

type Condition =
  | { href_matches: string }
  | { selector_matches: string }
  | { not: Condition }
  | { and: Condition[] }

interface Rule {
  where: Condition
  eagerness: 'moderate'
}

export interface SpeculationRuleSet {
  prerender: Rule[]
  prefetch: Rule[]
}

/**
 * `formActions`: the paths forms post to (URL patterns, as Fastify's `:name` and `*` read the same). A link to one is
 * never followed ahead: its page holds a one-visitor form, and a link there is rarely what a click means. With a
 * trailing slash too, which the server redirects to the same page (src/server/http/trailing-slash.ts).
 */
export function speculationRules (formActions: readonly string[]): SpeculationRuleSet {
  const actions = [...new Set(formActions)].map((action) => `${action}{/}?`)
  const excluded = [...NEVER_SPECULATED, ...actions].map((pattern): Condition => ({ not: { href_matches: pattern } }))
  // `href_matches` resolves against the document's URL: "/*" is this origin only.
  const sameOriginPages: Condition[] = [{ href_matches: '/*' }, ...excluded]
  const marked = (marker: SpeculateMarker): Condition => ({ selector_matches: `[${SPECULATE_ATTRIBUTE}="${marker}"]` })
  return {
    // Moderate: on hover (200 ms) or pointer-down, so a page is rendered only when a click is likely.
    prerender: [{ where: { and: [...sameOriginPages, { not: { selector_matches: `[${SPECULATE_ATTRIBUTE}]` } }] }, eagerness: 'moderate' }],
    prefetch: [{ where: { and: [...sameOriginPages, marked('prefetch')] }, eagerness: 'moderate' }]
  }
}
