import { createContext, type ReactNode } from 'react'
import type { HoneyProps } from '../shared/page-data.js'

/** The page's honeypot fields, for the form kit's inputs (forms/honeypot-inputs.tsx), loaded with a form's page. */
export const HoneypotContext = createContext<HoneyProps | null>(null)
if (process.env.NODE_ENV !== 'production') HoneypotContext.displayName = 'HoneypotContext'

export function HoneypotProvider ({ value, children }: { value: HoneyProps, children: ReactNode }) {
  return <HoneypotContext value={value}>{children}</HoneypotContext>
}
