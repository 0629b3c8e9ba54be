import { createContext, use, useId, type ReactNode } from 'react'
import type { HoneyProps } from '../shared/page-data.js'

/**
 * The honeypot fields of a form (checked by server/honeypot.ts). The props come
 * from the page data, so the server render and hydration use the same values.
 */

const HoneypotContext = createContext<HoneyProps | null>(null)
HoneypotContext.displayName = 'HoneypotContext'

export function HoneypotProvider ({ value, children }: { value: HoneyProps, children: ReactNode }) {
  return <HoneypotContext value={value}>{children}</HoneypotContext>
}

/**
 * Render inside a <form>. The wrapper uses the `hidden` attribute, not an
 * inline `style`: the CSP's style-src has no 'unsafe-inline', so a style
 * attribute would be refused and the trap would show. `hidden` removes it from
 * layout, focus order and the accessibility tree; aria-hidden and tabIndex -1
 * are belt and braces should a stylesheet ever override `[hidden]`.
 */
export function HoneypotInputs ({ label = 'Please leave this field blank' }: { label?: string }) {
  const props = use(HoneypotContext)
  if (props === null) {
    throw new Error('<HoneypotInputs> must be rendered inside <HoneypotProvider value={honeyProps}>.')
  }
  // useId keeps two forms on one page from sharing ids, and matches between server and client.
  const id = useId()
  const nameId = `${id}-${props.nameFieldName}`
  return (
    <div hidden aria-hidden='true'>
      <label htmlFor={nameId}>{label}</label>
      <input
        id={nameId}
        name={props.nameFieldName}
        type='text'
        autoComplete='off'
        tabIndex={-1}
        defaultValue=''
      />
      <input
        id={`${id}-${props.validFromFieldName}`}
        name={props.validFromFieldName}
        type='hidden'
        value={props.encryptedValidFrom}
      />
    </div>
  )
}
