import { createContext, use } from 'react'
import type { FieldErrors, FormState, FormValues } from '../../shared/form-state.js'

/** The refused submission the page was rendered with, if any (PageState.form). */
export const PageFormStateContext = createContext<FormState | null>(null)
// For React's developer tools; left out of production bundles.
if (process.env.NODE_ENV !== 'production') PageFormStateContext.displayName = 'PageFormStateContext'

export interface FormContextValue {
  /** The id of a field's control, which the error summary links to. */
  fieldId: (name: string) => string
  errors: FieldErrors
  values: FormValues
  pending: boolean
}

export const FormContext = createContext<FormContextValue | null>(null)
// For React's developer tools; left out of production bundles.
if (process.env.NODE_ENV !== 'production') FormContext.displayName = 'FormContext'

export function useFormContext (component: string): FormContextValue {
  const value = use(FormContext)
  if (value === null) throw new Error(`<${component}> must be rendered inside <Form>.`)
  return value
}
