import { createContext, use } from 'react'

export const SPECULATION_RULES_ID = 'speculation-rules'

/** Built by the server (shared/speculation-rules.ts) and read back in the browser, whose bundle lacks the builder. */
export const SpeculationRulesSource = createContext('')

/** Inline, so it needs the CSP nonce; browsers blank the parsed nonce, hence suppressHydrationWarning. Every document
 * has rules (the server always builds them), so hydration always finds this script. */
export function SpeculationRulesScript ({ nonce }: { nonce: string | undefined }) {
  const rules = use(SpeculationRulesSource)
  return <script type='speculationrules' id={SPECULATION_RULES_ID} nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: rules }} />
}
