// npm run lighthouse: every page within two links of home, mobile and desktop; exits 1 when a category scores under
// TARGETS.lighthouseScore. Installed into bench/lighthouse/ on first use, never by the project's npm ci; Chromium
// from CHROMIUM_PATH, else /usr/bin/chromium.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { root, runMain, startApp } from './harness.mjs'
import { linkedPages, lighthouseShortfalls, TARGETS } from './targets.mjs'

const DIR = join(root, 'bench', 'lighthouse')
const CLI = join(DIR, 'node_modules', 'lighthouse', 'cli', 'index.js')
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const CHROME_FLAGS = '--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync --no-first-run'
const FORM_FACTORS = ['mobile', 'desktop']

function prepare () {
  if (existsSync(CLI)) return
  console.log('lighthouse: installing it into bench/lighthouse (npm ci, once)')
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: DIR, stdio: 'inherit' })
}

async function sitePages (url) {
  const pages = new Set(['/'])
  for (let depth = 0; depth < 2; depth++) {
    for (const page of [...pages]) {
      const response = await fetch(new URL(page, url), { headers: { accept: 'text/html' } })
      for (const linked of linkedPages(await response.text(), response.url)) pages.add(linked)
    }
  }
  return [...pages].sort()
}

function audit (url, formFactor) {
  const args = [CLI, url, `--chrome-flags=${CHROME_FLAGS}`, '--output=json', '--output-path=stdout', '--quiet', ...(formFactor === 'desktop' ? ['--preset=desktop'] : [])]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, CHROME_PATH: CHROMIUM }, stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => { output += chunk })
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`lighthouse exited with ${code} for ${url} (${formFactor})`))
      const { categories } = JSON.parse(output)
      resolve(Object.fromEntries(Object.values(categories).map(({ id, score }) => [id, Math.round(score * 100)])))
    })
  })
}

async function main () {
  prepare()
  execFileSync(process.execPath, ['build/cli.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' })
  const { url } = await startApp()
  const reports = []
  for (const page of await sitePages(url)) {
    for (const formFactor of FORM_FACTORS) {
      const scores = await audit(new URL(page, url).href, formFactor)
      reports.push({ page, formFactor, scores })
      console.log(`${page} (${formFactor}): ${Object.entries(scores).map(([category, score]) => `${category} ${score}`).join(', ')}`)
    }
  }
  const shortfalls = lighthouseShortfalls(reports, TARGETS.lighthouseScore)
  for (const { page, formFactor, category, score } of shortfalls) console.log(`missed: ${page} (${formFactor}) ${category} ${score} < ${TARGETS.lighthouseScore}`)
  console.log(shortfalls.length === 0 ? `met: every category of ${reports.length} audits is ${TARGETS.lighthouseScore}` : `${shortfalls.length} categories missed`)
  return shortfalls.length === 0
}

await runMain('lighthouse', main)
