// The admin console in a real browser (docs/console.md): Debian's chromium,
// driven by playwright-core, signs in through the project's sign-in page,
// creates a user with the keyboard alone (Tab to each field, type, Enter),
// checks that every input of the console's forms has a label (from the
// DOM), and that a phone-sized screen (390 px) needs no horizontal scroll.
// Prints "ok <step>" for each step that passes and "FAIL <step>: why" for
// one that does not; exits 1 on any failure. Run by
// test/blackbox/t_browser_console.sh, which passes:
//   BASE PROJECT_ID USER_EMAIL USER_PASSWORD [SCREENSHOT_DIR] [CHROMIUM]
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { env, launchBrowser, watchProblems } from './launch.mjs'

const BASE = env('BASE')
const PROJECT_ID = env('PROJECT_ID')
const EMAIL = env('USER_EMAIL')
const PASSWORD = env('USER_PASSWORD')
const SHOTS = process.env.SCREENSHOT_DIR || 'build'
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium'
const HOME = `${BASE}/console/projects/${encodeURIComponent(PROJECT_ID)}/`

let failures = 0
const ok = (step) => console.log(`ok ${step}`)
const fail = (step, why) => { failures++; console.log(`FAIL ${step}: ${why}`) }
const check = (step, cond, why) => (cond ? ok(step) : fail(step, why))

let browser
try {
  browser = await launchBrowser({ chromium: CHROMIUM })
} catch (e) {
  console.log(`FAIL launch: ${e.message}`)
  process.exit(1)
}
ok('launch')
const page = browser.context.pages()[0] ?? await browser.context.newPage()
const problems = watchProblems(page, 0, '')
mkdirSync(SHOTS, { recursive: true })

// The inputs of the page's forms that no label names (hidden ones need none).
const unlabelled = () => page.evaluate(() =>
  [...document.querySelectorAll('input, select, textarea')]
    .filter((i) => i.type !== 'hidden' && i.labels.length === 0)
    .map((i) => i.name || i.id))

// Tab until the focused element is the field named name (at most 60 presses).
async function tabTo (name) {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab')
    if (await page.evaluate(() => document.activeElement?.name) === name) return true
  }
  return false
}

try {
  // --- sign-in through the project's sign-in page ---
  await page.goto(HOME)
  check('signin_form', page.url().startsWith(`${BASE}/api/v1/authorize`), `at ${page.url()}`)
  await page.locator('input[name=email]').fill(EMAIL)
  await page.locator('input[name=password]').fill(PASSWORD)
  await Promise.all([page.waitForURL(HOME), page.locator('input[name=password]').press('Enter')])
  check('signed_in', page.url() === HOME, `at ${page.url()}`)
  await page.screenshot({ path: join(SHOTS, 'console-overview.png'), fullPage: true })

  // --- a user created with the keyboard alone ---
  await page.goto(`${HOME}new-user`)
  const fields = [['display_name', 'Kim Keys'], ['email', 'kim@example.com'], ['password', 'kim password ✓']]
  let reached = true
  for (const [name, value] of fields) {
    if (!await tabTo(name)) { reached = false; fail('keyboard_fields', `Tab never reached ${name}`); break }
    await page.keyboard.type(value)
  }
  if (reached) ok('keyboard_fields')
  await Promise.all([page.waitForURL(/\/users\/[^/]+$/), page.keyboard.press('Enter')])
  const h1 = await page.locator('h1').textContent()
  check('keyboard_create_user', /\/users\/[^/]+$/.test(page.url()) && h1 === 'Kim Keys',
    `at ${page.url()}, heading ${h1}`)
  await page.screenshot({ path: join(SHOTS, 'console-user.png'), fullPage: true })

  // --- every input labelled, on each form page ---
  const missing = []
  for (const path of ['', 'users', 'new-user', 'roles', 'new-role', 'clients', 'new-client',
    'resources', 'new-resource', 'sessions', 'events']) {
    await page.goto(`${HOME}${path}`)
    for (const n of await unlabelled()) missing.push(`${path || 'overview'}: ${n}`)
  }
  await page.goBack()
  check('every_input_labelled', missing.length === 0, missing.join(', '))

  // --- a phone-sized screen: no horizontal scroll ---
  await page.setViewportSize({ width: 390, height: 844 })
  const wide = []
  for (const path of ['', 'users', 'new-user', 'new-client', 'events', 'sessions']) {
    await page.goto(`${HOME}${path}`)
    const w = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
    }))
    if (w.scroll > w.client) wide.push(`${path || 'overview'}: scrollWidth ${w.scroll} > ${w.client}`)
  }
  await page.screenshot({ path: join(SHOTS, 'console-narrow.png'), fullPage: true })
  check('narrow_viewport', wide.length === 0, wide.join(', '))

  check('no_console_errors', problems.length === 0, problems.join(' | '))
} catch (e) {
  fail('run', e.message.split('\n')[0])
} finally {
  await browser.close()
}
process.exit(failures ? 1 : 0)
