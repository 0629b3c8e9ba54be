/**
 * Chromium skips the view transition into an activated prerender that carries COOP, as every document does
 * (docs/decisions/isolation-over-prerender-transitions.md), and rejects its promise, which no script can reach: that
 * page's `pagereveal` has no `viewTransition`. Left alone, every prerendered navigation would log an uncaught
 * AbortError, in the console and in the session tracker. Only that rejection is silenced.
 */
export function silenceSkippedTransitions (): void {
  addEventListener('unhandledrejection', (event) => {
    const reason: unknown = event.reason
    if (reason instanceof DOMException && reason.name === 'AbortError' && /transition/i.test(reason.message)) event.preventDefault()
  })
}
