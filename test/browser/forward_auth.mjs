// Forward authentication behind a real proxy (docs/forward-auth.md), in
// Debian's chromium driven by playwright-core: the browser opens app 1
// through the proxy, signs in on edgeauth's form and lands on app 1, whose
// page shows the request headers it received (test/blackbox/
// forward_auth_app.py); app 2 then opens by single sign-on without a form;
// a Remote-User the browser sends never reaches the app; a callback whose
// state is not edgeauth's is a 400 page, no redirect; logout on edgeauth
// ends both apps; app 2 kept to another role (allowed_role_ids, set through
// the API) is a 403, for a live app session and for a new sign-in. Prints "ok <step>" or "FAIL <step>: why"; exits 1 on any
// failure. Run by test/blackbox/t_forward_auth_proxies.sh, which passes:
//   BASE APP1 APP2 (the apps' base URLs through the proxy) CLIENT1 (app 1's
//   client) USER_ID USER_EMAIL USER_PASSWORD USER_NAME CLIENT2 (app 2's)
//   OTHER_ROLE (a role the user lacks) ADMIN_TOKEN P (the project's API path)
//   [CHROMIUM] [SCREENSHOT_DIR] [SHOT_TAG]
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { env, launchBrowser } from './launch.mjs'

const BASE = env('BASE')
const APP1 = env('APP1')
const APP2 = env('APP2')
const CLIENT1 = env('CLIENT1')
const CLIENT2 = env('CLIENT2')
const OTHER_ROLE = env('OTHER_ROLE')
const ADMIN_TOKEN = env('ADMIN_TOKEN')
const P = env('P')
const USER = { id: env('USER_ID'), email: env('USER_EMAIL'), password: env('USER_PASSWORD'),
  name: env('USER_NAME') }
const SHOTS = process.env.SCREENSHOT_DIR || 'build'
const TAG = process.env.SHOT_TAG || 'proxy'

let failures = 0
const ok = (step) => console.log(`ok ${step}`)
const fail = (step, why) => { failures++; console.log(`FAIL ${step}: ${why}`) }
const check = (step, cond, why) => (cond ? ok(step) : fail(step, why))

let browser
try {
  browser = await launchBrowser({ chromium: process.env.CHROMIUM })
  ok('launch')
} catch (e) {
  fail('launch', e.message)
  process.exit(1)
}
const page = browser.context.pages()[0] || await browser.context.newPage()
const onForm = () => page.url().startsWith(`${BASE}/api/v1/authorize`)
// the headers the app got, as its page shows them (null: not the app's page)
const seen = async () => {
  const pre = page.locator('#headers')
  if (await pre.count() !== 1) return null
  const h = JSON.parse(await pre.textContent())
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]))
}
// app 2's allowed_role_ids through the API; the answer's status
const rule = async (ids) => (await fetch(`${BASE}${P}/clients/${CLIENT2}`, {
  method: 'PUT',
  headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
  body: JSON.stringify({ name: 'app2', is_active: true, allowed_role_ids: ids }),
})).status
const identity = (h) => h && h['remote-user'] === USER.id && h['remote-email'] === USER.email &&
  h['remote-name'] === USER.name && h['remote-role'] === 'reader' &&
  h['remote-permissions'] === 'users:read'

try {
  // 1. app 1: the proxy sends the browser to the sign-in form, and back
  await page.goto(`${APP1}page?x=1`)
  const form = onForm()
  await page.getByLabel('Email', { exact: true }).fill(USER.email)
  await page.getByLabel('Password', { exact: true }).fill(USER.password)
  await Promise.all([
    page.waitForURL((u) => u.href.startsWith(APP1), { waitUntil: 'load' }),
    page.getByLabel('Password', { exact: true }).press('Enter'),
  ])
  check('app1_signs_in', form && page.url() === `${APP1}page?x=1`,
    `form shown ${form}, landed on ${page.url()}`)
  let h = await seen()
  check('app1_headers', identity(h), `the app saw ${JSON.stringify(h)}`)

  // 2. a Remote-User of the browser's own is replaced by the proxy
  await browser.context.setExtraHTTPHeaders({ 'Remote-User': 'forged-admin',
    'Remote-Role': 'admin' })
  await page.goto(`${APP1}again`)
  h = await seen()
  check('forged_remote_user_dropped', identity(h) && !JSON.stringify(h).includes('forged-admin'),
    `the app saw ${JSON.stringify(h)}`)
  await browser.context.setExtraHTTPHeaders({})

  // 3. app 2: single sign-on, no form
  const visited = []
  const onNav = (f) => { if (f === page.mainFrame()) visited.push(f.url()) }
  page.on('framenavigated', onNav)
  await page.goto(`${APP2}two`)
  page.off('framenavigated', onNav)
  check('app2_single_sign_on', page.url() === `${APP2}two` &&
    !visited.some((u) => u.startsWith(`${BASE}/api/v1/authorize`) && u.includes('email')),
    `landed on ${page.url()} via ${visited}`)
  h = await seen()
  check('app2_headers', identity(h), `the app saw ${JSON.stringify(h)}`)

  // app 2 kept to another role: the live app session's next page is a 403
  const kept = await rule([OTHER_ROLE])
  const denied = await page.goto(`${APP2}three`)
  h = await seen()
  check('excluded_role_403', kept === 200 && denied.status() === 403 && h === null,
    `rule ${kept}, status ${denied.status()}, the app saw ${JSON.stringify(h)}`)
  const lifted = await rule([])
  check('rule_lifted', lifted === 200, `status ${lifted}`)

  // 4. a callback with a state that is not edgeauth's: a page, no redirect
  const target = `${APP1}.edgeauth/callback?code=x&state=${CLIENT1}.forged`
  const res = await page.goto(target)
  check('open_redirect_refused', res.status() === 400 && page.url() === target,
    `status ${res.status()}, page ${page.url()}`)

  // 5. logout on edgeauth (its confirmation page), then both apps ask for the form
  await page.goto(`${BASE}/api/v1/logout?client_id=${CLIENT1}`)
  const confirm = page.getByRole('button', { name: 'Sign out' })
  const shown = (await confirm.count()) === 1
  if (shown) await Promise.all([page.waitForLoadState('load'), confirm.click()])
  check('logout', shown, `no confirmation on ${page.url()}`)
  await page.goto(`${APP1}after`)
  const form1 = onForm()
  await page.goto(`${APP2}after`)
  const form2 = onForm()
  check('ended_both', form1 && form2, `app 1 form ${form1}, app 2 form ${form2} (${page.url()})`)

  // 6. a new sign-in to app 2 kept to another role: the callback's 403 page
  const kept2 = await rule([OTHER_ROLE])
  await page.goto(`${APP2}later`)
  const form3 = onForm()
  await page.getByLabel('Email', { exact: true }).fill(USER.email)
  await page.getByLabel('Password', { exact: true }).fill(USER.password)
  const [cb] = await Promise.all([
    page.waitForResponse((r) => r.url().startsWith(`${APP2}.edgeauth/callback`)),
    page.getByLabel('Password', { exact: true }).press('Enter'),
  ])
  await page.waitForLoadState('load')
  h = await seen()
  check('excluded_signin_403', kept2 === 200 && form3 && cb.status() === 403 && h === null,
    `rule ${kept2}, form ${form3}, callback ${cb.status()}, the app saw ${JSON.stringify(h)}`)
} catch (e) {
  fail('run', e.message.split('\n')[0])
  mkdirSync(SHOTS, { recursive: true })
  await page.screenshot({ path: join(SHOTS, `forward-auth-${TAG}.png`), fullPage: true }).catch(() => {})
}
await browser.close()
process.exit(failures ? 1 : 0)
