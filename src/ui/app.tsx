import { useEffect } from 'react'
import type { PageData } from '../shared/page-data.js'
import type { Theme } from '../shared/theme.js'
import { HoneypotProvider } from './honeypot.js'
import { findPage, type PageDefinition } from './page-table.js'
import { ErrorPage } from './pages/error.js'
import { RequestInfoProvider } from './request-info.js'
import { ThemeSwitch } from './theme-switch.js'
import { ToastArea } from './toasts.js'

/** The providers every screen relies on, the routed outlet and the toast area. */
export function App ({ data, theme, pages }: { data: PageData, theme: Theme, pages?: readonly PageDefinition[] }) {
  // A visible signal that hydration finished, for browser tests and for CSS that needs JavaScript.
  useEffect(() => { document.documentElement.dataset.hydrated = 'true' }, [])
  return (
    <RequestInfoProvider value={data.requestInfo}>
      <HoneypotProvider value={data.honeyProps}>
        <header className='site-header'>
          <a className='site-name' href='/'>Agent Stack</a>
          <ThemeSwitch />
        </header>
        <Outlet data={data} pages={pages} />
        <ToastArea theme={theme} flash={data.toast} />
      </HoneypotProvider>
    </RequestInfoProvider>
  )
}

function Outlet ({ data, pages }: { data: PageData, pages?: readonly PageDefinition[] }) {
  const page = data.page && findPage(data.page.id, pages)
  if (!data.page || !page) return <ErrorPage />
  const { Component } = page
  return <Component data={data.page.data} />
}
