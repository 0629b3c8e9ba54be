import type { PageData } from '../shared/page-data.js'
import { resolveTheme } from '../shared/theme.js'
import { App } from './app.js'
import { findPage } from './page-table.js'

export const PRODUCT_NAME = 'Agent Stack'

export function documentTitle (data: PageData): string {
  if (!data.page) return `Error | ${PRODUCT_NAME}`
  const title = findPage(data.page.id)?.meta?.title
  return title ? `${title} | ${PRODUCT_NAME}` : PRODUCT_NAME
}

/** The document every page is rendered in, on the server and when hydrating. */
export function Document ({ data }: { data: PageData }) {
  const { requestInfo, env, assets } = data
  const theme = resolveTheme({ saved: requestInfo.userPrefs.theme, hint: requestInfo.hints.theme })
  return (
    <html lang='en' className={theme}>
      <head>
        <meta charSet='utf-8' />
        <meta name='viewport' content='width=device-width,initial-scale=1' />
        {env.ALLOW_INDEXING ? null : <meta name='robots' content='noindex, nofollow' />}
        <title>{documentTitle(data)}</title>
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
