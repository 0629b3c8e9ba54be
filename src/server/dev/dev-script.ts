import { serializeForScript } from '../../shared/serialize.js'
import type { Overlay } from './overlay.js'

// Reloads once another build id answers, and reconnects by itself while the server restarts.
// The overlay is drawn with DOM calls only: nothing is parsed as HTML, and CSSOM styles need no CSP allowance.

export interface DevScriptInput {
  build: string
  events: string
  failure: Overlay | null
}

const BODY = `var host=null,shown=null,build=null,wait=100;
function el(tag,parent,css,text){var e=document.createElement(tag);e.style.cssText=css;if(text!=null)e.textContent=text;parent.appendChild(e);return e}
function draw(overlay){
if(overlay===shown)return;
shown=overlay;
if(host){host.remove();host=null}
if(!overlay)return;
host=document.createElement('agent-stack-dev-overlay');
var box=el('div',host.attachShadow({mode:'open'}),'position:fixed;inset:0;z-index:2147483647;overflow:auto;box-sizing:border-box;padding:2rem;background:rgba(11,17,32,.96);color:#f3f4f6;font:14px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace');
box.setAttribute('role','alertdialog');
box.setAttribute('aria-label',overlay.title);
el('h1',box,'margin:0 4rem 1rem 0;font-size:1.125rem;color:#fca5a5',overlay.title);
overlay.entries.forEach(function(entry){
el('h2',box,'margin:1.5rem 0 .5rem;font-size:1rem;color:#93c5fd',entry.label);
el('pre',box,'margin:0;white-space:pre-wrap;word-break:break-word',entry.text);
});
el('button',box,'position:absolute;top:1.5rem;right:2rem;font:inherit;padding:.25rem .75rem;color:inherit;background:transparent;border:1px solid currentColor;border-radius:4px;cursor:pointer','Close').onclick=function(){draw(null)};
(document.body||document.documentElement).appendChild(host);
}
function update(){draw(build||d.failure)}
if(d.failure){if(document.readyState==='loading')document.addEventListener('DOMContentLoaded',update);else update()}
(function connect(){
var source=new EventSource(d.events);
source.onmessage=function(event){
var status=JSON.parse(event.data);
if(status.build!==d.build){source.close();location.reload();return}
wait=100;
build=status.overlay;
update();
};
source.onerror=function(){source.close();setTimeout(connect,wait);wait=Math.min(wait+100,1000)};
})();`

export function devScript (input: DevScriptInput): string {
  return `;(function(d){${BODY}})(${serializeForScript(input)})`
}
