import type { ExternalToast } from 'sonner'
import type { Toast, ToastType } from '../shared/page-data.js'

// Call only from event handlers and effects, never while rendering: this state is module-level, so on the
// server it would be shared by every request. sonner loads lazily (docs/decisions/first-javascript.md).

export type ToastId = string | number

export interface ToastOptions {
  description?: string
  id?: string
}

type Sonner = typeof import('./toaster.js')
type Show = (toast: Sonner['toast']) => void

let loading: Promise<Sonner> | null = null
let loaded: Sonner | null = null
const onLoaded = new Set<(sonner: Sonner) => void>()
let listening: Sonner['toast'] | null = null
const waiting: Show[] = []
let nextId = 0

/** sonner's chunk, fetched once; a failed fetch is asked for again by the next toast, which a browser fetches anew only
 * once it follows whatwg/html#10327 (Chromium 150 answers with the failure it cached: the toast stays in its box). */
export function loadSonner (): Promise<Sonner> {
  if (!loading) {
    loading = import('./toaster.js')
    loading.then((sonner) => {
      loaded = sonner
      for (const listener of onLoaded) listener(sonner)
      onLoaded.clear()
    }, (error: unknown) => {
      loading = null
      markUnavailable()
      console.error('Notifications could not be loaded:', error)
    })
  }
  return loading
}

export function whenSonnerLoaded (listener: (sonner: Sonner) => void): () => void {
  if (loaded) {
    listener(loaded)
    return () => {}
  }
  onLoaded.add(listener)
  return () => { onLoaded.delete(listener) }
}

/** Asked for while sonner loads: <ToastArea> shows the newest at once, so a toast never waits on the network. */
let pending: readonly Toast[] = []
/** Whether sonner's code failed to load: its stand-in is then all a visitor gets, and must be announced. */
let unavailable = false
const pendingListeners = new Set<() => void>()

function subscribe (listener: () => void): () => void {
  pendingListeners.add(listener)
  return () => { pendingListeners.delete(listener) }
}

function setPending (next: readonly Toast[]): void {
  pending = next
  for (const listener of pendingListeners) listener()
}

function markUnavailable (): void {
  unavailable = true
  for (const listener of pendingListeners) listener()
}

export const pendingToasts = { read: (): readonly Toast[] => pending, subscribe }
export const sonnerUnavailable = { read: (): boolean => unavailable, subscribe }

/** Said by <ToastArea> once its Toaster has subscribed (sonner#168: a toast before that is lost), and null when it goes. */
export function setToasterListening (toast: Sonner['toast'] | null): void {
  listening = toast
  if (!toast) return
  for (const show of waiting.splice(0)) show(toast)
  if (pending.length > 0) setPending([])
}

function run (show: Show): void {
  if (listening) {
    show(listening)
    return
  }
  waiting.push(show)
  void loadSonner()
}

function show (type: ToastType, message: string, { description, id }: ToastOptions): ToastId {
  // Known now, though sonner may show it later: the caller can dismiss it in the meantime.
  const toastId = id ?? `toast-${++nextId}`
  const data: ExternalToast = { id: toastId }
  if (description) data.description = description
  if (!listening) setPending([...pending, description ? { id: toastId, type, title: message, description } : { id: toastId, type, description: message }])
  run((toast) => { toast[type](message, data) })
  return toastId
}

function dismiss (id?: ToastId): void {
  if (!listening) setPending(id === undefined ? [] : pending.filter((toast) => toast.id !== id))
  run((toast) => { toast.dismiss(id) })
}

export const toast = {
  message: (message: string, options: ToastOptions = {}) => show('message', message, options),
  success: (message: string, options: ToastOptions = {}) => show('success', message, options),
  error: (message: string, options: ToastOptions = {}) => show('error', message, options),
  dismiss
}

export function showToast ({ type, title, description, id }: Toast): ToastId {
  return title ? show(type, title, { description, id }) : show(type, description, { id })
}
