import type { Toast } from './page-data.js'

export type FormValues = Record<string, string | string[]>

export type FieldErrors = Record<string, string>

export interface FormState {
  /** Only the <Form> posting there shows the state. */
  action: string
  message: string
  errors: FieldErrors
  /** Sensitive fields are never echoed back. */
  values: FormValues
  /** Hidden fields for the form sent again, in place of the page's: the honeypot token it was accepted with. */
  fields?: Record<string, string>
}

export interface FormErrorBody {
  statusCode: number
  error: string
  message: string
  errors: FieldErrors
  /** Hidden fields to set before sending again: a honeypot refusal's fresh token. */
  fields?: Record<string, string>
}

export interface FormSuccessBody {
  ok: true
  redirectTo: string
  toast?: Toast
}
