import { toast as sonner, type ExternalToast } from 'sonner'
import type { Toast, ToastType } from '../shared/page-data.js'

/**
 * The app's toast API over sonner, with the flash toast's three kinds. Call it
 * from event handlers and effects, never while rendering: sonner's store is
 * module-level, so on the server it would be shared by every request.
 */

export type ToastId = string | number

export interface ToastOptions {
  description?: string
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

/** sonner's signatures: `toast.error('Could not save', { description })`. */
export const toast = {
  message: (message: string, options: ToastOptions = {}) => show('message', message, options),
  success: (message: string, options: ToastOptions = {}) => show('success', message, options),
  error: (message: string, options: ToastOptions = {}) => show('error', message, options),
  dismiss: (id?: ToastId) => { sonner.dismiss(id) }
}

export function showToast ({ type, title, description, id }: Toast): ToastId {
  return title ? show(type, title, { description, id }) : show(type, description, { id })
}

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
