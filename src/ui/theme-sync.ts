import type { ThemePreference } from '../shared/theme.js'

// Loaded when idle or on the first switch. The theme module's values come as arguments: importing it here
// would split it into a chunk of its own that the first load then fetches separately.

export interface ThemeRules {
  switchPath: string
  isThemePreference: (value: unknown) => value is ThemePreference
  /** How long a save may take, answer included, before the visitor is told it failed. */
  timeLimitMs: number
}

const CHANNEL_NAME = 'agent-stack:theme'

/** A failure the visitor is told about in so many words. */
export class ThemeSwitchError extends Error {}

export async function saveTheme (next: ThemePreference, { switchPath, isThemePreference, timeLimitMs }: ThemeRules): Promise<ThemePreference> {
  let response: Response
  try {
    response = await fetch(switchPath, {
      method: 'POST',
      headers: { Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ theme: next }),
      credentials: 'same-origin',
      // A request a bad network swallows never settles: the new theme would stay shown unsaved, and later presses queued behind it.
      signal: AbortSignal.timeout(timeLimitMs)
    })
  } catch (error) {
    throw new ThemeSwitchError(error instanceof DOMException && error.name === 'TimeoutError'
      ? 'The server did not answer in time. Check your connection and try again.'
      : 'The server could not be reached. Check your connection and try again.')
  }
  const answer: unknown = await response.json().catch(() => null)
  const theme = (answer as { theme?: unknown } | null)?.theme
  if (!response.ok || !isThemePreference(theme)) {
    throw new ThemeSwitchError(`The server did not save it (${response.status}). Please try again.`)
  }
  return theme
}

export interface ThemeChannel {
  post (theme: ThemePreference): void
  close (): void
}

/** The other tabs' choices, as they save them; closed while the page sits in the back/forward cache. */
export function openThemeChannel (onTheme: (theme: ThemePreference) => void, { isThemePreference }: ThemeRules): ThemeChannel {
  let channel: BroadcastChannel | null = null
  const open = () => {
    if (typeof BroadcastChannel === 'undefined') return
    channel = new BroadcastChannel(CHANNEL_NAME)
    channel.onmessage = (event: MessageEvent<unknown>) => {
      const theme = (event.data as { theme?: unknown } | null)?.theme
      if (isThemePreference(theme)) onTheme(theme)
    }
  }
  const shut = () => {
    channel?.close()
    channel = null
  }
  // A message to an open channel evicts the page from the back/forward cache.
  const onPageShow = (event: PageTransitionEvent) => {
    if (event.persisted && !channel) open()
  }
  open()
  window.addEventListener('pagehide', shut)
  window.addEventListener('pageshow', onPageShow)
  return {
    post (theme) { channel?.postMessage({ theme }) },
    close () {
      shut()
      window.removeEventListener('pagehide', shut)
      window.removeEventListener('pageshow', onPageShow)
    }
  }
}
