import type { PageData } from '../shared/page-data.js'
import { App } from './app.js'
import { findPage, type PageDefinition } from './page-table.js'
import { HintCheckScript, ThemeColorMeta, ThemeProvider, useTheme } from './theme.js'

export const PRODUCT_NAME = 'Agent Stack'

export function documentTitle (data: PageData, pages?: readonly PageDefinition[]): string {
  if (!data.page) return `Error | ${PRODUCT_NAME}`
  const title = findPage(data.page.id, pages)?.meta?.title
  const text = typeof title === 'function' ? title(data.page) : title
  return text ? `${text} | ${PRODUCT_NAME}` : PRODUCT_NAME
}

interface DocumentProps {
  data: PageData
  pages?: readonly PageDefinition[]
  /** The CSP nonce of inline scripts: reply.cspNonce.script on the server, read back from the DOM when hydrating. */
  nonce?: string
}

/**
 * The document every page is rendered in, on the server and when hydrating.
 * `pages` is the server's page table (buildApp's option); the browser uses the default PAGES.
 */
export function Document ({ data, pages, nonce }: DocumentProps) {
  return (
    <ThemeProvider requestInfo={data.requestInfo}>
      <ThemedDocument data={data} pages={pages} nonce={nonce} />
    </ThemeProvider>
  )
}

function ThemedDocument ({ data, pages, nonce }: DocumentProps) {
  const { requestInfo, env, assets } = data
  const { theme, source } = useTheme()
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
        <App data={data} theme={theme} pages={pages} />
      </body>
    </html>
  )
}
