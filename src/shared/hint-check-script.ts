import { COLOR_SCHEME_COOKIE, HINT_COOKIE_MAX_AGE, TIME_ZONE_COOKIE, TIME_ZONE_MARKER } from './client-hints.js'
import { boundedMemo } from './bounded-memo.js'
import type { RequestInfo } from './page-data.js'
import { serializeForScript } from './serialize.js'
import { THEME_COOKIE_NAME, type ThemePreference } from './theme.js'

// Replaces @epic-web/client-hints' script: docs/decisions/theme-and-client-hints.md.

export interface HintCheckInput {
  preference: ThemePreference
  timeZone: string
  reload: boolean
}

export const HINT_RELOADS_KEY = 'agent-stack:hint-reloads'
export const HINT_REFERRER_KEY = 'agent-stack:hint-referrer'
const MAX_RELOADS = 1

// A constant template, so the server and the minified client render the same text.
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
}
if(!c)return;
try{
var set=function(n,v){document.cookie=n+'='+encodeURIComponent(v)+'; Max-Age='+d.maxAge+'; Path=/; SameSite=Lax'+(location.protocol==='https:'?'; Secure':'')},
z=Intl.DateTimeFormat().resolvedOptions().timeZone,
sent=get(d.timeZoneCookie);
if(get(d.colorSchemeCookie)!==s)set(d.colorSchemeCookie,s);
if(z&&sent!==z)set(d.timeZoneCookie,z);
var n=Number(sessionStorage.getItem(d.reloadsKey))||0,
ref=sessionStorage.getItem(d.referrerKey);
sessionStorage.removeItem(d.reloadsKey);
if(ref!==null){sessionStorage.removeItem(d.referrerKey);Object.defineProperty(document,'referrer',{value:ref,configurable:true})}
if(d.reload&&z&&sent!==z&&d.timeZone!==z&&n<d.maxReloads&&get(d.timeZoneCookie)===z){
var o=new MutationObserver(function(){
if(!document.querySelector('['+d.marker+']'))return;
o.disconnect();
sessionStorage.setItem(d.reloadsKey,String(n+1));
if(document.referrer)sessionStorage.setItem(d.referrerKey,document.referrer);
r.style.visibility='hidden';
location.reload();
});
o.observe(r,{childList:true,subtree:true});
document.addEventListener('DOMContentLoaded',function(){o.disconnect()});
}
}catch(e){}`

export function hintCheckScriptFor (requestInfo: RequestInfo): string {
  return hintCheckScript({ preference: requestInfo.userPrefs.theme, timeZone: requestInfo.hints.timeZone, reload: !requestInfo.isBot })
}

export function hintCheckScript (input: HintCheckInput): string {
  return scriptFor(JSON.stringify([input.preference, input.reload, input.timeZone]))
}

const scriptFor = boundedMemo(512, (key) => {
  const [preference, reload, timeZone] = JSON.parse(key) as [ThemePreference, boolean, string]
  return buildScript({ preference, reload, timeZone })
})

function buildScript (input: HintCheckInput): string {
  const data = {
    ...input,
    themeCookie: THEME_COOKIE_NAME,
    colorSchemeCookie: COLOR_SCHEME_COOKIE,
    timeZoneCookie: TIME_ZONE_COOKIE,
    maxAge: HINT_COOKIE_MAX_AGE,
    reloadsKey: HINT_RELOADS_KEY,
    referrerKey: HINT_REFERRER_KEY,
    maxReloads: MAX_RELOADS,
    marker: TIME_ZONE_MARKER
  }
  return `(function(d){${BODY}})(${serializeForScript(data)})`
}
