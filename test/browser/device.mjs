// The /device page in a real browser (docs/device.md, "What the user
// sees"): Debian's chromium, driven by playwright-core, decides the codes
// that devices (openid-client's and oauth4webapi's device functions, which
// poll meanwhile) show. The first code is typed on /device as a person
// types it (lower case, no dash), which sends the browser to the project's
// sign-in page and back to the approval page; the others open
// verification_uri_complete (a QR code's link) in the signed-in session.
// Each approval page must name the app and the code; its Approve or Deny
// button is clicked. No console error or CSP violation on any page.
// Prints "ok <step>" for each step that passes and "FAIL <step>: why" for
// one that does not; exits 1 on any failure. Run by
// test/blackbox/t_app_device.sh, which passes:
//   BASE USER_EMAIL USER_PASSWORD APP_NAME
//   DECISIONS ("CODE=approve CODE=deny ...", the codes as the device shows
//   them) [SCREENSHOT_DIR] [CHROMIUM]
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { env, launchOrExit, steps, watchProblems } from './launch.mjs'

const BASE = env('BASE')
const EMAIL = env('USER_EMAIL')
const PASSWORD = env('USER_PASSWORD')
const APP_NAME = env('APP_NAME')
const DECISIONS = env('DECISIONS').trim().split(/\s+/).map((d) => d.split('='))
const SHOTS = process.env.SCREENSHOT_DIR || 'build'
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium'

const { ok, fail, check, failures } = steps()
const text = async (page) => await page.locator('body').innerText().catch(() => '')

const browser = await launchOrExit({ ok, fail }, { chromium: CHROMIUM })
const page = browser.context.pages()[0] ?? await browser.context.newPage()
const problems = watchProblems(page, 0, '')
mkdirSync(SHOTS, { recursive: true })

// The approval page of code (as the device shows it): names the app and the
// code; then its button for decision, and the page that says it was done.
async function decide (n, code, decision) {
  const body = await text(page)
  check(`approval_${n}`, page.url() === `${BASE}/device?user_code=${code.replace('-', '')}` ||
    page.url() === `${BASE}/device?user_code=${code}`, `at ${page.url()}`)
  check(`names_app_${n}`, body.includes('Approve a device?') && body.includes(APP_NAME) &&
    body.includes(code), `the page says: ${body.slice(0, 400)}`)
  if (n === 1) await page.screenshot({ path: join(SHOTS, 'device-approval.png'), fullPage: true })
  await Promise.all([
    page.waitForNavigation({ waitUntil: 'load' }),
    page.getByRole('button', { name: decision === 'approve' ? 'Approve' : 'Deny' }).click(),
  ])
  const done = await text(page)
  const want = decision === 'approve' ? 'Device approved' : 'Device denied'
  check(`decided_${n}`, done.includes(want), `after ${decision}, the page says: ${done.slice(0, 300)}`)
}

try {
  // 1. the entry page, no session yet: the code typed as a person types it
  const [first, firstDecision] = DECISIONS[0]
  await page.goto(`${BASE}/device`)
  const field = page.getByLabel('Code')
  check('entry_form', await field.isVisible(), `no code field: ${(await text(page)).slice(0, 300)}`)
  await field.fill(first.replace('-', '').toLowerCase())
  await Promise.all([page.waitForURL(/\/api\/v1\/authorize\?/), field.press('Enter')])
  check('to_signin', page.url().startsWith(`${BASE}/api/v1/authorize?`), `at ${page.url()}`)

  // 2. the project's sign-in page, then back to the approval page
  await page.locator('input[name=email]').fill(EMAIL)
  await page.locator('input[name=password]').fill(PASSWORD)
  await Promise.all([
    page.waitForURL((u) => u.pathname === '/device', { waitUntil: 'load' }),
    page.locator('input[name=password]').press('Enter'),
  ]).catch(async (e) => { throw new Error(`no way back to /device: ${e.message.split('\n')[0]}; ${(await text(page)).slice(0, 300)}`) })
  ok('back_to_device')
  await decide(1, first, firstDecision)

  // 3. the other codes through verification_uri_complete, signed in
  for (let i = 1; i < DECISIONS.length; i++) {
    const [code, decision] = DECISIONS[i]
    await page.goto(`${BASE}/device?user_code=${code}`)
    await decide(i + 1, code, decision)
  }
  check('no_console_errors', problems.length === 0, problems.join(' | '))
} catch (e) {
  fail('run', e.message.split('\n')[0])
} finally {
  await browser.close()
}
process.exit(failures() ? 1 : 0)
