import { StrictMode, useEffect, type ReactNode } from 'react'
import { hydrateRoot } from 'react-dom/client'
import * as SCREENS from '../screens/index.js'
import type { AppRegistry } from '../ui/define-screen.js'
import { DocumentRoot } from '../ui/document-root.js'
import { loadScreen, screenEntry } from '../ui/screen-table.js'
import { SPECULATION_RULES_ID } from '../ui/speculation-rules.js'
import { HINT_SCRIPT_ID } from '../ui/theme.js'
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
    __toast?: typeof toast
  }
}

const NO_PARTS: ReadonlyMap<string, PromiseLike<unknown>> = new Map()

export async function hydrateDocument (screens: AppRegistry = SCREENS): Promise<void> {
  const data = readPageData()
  const entry = screenEntry(screens, data.page.id)
  const keys = data.page.deferred ?? []
  const [deferredParts] = await Promise.all([
    keys.length === 0 ? NO_PARTS : import('./deferred-store.js').then(({ takeDeferredParts }) => takeDeferredParts(keys, data.env.STREAM_TIME_LIMIT_MS)),
    entry && loadScreen(entry)
  ])
  // Browsers hide a parsed nonce from the attribute but keep it in the property: the document's own scripts carry it.
  const nonce = document.querySelector<HTMLScriptElement>('script[nonce]')?.nonce
  const startTracker = () => startTrackerWhenIdle(data.env)
  // The server's check script, as rendered: hydration renders the same text without the code that builds it.
  const hintScript = document.getElementById(HINT_SCRIPT_ID)?.textContent ?? ''
  const readHintScript = () => hintScript
  const speculationRules = document.getElementById(SPECULATION_RULES_ID)?.textContent ?? ''

  hydrateRoot(
    document,
    <StrictMode>
      <AfterHydration effect={startTracker}>
        <DocumentRoot data={data} nonce={nonce} screens={screens} hintScript={readHintScript} speculationRules={speculationRules} deferredParts={deferredParts} />
      </AfterHydration>
    </StrictMode>
  )
  if (data.env.MODE !== 'production') window.__toast = toast
}
