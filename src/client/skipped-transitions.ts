/** Chromium rejects an unreachable promise when it skips the transition into a prerender with COOP, as every
 * document has (docs/decisions/isolation-over-prerender-transitions.md): only that AbortError is silenced. */
export function silenceSkippedTransitions (): void {
  addEventListener('unhandledrejection', (event) => {
    const reason: unknown = event.reason
    if (reason instanceof DOMException && reason.name === 'AbortError' && /transition/i.test(reason.message)) event.preventDefault()
  })
}
