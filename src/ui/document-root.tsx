import type { ScreenRegistry } from './define-screen.js'
import { DeferredPartsContext } from './deferred-parts-context.js'
import { Document } from './document.js'
import type { PageData, RequestInfo } from '../shared/page-data.js'
import { ScreenTableContext } from './screen-table.js'
import { SpeculationRulesSource } from './speculation-rules.js'
import { HintScriptSource } from './theme.js'

export interface DocumentRootProps {
  data: PageData
  nonce: string | undefined
  screens: ScreenRegistry
  hintScript: (requestInfo: RequestInfo) => string
  speculationRules: string
  deferredParts: ReadonlyMap<string, PromiseLike<unknown>>
}

/** One tree for the server's render and the browser's hydration. */
export function DocumentRoot ({ data, nonce, screens, hintScript, speculationRules, deferredParts }: DocumentRootProps) {
  return (
    <ScreenTableContext value={screens}>
      <HintScriptSource value={hintScript}>
        <SpeculationRulesSource value={speculationRules}>
          <DeferredPartsContext value={deferredParts}>
            <Document data={data} nonce={nonce} />
          </DeferredPartsContext>
        </SpeculationRulesSource>
      </HintScriptSource>
    </ScreenTableContext>
  )
}
