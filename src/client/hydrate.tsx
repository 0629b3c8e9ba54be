import { StrictMode, useEffect, type ReactNode } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { Document } from '../ui/document.js'
import { PageTableContext, PAGES, type AnyPage } from '../ui/page-table.js'
import { toast } from '../ui/toast.js'
import { readPageData } from './page-data.js'
import { startTrackerWhenIdle } from './start-tracker.js'

/** Runs `effect` once its children's hydration has committed (a parent's effects run last). */
function AfterHydration ({ effect, children }: { effect: () => void, children: ReactNode }) {
  useEffect(effect, [effect])
  return children
}

declare global {
  interface Window {
    /** The toast API outside production, for tests and the console. */
    __toast?: typeof toast
  }
}

/** Hydrates the document the server rendered, from its page table (PAGES; a test's own entry adds its pages). */
export function hydrateDocument (pages: readonly AnyPage[] = PAGES): void {
  const data = readPageData()
  // Browsers hide a parsed nonce from the attribute but keep it in the property: the document's own scripts carry it.
  const nonce = document.querySelector<HTMLScriptElement>('script[nonce]')?.nonce
  const startTracker = () => startTrackerWhenIdle(data.env)

  hydrateRoot(
    document,
    <StrictMode>
      <AfterHydration effect={startTracker}>
        <PageTableContext.Provider value={pages}>
          <Document data={data} nonce={nonce} />
        </PageTableContext.Provider>
      </AfterHydration>
    </StrictMode>
  )
  if (data.env.MODE !== 'production') window.__toast = toast
}
