import type { FieldErrors } from '../../shared/form-state.js'

export type SubmitOutcome =
  | { redirectTo: string }
  | { message: string, errors: FieldErrors, fields?: Record<string, string> }

export const NOT_SENT = 'The form could not be sent. Check your connection and try again.'
export const NOT_ACCEPTED = 'The form could not be sent. Please try again.'
// Whether the form arrived is unknown to these two: "try again" could send it twice.
export const NO_ANSWER = 'The server did not answer in time. The form may have arrived: check before you send it again.'
export const ANSWER_LOST = 'The form was sent, but its answer was cut off. Reload the page to see whether it was saved.'

/** Longer than any form's work should take; without it, an answer a bad network swallows leaves "Sending…" for good. */
const TIME_LIMIT_MS = 30_000

export function readAnswer (status: number, body: unknown): SubmitOutcome {
  const answer = typeof body === 'object' && body !== null ? body as Record<string, unknown> : {}
  if (status >= 200 && status < 300 && typeof answer.redirectTo === 'string') return { redirectTo: onThisSite(answer.redirectTo) }
  const errors: FieldErrors = {}
  if (typeof answer.errors === 'object' && answer.errors !== null) {
    for (const [name, message] of Object.entries(answer.errors)) if (typeof message === 'string') errors[name] = message
  }
  const message = typeof answer.message === 'string' && answer.message !== '' ? answer.message : NOT_ACCEPTED
  const fields = typeof answer.fields === 'object' && answer.fields !== null ? answer.fields as Record<string, string> : undefined
  return fields ? { message, errors, fields } : { message, errors }
}

const SITE = 'http://this-site.invalid'

/** Not safeRedirect, which the server already applied: the browser's own URL parser, which navigate() goes by, makes
 * comparing origins exact, and the form's chunk stays about 0.5 KiB gzip lighter. */
function onThisSite (target: string): string {
  try {
    const url = new URL(target, SITE)
    return url.origin === SITE ? url.pathname + url.search + url.hash : '/'
  } catch {
    // URL.parse would say so without a throw, but browsers before 2024 lack it.
    return '/'
  }
}

export async function submitInBackground (form: HTMLFormElement, timeLimitMs = TIME_LIMIT_MS): Promise<SubmitOutcome> {
  const body = new URLSearchParams()
  for (const [name, value] of new FormData(form)) if (typeof value === 'string') body.append(name, value)
  let response: Response
  try {
    response = await fetch(form.action, { method: 'POST', body, headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeLimitMs) })
  } catch (error) {
    return { message: error instanceof DOMException && error.name === 'TimeoutError' ? NO_ANSWER : NOT_SENT, errors: {} }
  }
  let answer: unknown
  try {
    answer = await response.json()
  } catch {
    // A 2xx was the server taking the form: only what to show next was lost.
    return response.ok ? { message: ANSWER_LOST, errors: {} } : readAnswer(response.status, null)
  }
  return readAnswer(response.status, answer)
}

/** Goes where the server said, as its 303 would have; a change of fragment alone would not load the page. */
export function navigate (target: string): void {
  const url = new URL(target, window.location.href)
  const sameDocument = url.pathname + url.search === window.location.pathname + window.location.search
  window.location.assign(url.href)
  if (sameDocument && url.hash !== '') window.location.reload()
}
