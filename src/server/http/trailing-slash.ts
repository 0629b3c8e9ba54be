import { pathOf } from '../../shared/address.js'

/**
 * The address without the trailing slashes of its path, query kept: where `/examples/` should send a visitor when
 * only `/examples` exists. Null for a path that has none to drop, or that would become protocol-relative (`//host`)
 * or a path a browser reads so (`/\host`): a redirect must never leave the site.
 */
export function withoutTrailingSlash (url: string): string | null {
  const path = pathOf(url)
  const trimmed = path.replace(/\/+$/, '')
  if (trimmed === path || trimmed === '' || !/^\/(?![/\\])/.test(trimmed)) return null
  return trimmed + url.slice(path.length)
}
