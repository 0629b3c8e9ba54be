import type { Toast } from './page-data.js'

/** A form's submission as both sides know it: what the server answers and what the form kit shows. */

export type FormValues = Record<string, string | string[]>

export type FieldErrors = Record<string, string>

/** A refused submission, rendered into the page the form is on (PageState.form). */
export interface FormState {
  /** The action the state belongs to: only the <Form> posting there shows it. */
  action: string
  message: string
  errors: FieldErrors
  /** What the visitor typed, so nothing has to be typed again; sensitive fields are never here. */
  values: FormValues
}

/** The JSON a script gets for a form refused field by field (422). */
export interface FormErrorBody {
  statusCode: number
  error: string
  message: string
  errors: FieldErrors
  /** Hidden fields to set before the form is sent again: a honeypot refusal's fresh token. */
  fields?: Record<string, string>
}

/** The JSON a script gets for an accepted form (200): where a browser would have been sent. */
export interface FormSuccessBody {
  ok: true
  redirectTo: string
  toast?: Toast
}
