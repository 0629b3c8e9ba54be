import type { Test } from 'tap'
import view from '../streaming.js'
import { screen } from '../../../../test/helpers/screens.js'
import { gate } from '../../../../test/helpers/streamed-response.js'

/** One wait of the streaming example's loader: how long it was asked to be, its signal, and the gate that ends it. */
export interface Wait {
  delay: number
  signal: AbortSignal
  done: ReturnType<typeof gate<void>>
}

/**
 * The streaming example's own loader with its wait (node:timers/promises) in the test's hands: each wait is a gate the
 * test opens, and fails with the signal's reason when the signal fires, as the real one does. `screens` gives an app
 * the example with that loader.
 */
export async function withGatedWaits (t: Test) {
  const waits: Wait[] = []
  const first = gate<Wait>()
  const { loader } = await t.mockImport<typeof import('../streaming.server.js')>('../streaming.server.js', {
    'node:timers/promises': {
      setTimeout: (delay: number, _value: unknown, { signal }: { signal: AbortSignal }) => {
        const wait = { delay, signal, done: gate<void>() }
        signal.addEventListener('abort', () => wait.done.fail(signal.reason as Error))
        waits.push(wait)
        first.open(wait)
        return wait.done.promise
      }
    }
  })
  return { waits, firstWait: first.promise, screens: { examplesStreaming: screen(view, { loader }) } }
}
