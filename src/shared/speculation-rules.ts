// https://developer.chrome.com/docs/web-platform/prerender-pages

/** The attribute that opts a link out: `none` speculates nothing, `prefetch` fetches the document but runs nothing. */
export const SPECULATE_ATTRIBUTE = 'data-speculate'

export type SpeculateMarker = 'none' | 'prefetch'

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

/** A form action's page holds a one-visitor form: never followed ahead, with or without a trailing slash. */
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
