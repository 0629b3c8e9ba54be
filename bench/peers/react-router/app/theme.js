// The theme cookie, named and valued as the app's (src/server/theme-cookie.ts), so the bench's visitor is the same.
export const THEMES = new Set(['light', 'dark', 'system'])
const NAME = 'en_theme'
const YEAR_SECONDS = 365 * 24 * 60 * 60

export function readTheme (cookieHeader) {
  for (const pair of (cookieHeader ?? '').split(';')) {
    const [name, value] = pair.trim().split('=')
    if (name === NAME && (value === 'light' || value === 'dark')) return value
  }
  return 'light'
}

export const themeCookie = (theme) => theme === 'system'
  ? `${NAME}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`
  : `${NAME}=${theme}; Path=/; Max-Age=${YEAR_SECONDS}; HttpOnly; SameSite=Lax`
