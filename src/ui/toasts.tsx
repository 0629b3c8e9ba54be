import { useEffect, useState } from 'react'
import { Toaster } from 'sonner'
import type { Toast } from '../shared/page-data.js'
import type { Theme } from '../shared/theme.js'
import { showFlashToast } from './toast.js'

/** sonner's Toaster, themed with the resolved theme (never `system`), and the page's flash toast. */
export function ToastArea ({ theme, flash }: { theme: Theme, flash: Toast | null }) {
  const [handedToToaster, setHandedToToaster] = useState(false)
  useEffect(() => {
    if (!flash) return
    // The <Toaster> below has subscribed by now (children's effects run first): sonner#168.
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

/** The flash toast for visitors without JavaScript; hidden once the Toaster shows it. */
function FlashToastFallback ({ flash, hidden }: { flash: Toast, hidden: boolean }) {
  return (
    <div role='status' aria-live='polite' className='flash-toast' data-type={flash.type} hidden={hidden}>
      {flash.title ? <strong className='flash-toast-title'>{flash.title}</strong> : null}
      <span className='flash-toast-description'>{flash.description}</span>
    </div>
  )
}
