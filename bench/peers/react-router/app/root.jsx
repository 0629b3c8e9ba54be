import { Links, Meta, Outlet, Scripts, ScrollRestoration, useRouteLoaderData } from 'react-router'
// The app's own stylesheet, so both documents link the same bytes.
import stylesheet from '../../../../src/ui/styles.css?url'
import { readTheme } from './theme.js'

export const links = () => [{ rel: 'stylesheet', href: stylesheet }]
export const meta = () => [{ title: 'Agent Stack' }]

export function loader ({ request }) {
  return { theme: readTheme(request.headers.get('cookie')) }
}

export function Layout ({ children }) {
  const data = useRouteLoaderData('root')
  return (
    <html lang='en' className={data?.theme ?? 'light'}>
      <head>
        <meta charSet='utf-8' />
        <meta name='viewport' content='width=device-width, initial-scale=1' />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  )
}

export default function App () {
  return <Outlet />
}
