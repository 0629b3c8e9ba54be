import { redirect } from 'react-router'
import { THEMES, themeCookie } from '../theme.js'

// A resource route: the form posts here and is sent back with a 303, as the app's switch does without JavaScript.
export async function action ({ request }) {
  const form = await request.formData()
  const theme = form.get('theme')
  if (!THEMES.has(theme)) throw new Response('theme must be light, dark or system', { status: 400 })
  const to = form.get('redirectTo')
  const safe = typeof to === 'string' && to.startsWith('/') && !to.startsWith('//') && !to.startsWith('/\\') ? to : '/'
  return redirect(safe, { status: 303, headers: { 'set-cookie': themeCookie(theme) } })
}
