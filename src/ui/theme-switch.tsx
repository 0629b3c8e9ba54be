import type { FormEvent } from 'react'
import { THEME_PREFERENCES, THEME_SWITCH_PATH, nextThemePreference, type ThemePreference } from '../shared/theme.js'
import { useRequestInfo } from './request-info.js'
import { useTheme } from './theme.js'

const LABELS: Record<ThemePreference, string> = { system: 'System', light: 'Light', dark: 'Dark' }

/** A real form, so it works without JavaScript (the server redirects back, 303). */
export function ThemeSwitch () {
  const { preference, switchTheme } = useTheme()
  const { returnTo } = useRequestInfo()
  const next = nextThemePreference(preference)
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    switchTheme(next, () => {
      // Rendered again since the press, the hidden input now names the choice after this one.
      const choice = form.elements.namedItem('theme')
      if (choice instanceof HTMLInputElement) choice.value = next
      HTMLFormElement.prototype.submit.call(form)
    })
  }
  return (
    <form method='post' action={THEME_SWITCH_PATH} className='theme-switch' onSubmit={onSubmit}>
      <input type='hidden' name='theme' value={next} />
      <input type='hidden' name='redirectTo' value={returnTo} />
      {/* The name says the current mode (WCAG 2.5.3: it matches the visible text); the title says what a press does. */}
      <button type='submit' title={`Switch to the ${LABELS[next].toLowerCase()} theme`}>
        <ThemeIcon preference={preference} />
        {/* Every label takes the same cell, so a preference learnt after the first paint (a cookie, a cached page)
          does not change the button's width. */}
        <span className='theme-switch-labels'>
          {THEME_PREFERENCES.map((option) => option === preference
            ? <span key={option}>{`Theme: ${LABELS[option]}`}</span>
            : <span key={option} className='theme-switch-unseen' aria-hidden='true'>{`Theme: ${LABELS[option]}`}</span>)}
        </span>
      </button>
    </form>
  )
}

function ThemeIcon ({ preference }: { preference: ThemePreference }) {
  const paths: Record<ThemePreference, string> = {
    system: 'M3 4h18v12H3zM8 20h8M12 16v4',
    light: 'M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8zM12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4',
    dark: 'M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z'
  }
  return (
    <svg aria-hidden='true' focusable='false' width='16' height='16' viewBox='0 0 24 24' fill='none' stroke='currentColor' strokeWidth='2' strokeLinecap='round' strokeLinejoin='round'>
      <path d={paths[preference]} />
    </svg>
  )
}
