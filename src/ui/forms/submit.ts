import type { FieldErrors } from '../../shared/form-state.js'

export type SubmitOutcome =
  | { redirectTo: string }
  | { message: string, errors: FieldErrors, fields?: Record<string, string> }

export const NOT_SENT = 'The form could not be sent. Check your connection and try again.'
export const NOT_ACCEPTED = 'The form could not be sent. Please try again.'

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

export async function submitInBackground (form: HTMLFormElement): Promise<SubmitOutcome> {
  const body = new URLSearchParams()
  for (const [name, value] of new FormData(form)) if (typeof value === 'string') body.append(name, value)
  let response: Response
  try {
    response = await fetch(form.action, { method: 'POST', body, headers: { accept: 'application/json' } })
  } catch {
    return { message: NOT_SENT, errors: {} }
  }
  return readAnswer(response.status, await response.json().catch(() => null))
}

/** Goes where the server said, as its 303 would have; a change of fragment alone would not load the page. */
export function navigate (target: string): void {
  const url = new URL(target, window.location.href)
  const sameDocument = url.pathname + url.search === window.location.pathname + window.location.search
  window.location.assign(url.href)
  if (sameDocument && url.hash !== '') window.location.reload()
}
