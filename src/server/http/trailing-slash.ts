import { pathOf } from '../../shared/address.js'

// Null when there is nothing to drop, or the path would become protocol-relative (`//host`) or read so by a browser
// (`/\host`): a redirect must never leave the site.
export function withoutTrailingSlash (url: string): string | null {
  const path = pathOf(url)
  const trimmed = path.replace(/\/+$/, '')
  // An empty path (`/` trimmed) fails the test too: it must begin with a slash.
  if (trimmed === path || !/^\/(?![/\\])/.test(trimmed)) return null
  return trimmed + url.slice(path.length)
}
