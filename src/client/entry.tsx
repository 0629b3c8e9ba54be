import { StrictMode, useEffect, type ReactNode } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { Document } from '../ui/document.js'
import { toast } from '../ui/toast.js'
import { readPageData } from './page-data.js'
import { startTrackerWhenIdle } from './start-tracker.js'

const data = readPageData()
// Browsers hide a parsed nonce from the attribute but keep it in the property: the document's own scripts carry it.
const nonce = document.querySelector<HTMLScriptElement>('script[nonce]')?.nonce

/**
 * Runs `effect` once the hydration of its children has committed: React runs
 * a parent's effects after all of its children's, so App's own effects (the
 * `data-hydrated` marker) have run by then. Renders no element of its own, so
 * the hydrated tree matches the server's.
 */
function AfterHydration ({ effect, children }: { effect: () => void, children: ReactNode }) {
  useEffect(effect, [effect])
  return children
}

// The tracker is requested only after hydration, on idle (issue 5).
const startTracker = () => startTrackerWhenIdle(data.env)

hydrateRoot(
  document,
  <StrictMode>
    <AfterHydration effect={startTracker}>
      <Document data={data} nonce={nonce} />
    </AfterHydration>
  </StrictMode>
)

declare global {
  interface Window {
    /** The toast API, outside production only: browser tests and developers at the console fire toasts the way the UI does. */
    __toast?: typeof toast
  }
}
if (data.env.MODE !== 'production') window.__toast = toast
