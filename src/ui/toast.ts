import { toast as sonner, type ExternalToast } from 'sonner'
import type { Toast, ToastType } from '../shared/page-data.js'

/**
 * The app's toast API, over sonner. It lives in ui/ (not client/) so that
 * components such as the theme switch can import it (ui/ imports only shared/).
 * It knows the same three kinds as a flash toast (shared/page-data.ts), so a
 * toast looks the same whether the browser fired it or the server sent it
 * across a redirect.
 *
 * Call it from event handlers and effects, never while rendering: sonner keeps
 * its toasts in a module-level store, which on the server would be shared by
 * every request, and the <Toaster> only shows what it hears after hydration.
 */

export type ToastId = string | number

export interface ToastOptions {
  /** A second, quieter line under the message. */
  description?: string
  /** Showing a toast again with the same id updates it rather than stacking another. */
  id?: string
}

const SHOW: Record<ToastType, (message: string, data: ExternalToast) => ToastId> = {
  message: sonner.message,
  success: sonner.success,
  error: sonner.error
}

function show (type: ToastType, message: string, { description, id }: ToastOptions): ToastId {
  const data: ExternalToast = {}
  if (description) data.description = description
  if (id !== undefined) data.id = id
  return SHOW[type](message, data)
}

/**
 * Same signatures as sonner's (`toast.error('Could not save', { description })`),
 * so code written against sonner moves over by changing its import.
 */
export const toast = {
  message: (message: string, options: ToastOptions = {}) => show('message', message, options),
  success: (message: string, options: ToastOptions = {}) => show('success', message, options),
  error: (message: string, options: ToastOptions = {}) => show('error', message, options),
  /** Closes one toast, or all of them without an id. */
  dismiss: (id?: ToastId) => { sonner.dismiss(id) }
}

/** Shows a toast in the shape of page data's Toast: the title is the bold line, or the description alone. */
export function showToast ({ type, title, description, id }: Toast): ToastId {
  return title ? show(type, title, { description, id }) : show(type, description, { id })
}

/** Where this tab remembers the flash toasts it has shown (see showFlashToast). */
const SHOWN_KEY = 'agent-stack:flash-toasts-shown'
/** Ids are per occurrence, so a handful suffices; bounded so the entry never grows. */
const REMEMBERED = 20
/** The in-memory record, for when sessionStorage is unavailable (disabled, sandboxed, quota). */
const shownOnThisPage = new Set<string>()

/**
 * Shows the server's flash toast unless this tab has already shown it, and
 * returns whether it did. Deduplicated by the toast's id, in memory (a
 * StrictMode double effect, a remount) and in sessionStorage (the same HTML
 * shown again by a back navigation served from the HTTP cache).
 */
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
    // Storage refused: the in-memory Set still covers this page.
  }
}
