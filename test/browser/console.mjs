// The admin console in a real browser (docs/console.md): Debian's chromium,
// driven by playwright-core, signs in through the project's sign-in page,
// creates a user with the keyboard alone (Tab to each field, type, Enter),
// checks that every input of the console's forms has a label (from the
// DOM), and that a phone-sized screen (390 px) needs no horizontal scroll.
// It lists, searches and pages the users (the shell made twelve "Lister NN"),
// edits a user and sets their password (by keyboard), creates a client and
// sees its secret once, filters the audit trail by action, actor, target
// and time, signs out, signs in as the user with the new password, and
// comes into the console by single sign-on from a sign-in at the project's
// sign-in page for another client. No console error or CSP report on any page.
// Prints "ok <step>" for each step that passes and "FAIL <step>: why" for
// one that does not; exits 1 on any failure. Run by
// test/blackbox/t_browser_console.sh, which passes:
//   BASE PROJECT_ID USER_EMAIL USER_PASSWORD [SCREENSHOT_DIR] [CHROMIUM]
//   [DOCS_SHOTS]  a directory for the documentation's screenshots (1000 px
//                 wide, the window only), made when it is given
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { env, launchBrowser, watchProblems } from './launch.mjs'

const BASE = env('BASE')
const PROJECT_ID = env('PROJECT_ID')
const EMAIL = env('USER_EMAIL')
const PASSWORD = env('USER_PASSWORD')
const SHOTS = process.env.SCREENSHOT_DIR || 'build'
const DOCS_SHOTS = process.env.DOCS_SHOTS || ''
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

// The first cells (a link each) of the page's table rows, and one column's cells.
const firstCells = () => page.locator('tbody tr td:first-child').allTextContents()
const column = (k) => page.locator(`tbody tr td:nth-child(${k})`).allTextContents()
// The value cell of the two-column table row whose first cell is field.
const fieldCell = (field) => page.locator('tbody tr', { has: page.locator('td', { hasText: field }) })
  .first().locator('td').nth(1).textContent()
// Submits the form of the element located, waiting for the page that answers.
async function submitWith (locator) {
  await Promise.all([page.waitForEvent('load'), locator.press('Enter')])
}
// Signs in on the project's sign-in page the browser is at, as email.
async function signIn (email, password, to) {
  await page.locator('input[name=email]').fill(email)
  await page.locator('input[name=password]').fill(password)
  await Promise.all([page.waitForURL(to), page.locator('input[name=password]').press('Enter')])
}

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
  const kimUrl = page.url()
  const kimId = decodeURIComponent(kimUrl.split('/').pop())

  // --- the users list: a page of five, the next page, a search by keyboard ---
  await page.goto(`${HOME}users?page_size=5&sort_by=display_name&sort_dir=asc`)
  const first = await firstCells()
  const line = await page.locator('p', { hasText: /^Page 1 of/ }).textContent()
  check('list_users', first.length === 5 && first[0] === 'Admin' && /^Page 1 of 3, 14 users\.$/.test(line),
    `rows ${first.join(', ')}; ${line}`)
  await Promise.all([page.waitForEvent('load'), page.getByRole('link', { name: 'Next page' }).click()])
  const second = await firstCells()
  check('page_users', /page_num=2/.test(page.url()) && second.length === 5 &&
    second.every((n) => !first.includes(n)) && second[0] === 'Lister 04',
  `at ${page.url()}, rows ${second.join(', ')}`)
  await page.goto(`${HOME}users`)
  if (await tabTo('search')) {
    await page.keyboard.type('lister 07')
    await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')])
    const found = await firstCells()
    check('search_users_keyboard', found.length === 1 && found[0] === 'Lister 07' &&
      /search=lister\+07/.test(page.url()), `at ${page.url()}, rows ${found.join(', ')}`)
  } else fail('search_users_keyboard', 'Tab never reached the search field')

  // --- edit the user, then set their password with the keyboard alone ---
  await page.goto(kimUrl)
  await page.locator('input[name=display_name]').fill('Kim Edited')
  await submitWith(page.locator('input[name=display_name]'))
  check('edit_user', page.url() === kimUrl && await page.locator('h1').textContent() === 'Kim Edited',
    `at ${page.url()}, heading ${await page.locator('h1').textContent()}`)
  const KIM_PASSWORD = 'kim’s new password'
  if (await tabTo('password')) {
    await page.keyboard.type(KIM_PASSWORD)
    await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')])
    check('set_password_keyboard', page.url() === kimUrl &&
      await page.locator('[role=alert]').count() === 0, `at ${page.url()}`)
  } else fail('set_password_keyboard', 'Tab never reached the password field')

  // --- a client: its secret shown once; its redirect URI the server's own ---
  await page.goto(`${HOME}new-client`)
  await page.locator('input[name=name]').fill('Browser app')
  await page.locator('textarea[name=redirect_uris]').fill(`${BASE}/healthz`)
  await page.locator('select[name=token_endpoint_auth_method]').selectOption('client_secret_basic')
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Create' }).click()])
  const clientId = (await fieldCell('Client ID'))?.trim()
  const secret = (await fieldCell('Client secret'))?.trim()
  check('client_secret_shown', await page.locator('h1').textContent() === 'Client created' &&
    secret?.length >= 20, `heading ${await page.locator('h1').textContent()}, secret ${secret?.length}`)
  await Promise.all([page.waitForEvent('load'), page.getByRole('link', { name: 'Open the client' }).click()])
  const again = await page.content()
  check('client_secret_once', page.url().endsWith(`/clients/${encodeURIComponent(clientId)}`) &&
    again.includes(clientId) && !again.includes(secret), `at ${page.url()}`)

  // --- the audit trail's filters: action, actor, target, time ---
  await page.goto(`${HOME}events`)
  await page.locator('select[name=action]').selectOption('user.create')
  await submitWith(page.locator('input[name=target]'))
  const actions = await column(2)
  check('audit_filter_action', actions.length >= 2 && actions.every((a) => a === 'user.create'),
    `actions ${actions.join(', ')}`)
  const actor = (await column(3)).find((a) => a !== 'cli')
  await page.locator('select[name=action]').selectOption('')
  await page.locator('input[name=target]').fill(kimId)
  await submitWith(page.locator('input[name=target]'))
  const kimActions = await column(2)
  const kimTargets = await column(4)
  check('audit_filter_target', kimTargets.length >= 3 && kimTargets.every((t) => t === kimId) &&
    ['user.create', 'user.update'].every((a) => kimActions.includes(a)),
  `actions ${kimActions.join(', ')}; targets ${kimTargets.join(', ')}`)
  await page.locator('input[name=target]').fill('')
  await page.locator('input[name=actor]').fill(actor ?? '')
  await submitWith(page.locator('input[name=actor]'))
  const actors = await column(3)
  check('audit_filter_actor', actor && actors.length >= 3 && actors.every((a) => a === actor) &&
    (await column(2)).includes('client.create'), `actor ${actor}: ${actors.join(', ')}`)
  await page.locator('input[name=since]').fill('2099-01-01T00:00:00Z')
  await submitWith(page.locator('input[name=since]'))
  check('audit_filter_time', (await column(2)).length === 0 &&
    await page.locator('p', { hasText: /^Page 1 of 1, 0 events\.$/ }).count() === 1,
  `rows ${(await column(2)).join(', ')}`)

  // --- the documentation's screenshots (scripts/console-screenshots) ---
  if (DOCS_SHOTS) {
    mkdirSync(DOCS_SHOTS, { recursive: true })
    await page.setViewportSize({ width: 1000, height: 760 })
    for (const [name, path] of [['overview', ''], ['users', 'users'], ['user', kimUrl.slice(HOME.length)],
      ['roles', 'roles'], ['clients', 'clients'], ['audit', 'events']]) {
      await page.goto(`${HOME}${path}`)
      await page.screenshot({ path: join(DOCS_SHOTS, `console-${name}.png`) })
    }
    ok('docs_screenshots')
  }

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

  // --- sign out; the user signs in with the password the console set ---
  await page.goto(HOME)
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Sign out' }).click()])
  check('sign_out', await page.locator('h1').textContent() === 'You are signed out', `at ${page.url()}`)
  await page.goto(HOME)
  await signIn('kim@example.com', KIM_PASSWORD, HOME)
  const kimNav = await page.locator('nav a').allTextContents()
  check('signin_new_password', page.url() === HOME && !kimNav.includes('Users'),
    `at ${page.url()}, navigation ${kimNav.join(', ')}`)
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Sign out' }).click()])

  // --- single sign-on: signed in at the project's page for another client ---
  const authorize = new URL(`${BASE}/api/v1/authorize`)
  for (const [k, v] of Object.entries({
    response_type: 'code', client_id: clientId, redirect_uri: `${BASE}/healthz`, state: 'sso',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256',
  })) authorize.searchParams.set(k, v)
  // The other client's redirect_uri stands for its app: the test answers it
  // (an HTML page with an empty icon), since edgeauth's /healthz is JSON and
  // Chromium's request for its /favicon.ico would be a 404 console error.
  await page.route(`${BASE}/healthz?*`, route => route.fulfill({
    status: 200, contentType: 'text/html', body: '<!doctype html><link rel=icon href="data:,"><p>app'
  }))
  await page.goto(authorize.href)
  await signIn(EMAIL, PASSWORD, /\/healthz\?code=/)
  await page.goto(HOME)
  check('sso_from_signin_page', page.url() === HOME && await page.locator('input[name=password]').count() === 0 &&
    await page.locator('h1').textContent() === 'Overview', `at ${page.url()}`)

  check('no_console_errors', problems.length === 0, problems.join(' | '))
} catch (e) {
  fail('run', e.message.split('\n')[0])
} finally {
  await browser.close()
}
process.exit(failures ? 1 : 0)
