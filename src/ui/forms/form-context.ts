import { createContext, use } from 'react'
import type { FieldErrors, FormState, FormValues } from '../../shared/form-state.js'

export const PageFormStateContext = createContext<FormState | null>(null)
if (process.env.NODE_ENV !== 'production') PageFormStateContext.displayName = 'PageFormStateContext'

export interface FormContextValue {
  fieldId: (name: string) => string
  errors: FieldErrors
  /** What was sent, for a form shown again after a refusal; null for a fresh form. */
  values: FormValues | null
  pending: boolean
}

export const FormContext = createContext<FormContextValue | null>(null)
if (process.env.NODE_ENV !== 'production') FormContext.displayName = 'FormContext'

export function useFormContext (component: string): FormContextValue {
  const value = use(FormContext)
  if (value === null) throw new Error(`<${component}> must be rendered inside <Form>.`)
  return value
}
