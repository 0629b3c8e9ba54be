import { StrictMode, useEffect, type ReactNode } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { Document } from '../ui/document.js'
import { findPage, loadPage } from '../ui/page-table.js'
import { HINT_SCRIPT_ID, HintScriptSource } from '../ui/theme.js'
import { toast } from '../ui/toast.js'
import { readPageData } from './page-data.js'
import { startTrackerWhenIdle } from './start-tracker.js'

const data = readPageData()
// The page's chunk, preloaded by the document: hydration then finds its component ready.
const page = findPage(data.page.id)
if (page) await loadPage(page)
// Browsers hide a parsed nonce from the attribute but keep it in the property: the document's own scripts carry it.
const nonce = document.querySelector<HTMLScriptElement>('script[nonce]')?.nonce

/** Runs `effect` once its children's hydration has committed (a parent's effects run last). */
function AfterHydration ({ effect, children }: { effect: () => void, children: ReactNode }) {
  useEffect(effect, [effect])
  return children
}

const startTracker = () => startTrackerWhenIdle(data.env)

// The server's check script, as rendered: hydration renders the same text without the code that builds it.
const hintScript = document.getElementById(HINT_SCRIPT_ID)?.textContent ?? ''
const readHintScript = () => hintScript

hydrateRoot(
  document,
  <StrictMode>
    <AfterHydration effect={startTracker}>
      <HintScriptSource value={readHintScript}>
        <Document data={data} nonce={nonce} />
      </HintScriptSource>
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
