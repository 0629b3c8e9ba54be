import { useContext } from 'react'
import type { PageData } from '../shared/page-data.js'
import { App } from './app.js'
import { findPage, PageTableContext } from './page-table.js'
import { HintCheckScript, ThemeColorMeta, ThemeProvider, useTheme } from './theme.js'

export const PRODUCT_NAME = 'Agent Stack'

export function documentTitle (data: PageData, pages?: Parameters<typeof findPage>[1]): string {
  const title = findPage(data.page.id, pages)?.meta?.title
  const text = typeof title === 'function' ? title(data.page) : title
  return text ? `${text} | ${PRODUCT_NAME}` : PRODUCT_NAME
}

interface DocumentProps {
  data: PageData
  /** The CSP nonce of inline scripts: reply.cspNonce.script on the server, read back from the DOM when hydrating. */
  nonce?: string
}

/** The document every page is rendered in, on the server and when hydrating. */
export function Document ({ data, nonce }: DocumentProps) {
  return (
    <ThemeProvider requestInfo={data.requestInfo}>
      <ThemedDocument data={data} nonce={nonce} />
    </ThemeProvider>
  )
}

function ThemedDocument ({ data, nonce }: DocumentProps) {
  const { requestInfo, env, assets } = data
  const { theme, source } = useTheme()
  const pages = useContext(PageTableContext)
  return (
    // The check script may set class and source before hydration (it paints the live OS scheme).
    <html lang='en' className={theme} data-theme-source={source} suppressHydrationWarning>
      <head>
        <meta charSet='utf-8' />
        <meta name='viewport' content='width=device-width,initial-scale=1' />
        <ThemeColorMeta />
        {/* Before the stylesheet, so the theme is settled before the first paint. */}
        <HintCheckScript requestInfo={requestInfo} nonce={nonce} />
        {env.ALLOW_INDEXING ? null : <meta name='robots' content='noindex, nofollow' />}
        <title>{documentTitle(data, pages)}</title>
        <link rel='icon' href='/favicon.ico' sizes='48x48' />
        <link rel='icon' type='image/svg+xml' href='/favicon.svg' />
        <link rel='manifest' href='/site.webmanifest' crossOrigin='use-credentials' />
        {assets.styles.map((href) => <link key={href} rel='stylesheet' href={href} />)}
        {assets.preloads.map((href) => <link key={href} rel='modulepreload' href={href} />)}
      </head>
      <body>
        <App data={data} theme={theme} />
      </body>
    </html>
  )
}
