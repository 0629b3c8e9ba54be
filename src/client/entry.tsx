import { StrictMode, useEffect, type ReactNode } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { Document } from '../ui/document.js'
import { toast } from '../ui/toast.js'
import { readPageData } from './page-data.js'
import { startTrackerWhenIdle } from './start-tracker.js'

const data = readPageData()
// Browsers hide a parsed nonce from the attribute but keep it in the property: the document's own scripts carry it.
const nonce = document.querySelector<HTMLScriptElement>('script[nonce]')?.nonce

/** Runs `effect` once its children's hydration has committed (a parent's effects run last). */
function AfterHydration ({ effect, children }: { effect: () => void, children: ReactNode }) {
  useEffect(effect, [effect])
  return children
}

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
    /** The toast API outside production, for tests and the console. */
    __toast?: typeof toast
  }
}
if (data.env.MODE !== 'production') window.__toast = toast
