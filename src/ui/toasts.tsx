import { useEffect, useState, useSyncExternalStore } from 'react'
import type { Toast } from '../shared/page-data.js'
import type { Theme } from '../shared/theme.js'
import { loadSonner, pendingToasts, setToasterListening, sonnerUnavailable, whenSonnerLoaded } from './toast.js'
import { whenIdle } from './when-idle.js'

type Sonner = typeof import('./toaster.js')

const IDLE_TIMEOUT_MS = 2000
const NONE: readonly Toast[] = []

/** The server renders no Toaster: sonner loads at once for a flash toast, else when idle or on the first toast. */
export function ToastArea ({ theme, flash }: { theme: Theme, flash: Toast | null }) {
  const [sonner, setSonner] = useState<Sonner | null>(null)
  const [handedToToaster, setHandedToToaster] = useState(false)
  useEffect(() => {
    const stopWaiting = whenSonnerLoaded(setSonner)
    const load = () => { void loadSonner() }
    let cancelIdle = () => {}
    if (flash) load()
    else cancelIdle = whenIdle(load, IDLE_TIMEOUT_MS)
    return () => {
      stopWaiting()
      cancelIdle()
    }
  }, [flash])
  useEffect(() => {
    if (!flash) return undefined
    // Whether this tab has shown it is known with sonner; until then the server's box shows it.
    return whenSonnerLoaded(({ showFlashToast }) => {
      showFlashToast(flash)
      setHandedToToaster(true)
    })
  }, [flash])
  const waiting = useSyncExternalStore(pendingToasts.subscribe, pendingToasts.read, () => NONE)
  const newestWaiting = waiting.at(-1)
  // Chromium keeps a failed chunk failed for the page's life (whatwg/html#10327): no live region of sonner's will come.
  const standingIn = useSyncExternalStore(sonnerUnavailable.subscribe, sonnerUnavailable.read, () => false)
  const { Toaster, toast } = sonner ?? {}
  return (
    <>
      {Toaster && toast
        ? (
          <>
            <Toaster position='top-center' closeButton theme={theme} duration={4000} visibleToasts={3} />
            <ToasterListening toast={toast} />
          </>
          )
        : null}
      {newestWaiting
        ? <ToastBox toast={newestWaiting} waiting={!standingIn} />
        : flash ? <ToastBox toast={flash} hidden={handedToToaster} /> : null}
    </>
  )
}

/** Rendered after the Toaster, so its effect runs once the Toaster's own has subscribed. */
function ToasterListening ({ toast }: { toast: Sonner['toast'] }) {
  useEffect(() => {
    setToasterListening(toast)
    return () => setToasterListening(null)
  }, [toast])
  return null
}

/** The flash toast without JavaScript, and any toast until sonner shows it; a waiting one is not announced: sonner's
 * live region will. */
function ToastBox ({ toast, hidden = false, waiting = false }: { toast: Toast, hidden?: boolean, waiting?: boolean }) {
  return (
    <div role={waiting ? undefined : 'status'} aria-live={waiting ? undefined : 'polite'} aria-hidden={waiting || undefined} className='flash-toast' data-type={toast.type} data-waiting={waiting || undefined} hidden={hidden}>
      {toast.title ? <strong className='flash-toast-title'>{toast.title}</strong> : null}
      <span className='flash-toast-description'>{toast.description}</span>
    </div>
  )
}
