import { useContext, useEffect } from 'react'
import type { PageData, PageState } from '../shared/page-data.js'
import type { Theme } from '../shared/theme.js'
import { SYSTEM_SCREENS } from './define-screen.js'
import { DeferredPartsContext, withDeferred } from './deferred-parts-context.js'
import { PageFormStateContext } from './forms/form-context.js'
import { HoneypotProvider } from './honeypot.js'
import { RequestInfoProvider } from './request-info.js'
import { ScreenBoundary } from './screen-boundary.js'
import { useScreen } from './screen-table.js'
import { ThemeSwitch } from './theme-switch.js'
import { ToastArea } from './toasts.js'

/** An empty mark for the document's `rel=expect`: Chromium lets go as its element arrives, the spec once it is
 * whole; an empty one is whole on arrival, and so is the header before it. */
export const HEADER_END_ID = 'header-end'

export function App ({ data, theme }: { data: PageData, theme: Theme }) {
  // For browser tests and for CSS that needs JavaScript.
  useEffect(() => { document.documentElement.dataset.hydrated = 'true' }, [])
  return (
    <RequestInfoProvider value={data.requestInfo}>
      <HoneypotProvider value={data.honeyProps}>
        <header className='site-header'>
          <a className='site-name' href='/'>Agent Stack</a>
          <ThemeSwitch />
        </header>
        <div id={HEADER_END_ID} hidden />
        <ScreenBoundary fallback={<Outlet data={{ ...data, page: FAILED_PAGE }} />}>
          <Outlet data={data} />
        </ScreenBoundary>
        <ToastArea theme={theme} flash={data.toast} />
      </HoneypotProvider>
    </RequestInfoProvider>
  )
}

/** A screen that threw in the browser shows what a failure on the server would. */
const FAILED_PAGE: PageState = { id: SYSTEM_SCREENS.serverError, status: 500, data: null }

function Outlet ({ data }: { data: PageData }) {
  const view = useScreen(data.page.id)
  if (!view) throw new Error(`the screen table has neither "${data.page.id}" nor the server-error screen`)
  const Component = view.component
  const parts = useContext(DeferredPartsContext)
  return (
    <PageFormStateContext value={data.page.form ?? null}>
      <Component data={withDeferred(data.page.data, parts)} />
    </PageFormStateContext>
  )
}
