import { StrictMode } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { Document } from '../../src/ui/document.js'
import { PageTableContext } from '../../src/ui/page-table.js'
import { PAGES_WITH_MEETING } from './time-page.js'

// The client entry of a build that knows the meeting page too (see buildTestClient).
hydrateRoot(
  document,
  <StrictMode>
    <PageTableContext.Provider value={PAGES_WITH_MEETING}>
      <Document data={window.__PAGE_DATA__} nonce={document.querySelector<HTMLScriptElement>('script[nonce]')?.nonce} />
    </PageTableContext.Provider>
  </StrictMode>
)
