import { COLOR_SCHEME_COOKIE, HINT_COOKIE_MAX_AGE, TIME_ZONE_COOKIE } from './client-hints.js'
import { serializeForScript } from './serialize.js'
import { THEME_COLORS, THEME_COOKIE_NAME, type ThemePreference } from './theme.js'

/**
 * The inline script at the top of <head>, run before the stylesheet and the
 * first paint. It replaces @epic-web/client-hints' getClientHintCheckScript,
 * which reloads every first visit whose hints are not yet in cookies, hides
 * the page with a <style> that our CSP refuses (no nonce), and cannot tell
 * what the server rendered with.
 *
 * - Theme: the saved preference is read from its cookie (a page from the
 *   HTTP or back/forward cache, or one rendered while another tab switched,
 *   may carry an older one) and `system` paints the live OS scheme, all at
 *   once (class, data-theme-source, theme-color), so the theme never needs a
 *   reload; React adopts the same values after hydration (ui/theme.tsx).
 * - Cookies: both hints are written, with the browser's own values only.
 * - Reload: only for the time zone, whose effect on the page the browser
 *   cannot fix itself, and only when the cookie the server saw differs from
 *   the browser's zone and the server rendered another zone. At most one
 *   reload in a row per tab (sessionStorage), never when the cookie did not
 *   stick (blocked cookies, some private modes), never for bots.
 */

/** What the server rendered with: the script compares the browser against it. */
export interface HintCheckInput {
  /** The saved preference; `system` means the page follows the OS scheme. */
  preference: ThemePreference
  /** The time zone the page was rendered in. */
  timeZone: string
  /** False for bots: they index the first response and must never be reloaded. */
  reload: boolean
}

/** sessionStorage keys: the reload counter, and the referrer a reload would lose. */
export const HINT_RELOADS_KEY = 'agent-stack:hint-reloads'
export const HINT_REFERRER_KEY = 'agent-stack:hint-referrer'
const MAX_RELOADS = 1

// A constant template (not a stringified function) so that the server bundle
// and the minified client bundle render byte-identical text for hydration.
const BODY = `var r=document.documentElement,
s=matchMedia('(prefers-color-scheme: dark)').matches?'dark':'light',
c=navigator.cookieEnabled,
get=function(n){var m=document.cookie.match(new RegExp('(?:^|; )'+n+'=([^;]*)'));if(!m)return null;try{return decodeURIComponent(m[1])}catch(e){return null}},
saved=c?get(d.themeCookie):null,
p=saved==='light'||saved==='dark'?saved:c?'system':d.preference;
if(p==='system'||p!==d.preference){
var t=p==='system'?s:p;
r.className=t;
r.setAttribute('data-theme-source',p==='system'?'hint':'saved');
document.querySelectorAll('meta[name="theme-color"]').forEach(function(m){m.setAttribute('content',d.colors[t])});
}
if(!c)return;
try{
var set=function(n,v){document.cookie=n+'='+encodeURIComponent(v)+'; Max-Age='+d.maxAge+'; Path=/; SameSite=Lax'+(location.protocol==='https:'?'; Secure':'')},
z=Intl.DateTimeFormat().resolvedOptions().timeZone,
sent=get(d.timeZoneCookie);
if(get(d.colorSchemeCookie)!==s)set(d.colorSchemeCookie,s);
if(z&&sent!==z)set(d.timeZoneCookie,z);
var n=Number(sessionStorage.getItem(d.reloadsKey))||0;
if(d.reload&&z&&sent!==z&&d.timeZone!==z&&n<d.maxReloads&&get(d.timeZoneCookie)===z){
sessionStorage.setItem(d.reloadsKey,String(n+1));
if(document.referrer)sessionStorage.setItem(d.referrerKey,document.referrer);
r.style.visibility='hidden';
location.reload();
return;
}
sessionStorage.removeItem(d.reloadsKey);
var ref=sessionStorage.getItem(d.referrerKey);
if(ref!==null){sessionStorage.removeItem(d.referrerKey);Object.defineProperty(document,'referrer',{value:ref,configurable:true})}
}catch(e){}`

/** The script's source, with what the server rendered with inlined safely. */
export function hintCheckScript (input: HintCheckInput): string {
  const data = {
    ...input,
    colors: THEME_COLORS,
    themeCookie: THEME_COOKIE_NAME,
    colorSchemeCookie: COLOR_SCHEME_COOKIE,
    timeZoneCookie: TIME_ZONE_COOKIE,
    maxAge: HINT_COOKIE_MAX_AGE,
    reloadsKey: HINT_RELOADS_KEY,
    referrerKey: HINT_REFERRER_KEY,
    maxReloads: MAX_RELOADS
  }
  return `(function(d){${BODY}})(${serializeForScript(data)})`
}
