import { Toaster } from 'sonner'
import type { Toast } from '../shared/page-data.js'
import type { Theme } from '../shared/theme.js'

/** The toast area: sonner's Toaster with the shell's defaults, themed with the theme in effect. */
export function ToastArea ({ theme }: { theme: Theme, flash: Toast | null }) {
  return <Toaster position='top-center' closeButton theme={theme} duration={4000} visibleToasts={3} />
}
