/**
 * Chromium rejects an unreachable promise when it skips a view transition: into a prerender with COOP, as every
 * document has (docs/decisions/isolation-over-prerender-transitions.md), and into a page a form reached that the
 * browser sent itself. Only that AbortError is kept quiet. It is inlined at the head of the document's first script,
 * since the second kind of page is revealed before its module runs.
 */
export const SILENCE_SKIPPED_TRANSITIONS = 'addEventListener(\'unhandledrejection\',function(e){var r=e.reason;' +
  'if(r instanceof DOMException&&r.name===\'AbortError\'&&/transition/i.test(r.message))e.preventDefault()});'
