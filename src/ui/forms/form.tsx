import { use, useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react'
import { pathOf } from '../../shared/address.js'
import type { FieldErrors } from '../../shared/form-state.js'
import { loadOnce } from '../load-once.js'
import { whenIdle } from '../when-idle.js'
import { FormContext, PageFormStateContext, useFormContext } from './form-context.js'
import { HoneypotInputs } from './honeypot-inputs.js'

// Only a form sent in the background needs it: loaded when the browser is idle, or at the first submission.
const loadSubmit = loadOnce(() => import('./submit.js'))
const SUBMIT_IDLE_TIMEOUT_MS = 2000

interface Refusal {
  message: string
  errors: FieldErrors
}

export interface FormProps {
  /** defineFormRoute's path: only the form posting there shows the page's messages. */
  action: string
  'aria-label'?: string
  className?: string
  children: ReactNode
}

/** Works without JavaScript; with it, posts in the background (docs/decisions/forms-answer-422.md). */
export function Form ({ action, className, children, ...rest }: FormProps) {
  const fromPage = use(PageFormStateContext)
  const state = fromPage?.action === pathOf(action) ? fromPage : null
  const [refusal, setRefusal] = useState<Refusal | null>(state)
  const [pending, setPending] = useState(false)
  // The token a refused form was accepted with, or a honeypot refusal's fresh one: sending again works as its words say.
  const [hidden, setHidden] = useState<Record<string, string>>(state?.fields ?? {})
  // Counts refusals in this page, so the summary takes focus again for each.
  const [shown, setShown] = useState(0)
  const summary = useRef<HTMLDivElement>(null)
  const id = useId()

  useEffect(() => {
    if (shown > 0) summary.current?.focus()
  }, [shown])

  useEffect(() => whenIdle(() => { loadSubmit().catch(() => {}) }, SUBMIT_IDLE_TIMEOUT_MS), [])

  // Back may restore this page from the back/forward cache still pending, with nothing on its way.
  useEffect(() => {
    if (!pending) return
    const restored = (event: PageTransitionEvent) => { if (event.persisted) setPending(false) }
    addEventListener('pageshow', restored)
    return () => removeEventListener('pageshow', restored)
  }, [pending])

  async function onSubmit (event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (pending) return
    const form = event.currentTarget
    setPending(true)
    let submit: typeof import('./submit.js')
    try {
      submit = await loadSubmit()
    } catch {
      // Without its code the browser sends the form itself, as it does without JavaScript.
      return HTMLFormElement.prototype.submit.call(form)
    }
    const outcome = await submit.submitInBackground(form)
    if ('redirectTo' in outcome) return submit.navigate(outcome.redirectTo)
    if (outcome.fields) setHidden(outcome.fields)
    setPending(false)
    setRefusal(outcome)
    setShown((count) => count + 1)
  }

  const errors = refusal?.errors ?? {}
  const context = { fieldId: (name: string) => `${id}-${name}`, errors, values: state?.values ?? null, pending }
  return (
    <form method='post' action={action} className={['form', className].filter(Boolean).join(' ')} noValidate onSubmit={onSubmit} {...rest}>
      <FormContext value={context}>
        <HoneypotInputs fresh={hidden} />
        {refusal
          ? (
            // Rendered by the server with `autofocus`, so the summary has focus without JavaScript too.
            <div ref={summary} className='form-summary' tabIndex={-1} autoFocus={shown === 0}>
              <div role='alert'>
                <h2 className='form-summary-title'>There is a problem</h2>
                <p>{refusal.message}</p>
                {Object.keys(errors).length > 0
                  ? (
                    <ul>
                      {Object.entries(errors).map(([name, message]) => (
                        <li key={name}><a href={`#${context.fieldId(name)}`}>{message}</a></li>
                      ))}
                    </ul>
                    )
                  : null}
              </div>
            </div>
            )
          : null}
        {children}
        <p className='visually-hidden' role='status'>{pending ? 'Sending the form…' : ''}</p>
      </FormContext>
    </form>
  )
}

/** Marked busy while a background submission is on its way, and not pressed twice. */
export function SubmitButton ({ children, pendingLabel = 'Sending…' }: { children: ReactNode, pendingLabel?: string }) {
  const { pending } = useFormContext('SubmitButton')
  return (
    <button type='submit' className='form-submit' aria-disabled={pending || undefined}>
      {pending ? <span className='form-spinner' aria-hidden='true' /> : null}
      <span>{pending ? pendingLabel : children}</span>
    </button>
  )
}
