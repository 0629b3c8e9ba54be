import { createContext, use } from 'react'

export const SPECULATION_RULES_ID = 'speculation-rules'

/**
 * The rules as JSON: built by the server (shared/speculation-rules.ts), read back from the document in the
 * browser, whose bundle then need not carry the builder. Empty renders no script.
 */
export const SpeculationRulesSource = createContext('')

/** Inline, so it needs the CSP nonce; browsers blank the parsed nonce, hence suppressHydrationWarning. */
export function SpeculationRulesScript ({ nonce }: { nonce: string | undefined }) {
  const rules = use(SpeculationRulesSource)
  if (!rules) return null
  return <script type='speculationrules' id={SPECULATION_RULES_ID} nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: rules }} />
}
