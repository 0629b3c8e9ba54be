import { useEffect, useState } from 'react'
import { Toaster } from 'sonner'
import type { Toast } from '../shared/page-data.js'
import type { Theme } from '../shared/theme.js'
import { showFlashToast } from './toast.js'

/**
 * The toast area: sonner's Toaster with the shell's defaults, themed with the
 * resolved theme (never `system`: the site's theme is class-driven), and the
 * page's flash toast.
 *
 * The Toaster renders no inline `style` on the server (its <ol>, which carries
 * CSS variables, appears only once there are toasts, i.e. in the browser, where
 * React sets them through CSSOM, which the CSP allows). Its stylesheet ships
 * in ours (styles.css), as sonner's runtime <style> would be refused.
 */
export function ToastArea ({ theme, flash }: { theme: Theme, flash: Toast | null }) {
  // False on the server and during hydration, so both render the fallback alike.
  const [handedToToaster, setHandedToToaster] = useState(false)
  useEffect(() => {
    if (!flash) return
    // React runs a child's effects before its parent's, so the <Toaster> below has
    // subscribed to sonner's store by now; one fired before it subscribes can be lost (sonner#168).
    // showFlashToast deduplicates by id, so StrictMode's second run and remounts show nothing more.
    showFlashToast(flash)
    setHandedToToaster(true)
  }, [flash])
  return (
    <>
      <Toaster position='top-center' closeButton theme={theme} duration={4000} visibleToasts={3} />
      {flash ? <FlashToastFallback flash={flash} hidden={handedToToaster} /> : null}
    </>
  )
}

/**
 * The flash toast as the server renders it, for visitors without JavaScript
 * (or before the bundle runs): a polite status region, hidden once the same
 * message is in the Toaster so it is neither seen nor announced twice.
 */
function FlashToastFallback ({ flash, hidden }: { flash: Toast, hidden: boolean }) {
  return (
    <div role='status' aria-live='polite' className='flash-toast' data-type={flash.type} hidden={hidden}>
      {flash.title ? <strong className='flash-toast-title'>{flash.title}</strong> : null}
      <span className='flash-toast-description'>{flash.description}</span>
    </div>
  )
}
