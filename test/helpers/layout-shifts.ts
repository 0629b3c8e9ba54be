/** A layout shift: its score, when it happened, and what moved from where to where. */
export interface Shift {
  value: number
  at: number
  sources: string[]
}

declare global {
  interface Window {
    /** Each layout shift a visitor would count (cumulative layout shift leaves out those right after input or a resize). */
    __layoutShifts?: Shift[]
    /** Each layout shift right after input or a resize. */
    __shiftsAfterInput?: Shift[]
  }
}

/**
 * Records layout shifts from the first byte, as an init script: layout-shift entries are buffered, but the observer
 * also names what moved, so that the one line a failing run prints says what it was. A string, not a function:
 * compiled test code may carry helpers the page does not have.
 */
export const LAYOUT_SHIFT_RECORDER = `(() => {
  window.__layoutShifts = []
  window.__shiftsAfterInput = []
  const box = (rect) => Math.round(rect.x) + ',' + Math.round(rect.y) + ' ' + Math.round(rect.width) + 'x' + Math.round(rect.height)
  const name = (node) => node instanceof Element ? node.tagName.toLowerCase() + (node.className ? '.' + node.className : '') : (node ? node.nodeName : 'a removed node')
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const sources = entry.sources.map((source) => name(source.node) + ' ' + box(source.previousRect) + ' -> ' + box(source.currentRect))
      ;(entry.hadRecentInput ? window.__shiftsAfterInput : window.__layoutShifts).push({ value: entry.value, at: Math.round(entry.startTime), sources })
    }
  }).observe({ type: 'layout-shift', buffered: true })
})();`
