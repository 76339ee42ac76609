// Debian's chromium through playwright-core, as the browser tests
// (signin.mjs, sso.mjs) use it: headless, a fresh profile of its own, no
// background traffic, and over https the server's certificate trusted by
// its SPKI hash (the base64 SHA-256 of its public key).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium as playwright } from 'playwright-core'

export const STEP_TIMEOUT = 10_000

// env(name): a variable the test script set, or the run fails at setup
export const env = (name) => {
  const v = process.env[name]
  if (!v) { console.log(`FAIL setup: ${name} is not set`); process.exit(1) }
  return v
}

// launchBrowser({spki, chromium}): {context, close}; throws when chromium
// does not start (its profile then removed)
export async function launchBrowser({ spki = '', chromium = '/usr/bin/chromium' } = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'edgeauth-chromium-'))
  let context
  try {
    context = await playwright.launchPersistentContext(profile, {
      executablePath: chromium || '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
        ...(spki ? [`--ignore-certificate-errors-spki-list=${spki}`] : [])],
      viewport: { width: 1024, height: 720 },
      timeout: 20_000,
    })
  } catch (e) {
    rmSync(profile, { recursive: true, force: true })
    throw new Error(`${chromium} did not start: ${e.message.split('\n')[0]}`)
  }
  context.setDefaultTimeout(STEP_TIMEOUT)
  context.setDefaultNavigationTimeout(STEP_TIMEOUT)
  const close = async () => {
    await context.close().catch(() => {})
    rmSync(profile, { recursive: true, force: true })
  }
  return { context, close }
}

// watchProblems(page, expectedStatus, url): every console error or warning
// (CSP violations are reported there), uncaught page error and failed
// request, with the page it happened on, as a list that grows. Chromium logs
// every 4xx document as "Failed to load resource"; the one a test expects
// (status expectedStatus at url) is left out.
export function watchProblems(page, expectedStatus, url) {
  const problems = []
  const expected = (m) => m.location().url === url &&
    m.text().startsWith(`Failed to load resource: the server responded with a status of ${expectedStatus} `)
  page.on('console', (m) => {
    if ((m.type() === 'error' || m.type() === 'warning') && !expected(m)) {
      problems.push(`console ${m.type()} on ${page.url()}: ${m.text()}`)
    }
  })
  page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`))
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.method()} ${r.url()}: ${r.failure()?.errorText}`))
  return problems
}

// steps(): the report every browser script prints, "ok <step>" or
// "FAIL <step>: why", with {ok, fail, check, failures()}.
export function steps() {
  let failures = 0
  const ok = (step) => console.log(`ok ${step}`)
  const fail = (step, why) => { failures++; console.log(`FAIL ${step}: ${why}`) }
  return { ok, fail, check: (step, cond, why) => (cond ? ok(step) : fail(step, why)),
    failures: () => failures }
}

// launchOrExit(report, options): launchBrowser's {context, close} and the
// step "launch", or "FAIL launch" and exit 1.
export async function launchOrExit(report, options) {
  try {
    const browser = await launchBrowser(options)
    report.ok('launch')
    return browser
  } catch (e) {
    report.fail('launch', e.message)
    process.exit(1)
  }
}
