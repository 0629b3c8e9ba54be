import type { PageData } from '../shared/page-data.js'
import { App, HEADER_END_ID } from './app.js'
import type { ScreenText, ScreenView } from './define-screen.js'
import { useScreen } from './screen-table.js'
import { SpeculationRulesScript } from './speculation-rules.js'
import { HintCheckScript, ThemeColorMeta, ThemeProvider, useTheme } from './theme.js'

export const PRODUCT_NAME = 'Agent Stack'
export const DEFAULT_DESCRIPTION = 'Agent Stack: a fast, accessible application shell that works with or without JavaScript.'

export interface DocumentMeta {
  title: string
  description: string
  /** Absolute http(s), or null. */
  canonical: string | null
}

export function documentMeta ({ page, requestInfo }: PageData, view: ScreenView<any> | undefined): DocumentMeta {
  const meta = view?.meta
  const text = (value: ScreenText<unknown> | undefined) => typeof value === 'function' ? value(page) : value
  const title = text(meta?.title)
  return {
    title: title ? `${title} | ${PRODUCT_NAME}` : PRODUCT_NAME,
    description: text(meta?.description) || DEFAULT_DESCRIPTION,
    canonical: absoluteUrl(text(meta?.canonical), requestInfo.origin)
  }
}

function absoluteUrl (address: string | undefined, origin: string | null): string | null {
  if (!address) return null
  try {
    const url = origin ? new URL(address, origin) : new URL(address)
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null
  } catch {
    return null
  }
}

interface DocumentProps {
  data: PageData
  /** Read back from the DOM when hydrating. */
  nonce?: string
}

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
  const meta = documentMeta(data, useScreen(data.page.id))
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
        <title>{meta.title}</title>
        <meta name='description' content={meta.description} />
        {meta.canonical ? <link rel='canonical' href={meta.canonical} /> : null}
        <link rel='icon' href='/favicon.ico' sizes='48x48' />
        <link rel='icon' type='image/svg+xml' href='/favicon.svg' />
        <link rel='manifest' href='/site.webmanifest' crossOrigin='use-credentials' />
        {assets.styles.map((href) => <link key={href} rel='stylesheet' href={href} />)}
        {assets.preloads.map((href) => <link key={href} rel='modulepreload' href={href} />)}
        <SpeculationRulesScript nonce={nonce} />
        {/* A document read in pieces would otherwise be painted with its header half read: the theme switch grows
          (a layout shift), and a view transition meets a header that is not there yet. */}
        <link rel='expect' href={`#${HEADER_END_ID}`} blocking='render' />
      </head>
      <body>
        <App data={data} theme={theme} />
      </body>
    </html>
  )
}
