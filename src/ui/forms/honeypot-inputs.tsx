import { use, useId } from 'react'
import { HoneypotContext } from '../honeypot.js'

/** `hidden`, not an inline style, which the CSP would refuse. `fresh`: a refusal's new token, by field name, in place
 * of the page's. */
export function HoneypotInputs ({ label = 'Please leave this field blank', fresh = {} }: { label?: string, fresh?: Readonly<Record<string, string>> }) {
  const props = use(HoneypotContext)
  if (props === null) {
    throw new Error('<HoneypotInputs> must be rendered inside <HoneypotProvider value={honeyProps}>.')
  }
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
        value={fresh[props.validFromFieldName] ?? props.encryptedValidFrom}
      />
    </div>
  )
}
