import { Suspense, use, type ReactNode } from 'react'
import { outcomeOf } from '../shared/deferred.js'

export interface AwaitProps<Value> {
  resolve: PromiseLike<Value>
  fallback: ReactNode
  /** `message` is written for the visitor. */
  error: (message: string) => ReactNode
  children: (value: Value) => ReactNode
}

/** A failure renders `error` on the server too, so a visitor without JavaScript reads it in place; use() on the
 * part would leave them the fallback. */
export function Await<Value> ({ resolve, fallback, error, children }: AwaitProps<Value>) {
  return (
    <Suspense fallback={fallback}>
      <Settled resolve={resolve} error={error}>{children}</Settled>
    </Suspense>
  )
}

function Settled<Value> ({ resolve, error, children }: Omit<AwaitProps<Value>, 'fallback'>) {
  const outcome = use(outcomeOf(resolve))
  return outcome.ok ? children(outcome.value) : error(outcome.message)
}
