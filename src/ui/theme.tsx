import { subscribeToSchemeChange } from '@epic-web/client-hints/color-scheme'
import { createContext, use, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore, type ReactNode } from 'react'
import { flushSync } from 'react-dom'
import { toast } from './toast.js'
import type { RequestInfo } from '../shared/page-data.js'
import { THEME_COLORS, THEME_COOKIE_NAME, THEME_SWITCH_PATH, decideTheme, isThemePreference, type Theme, type ThemePreference, type ThemeSource } from '../shared/theme.js'
import type { ThemeChannel, ThemeRules } from './theme-sync.js'
import { loadOnce } from './load-once.js'
import { whenIdle } from './when-idle.js'

const SYNC_IDLE_TIMEOUT_MS = 2000
const SAVE_TIME_LIMIT_MS = 10_000

export interface ThemeState {
  theme: Theme
  source: ThemeSource
  preference: ThemePreference
  pending: ThemePreference | null
  /** Switches at once and saves in the background; reverts with an error toast if saving fails. `sendForm` runs
   * instead when the code that saves could not be loaded: the browser can still send the switch's own form. */
  switchTheme: (next: ThemePreference, sendForm?: () => void) => void
}

const ThemeContext = createContext<ThemeState | null>(null)
if (process.env.NODE_ENV !== 'production') ThemeContext.displayName = 'ThemeContext'

const darkQuery = () => window.matchMedia('(prefers-color-scheme: dark)')
const readColorScheme = (): Theme => darkQuery().matches ? 'dark' : 'light'

/** The OS scheme as an external store. Chromium reports a change made while a page was in the back/forward cache
 * before painting it (HTML's "evaluate media queries and report changes"); `pageshow` reads it again for the
 * browsers that do not. */
function subscribeToColorScheme (onChange: () => void): () => void {
  const unsubscribe = subscribeToSchemeChange(() => onChange())
  window.addEventListener('pageshow', onChange)
  return () => {
    unsubscribe()
    window.removeEventListener('pageshow', onChange)
  }
}

function readSavedPreference (): ThemePreference {
  const match = document.cookie.split('; ').find((entry) => entry.startsWith(`${THEME_COOKIE_NAME}=`))
  // Decoded as the server and the check script decode it, or the three could disagree on `d%61rk`.
  let value: string | undefined
  try {
    value = match === undefined ? undefined : decodeURIComponent(match.slice(THEME_COOKIE_NAME.length + 1))
  } catch {
    value = undefined
  }
  return isThemePreference(value) ? value : 'system'
}

const THEME_RULES: ThemeRules = { switchPath: THEME_SWITCH_PATH, isThemePreference, timeLimitMs: SAVE_TIME_LIMIT_MS }

type ThemeSync = typeof import('./theme-sync.js')
const loadThemeSync = loadOnce(() => import('./theme-sync.js'))

export function ThemeProvider ({ requestInfo, children }: { requestInfo: RequestInfo, children: ReactNode }) {
  const [saved, setSaved] = useState<ThemePreference>(requestInfo.userPrefs.theme)
  const [pending, setPending] = useState<ThemePreference | null>(null)
  // The server's hint during the server render and hydration; the live one after.
  const serverHint = requestInfo.hintSources.theme === 'fallback' ? null : requestInfo.hints.theme
  const hint = useSyncExternalStore<Theme | null>(subscribeToColorScheme, readColorScheme, () => serverHint)
  const { theme, source } = decideTheme({ pending, saved, hint })

  const channel = useRef<ThemeChannel | null>(null)
  useEffect(() => {
    let live = true
    const open = () => {
      loadThemeSync().then(({ openThemeChannel }) => {
        if (live && !channel.current) channel.current = openThemeChannel(setSaved, THEME_RULES)
      }, () => {})
    }
    const cancel = whenIdle(open, SYNC_IDLE_TIMEOUT_MS)
    return () => {
      live = false
      cancel()
      channel.current?.close()
      channel.current = null
    }
  }, [])

  // The cookie knows better than the page data of a cached page or one another tab switched.
  useEffect(() => {
    const adoptCookie = () => {
      if (navigator.cookieEnabled) setSaved(readSavedPreference())
    }
    adoptCookie()
    // Synchronously, so the restored page's first frame already shows it.
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) flushSync(adoptCookie)
    }
    window.addEventListener('pageshow', onPageShow)
    return () => window.removeEventListener('pageshow', onPageShow)
  }, [])

  // Sent one after another, so the server ends with the last choice.
  const queue = useRef<Promise<void>>(Promise.resolve())
  const latest = useRef(0)
  const switchTheme = useCallback((next: ThemePreference, sendForm?: () => void) => {
    const id = ++latest.current
    setPending(next)
    // A save, however it was learnt of: this tab shows it, and the other tabs are told.
    const saved = (sync: ThemeSync, preference: ThemePreference) => {
      setSaved(preference)
      channel.current ??= sync.openThemeChannel(setSaved, THEME_RULES)
      channel.current.post(preference)
    }
    queue.current = queue.current.then(async () => {
      let sync: ThemeSync | null = null
      try {
        sync = await loadThemeSync()
        saved(sync, await sync.saveTheme(next, THEME_RULES))
        if (id === latest.current) setPending(null)
      } catch (error) {
        if (id !== latest.current) return
        // A chunk that failed once fails for the page's life in Chromium (whatwg/html#10327): the switch would never
        // work again. The form's own POST does, as without JavaScript; offline it would only show the browser's error page.
        if (sync === null && sendForm && navigator.onLine) return sendForm()
        setPending(null)
        // An answer cut off after its headers has set the cookie all the same: show what was saved, as the next page will.
        if (navigator.cookieEnabled) {
          const kept = readSavedPreference()
          if (kept === next && sync) return saved(sync, kept)
          setSaved(kept)
          if (kept === next) return
        }
        toast.error('The theme could not be changed', {
          // Without its code loaded, the server was not reached either.
          description: sync === null ? 'The server could not be reached. Check your connection and try again.' : error instanceof sync.ThemeSwitchError ? error.message : 'Please try again.'
        })
      }
    })
  }, [])

  useNoTransitionsOnChange(theme)

  const value = useMemo<ThemeState>(() => ({ theme, source, preference: pending ?? saved, pending, switchTheme }),
    [theme, source, pending, saved, switchTheme])
  return <ThemeContext value={value}>{children}</ThemeContext>
}

/** No colour animates from the old theme: transitions are off for one forced style pass. */
function useNoTransitionsOnChange (theme: Theme): void {
  const shown = useRef(theme)
  useLayoutEffect(() => {
    if (shown.current === theme) return
    shown.current = theme
    const root = document.documentElement
    root.setAttribute('data-theme-switching', '')
    void document.body.offsetWidth
    root.removeAttribute('data-theme-switching')
  }, [theme])
}

export function useTheme (): ThemeState {
  const state = use(ThemeContext)
  if (!state) throw new Error('useTheme must be used inside <ThemeProvider>')
  return state
}

const SCHEMES = ['light', 'dark'] as const

/** Always the same two, never changed by the check script: React finds a hydrating meta by its content, and leaves
 * one it cannot find in the page beside the one it adds. */
export function ThemeColorMeta () {
  const { theme, source } = useTheme()
  return SCHEMES.map((scheme) => (
    <meta key={scheme} name='theme-color' media={`(prefers-color-scheme: ${scheme})`} content={THEME_COLORS[source === 'fallback' ? scheme : theme]} />
  ))
}

export const HINT_SCRIPT_ID = 'hint-check'

/** Built by the server (shared/hint-check-script.ts) and read back in the browser, whose bundle lacks the builder. */
export const HintScriptSource = createContext<(requestInfo: RequestInfo) => string>(() => '')

/** The client-hint check script, first in <head>; browsers blank its parsed nonce, hence suppressHydrationWarning. */
export function HintCheckScript ({ requestInfo, nonce }: { requestInfo: RequestInfo, nonce: string | undefined }) {
  const script = use(HintScriptSource)(requestInfo)
  return <script id={HINT_SCRIPT_ID} nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: script }} />
}
