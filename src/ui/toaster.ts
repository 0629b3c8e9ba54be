import type { Toast } from '../shared/page-data.js'
import { showToast } from './toast.js'

// One lazy chunk; until it loads, the server's box shows the flash toast.
export { Toaster, toast } from 'sonner'

const SHOWN_KEY = 'agent-stack:flash-toasts-shown'
const REMEMBERED = 20
const shownOnThisPage = new Set<string>()

/** Shows the flash toast unless this tab has shown it (a remount, or the same HTML from the HTTP cache). */
export function showFlashToast (flash: Toast): boolean {
  if (shownOnThisPage.has(flash.id)) return false
  const remembered = readRemembered()
  if (remembered.includes(flash.id)) return false
  shownOnThisPage.add(flash.id)
  writeRemembered([...remembered, flash.id].slice(-REMEMBERED))
  showToast(flash)
  return true
}

function readRemembered (): string[] {
  try {
    const parsed: unknown = JSON.parse(window.sessionStorage.getItem(SHOWN_KEY) ?? '[]')
    return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === 'string') : []
  } catch {
    return []
  }
}

function writeRemembered (ids: string[]): void {
  try {
    window.sessionStorage.setItem(SHOWN_KEY, JSON.stringify(ids))
  } catch {
  }
}
