// The sign-in page in a real browser: Debian's chromium, driven by
// playwright-core (pinned in package-lock.json), goes through the
// authorization code flow as a person would: it opens the authorize URL,
// types a wrong password and presses Enter, then the right (non-ASCII)
// password, follows the 302 to a local callback listener, and the code is
// exchanged from Node with the PKCE verifier. Prints "ok <step>" for each
// step that passes and "FAIL <step>: why" for one that does not; exits 1 on
// any failure. Run by test/blackbox/t_browser.sh, which passes:
//   BASE CLIENT_ID REDIRECT_URI CALLBACK_PORT USER_EMAIL USER_PASSWORD
//   [SCREENSHOT_DIR] [CHROMIUM]
// and over https (t_tls_browser.sh) SPKI_HASH, the base64 SHA-256 of the
// server certificate's public key, which Chromium then trusts, and
// EXPECT_HSTS, the Strict-Transport-Security the page must carry (none when
// empty).
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { env, launchBrowser, watchProblems } from './launch.mjs'

const BASE = env('BASE')
const CLIENT_ID = env('CLIENT_ID')
const REDIRECT_URI = env('REDIRECT_URI')
const CALLBACK_PORT = Number(env('CALLBACK_PORT'))
const EMAIL = env('USER_EMAIL')
const PASSWORD = env('USER_PASSWORD')
const SHOTS = process.env.SCREENSHOT_DIR || 'build'
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium'
const SPKI_HASH = process.env.SPKI_HASH || ''
const EXPECT_HSTS = process.env.EXPECT_HSTS || ''
const GENERIC_ERROR = 'The email or password is wrong.'

let failures = 0
const ok = (step) => console.log(`ok ${step}`)
const fail = (step, why) => { failures++; console.log(`FAIL ${step}: ${why}`) }
const check = (step, cond, why) => (cond ? ok(step) : fail(step, why))

// --- the app's side: PKCE, a state with odd characters, a callback listener ---
const b64url = (buf) => buf.toString('base64url')
const verifier = b64url(randomBytes(48))
const challenge = b64url(createHash('sha256').update(verifier).digest())
const state = `st <&"'> ü/?#+=%20 ✓;x`
const params = {
  response_type: 'code', client_id: CLIENT_ID, redirect_uri: REDIRECT_URI,
  code_challenge: challenge, code_challenge_method: 'S256', state,
}
const authorizeUrl = `${BASE}/api/v1/authorize?${new URLSearchParams(params)}`

const callbacks = []
const listener = createServer((req, res) => {
  if (req.url.startsWith(new URL(REDIRECT_URI).pathname)) callbacks.push(req.url)
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
  res.end('<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">' +
    '<title>Callback</title><p>Signed in; the app takes it from here.</p>\n')
})
await new Promise((resolve, reject) => {
  listener.once('error', reject)
  listener.listen(CALLBACK_PORT, '127.0.0.1', resolve)
}).catch((e) => { console.log(`FAIL setup: callback listener on port ${CALLBACK_PORT}: ${e.message}`); process.exit(1) })

// --- the browser ---
let browser
try {
  browser = await launchBrowser({ spki: SPKI_HASH, chromium: CHROMIUM })
} catch (e) {
  console.log(`FAIL launch: ${e.message}`)
  listener.close(); process.exit(1)
}
ok('launch')
const { context } = browser
const page = context.pages()[0] ?? await context.newPage()

// Every console error, page error and failed request but the one expected:
// a wrong password is a 401 (docs/signin.md §"Password sign-in").
const problems = watchProblems(page, 401, `${BASE}/api/v1/authorize`)

// The hidden authorize parameters the form carries, as the browser sees them.
const hiddenParams = () => page.evaluate(() =>
  Object.fromEntries([...document.querySelectorAll('form input[type=hidden]')].map((i) => [i.name, i.value])))
const changedParams = (got) => Object.keys(params).filter((k) => got[k] !== params[k])

try {
  // 1. the page, its headers as the browser got them, and how it renders
  const res = await page.goto(authorizeUrl)
  const h = res.headers()
  check('page_loads', res.status() === 200 && h['content-type'] === 'text/html; charset=utf-8',
    `status ${res.status()}, content-type ${h['content-type']}`)
  const csp = h['content-security-policy'] || ''
  check('page_headers', /default-src 'none'/.test(csp) && /frame-ancestors 'none'/.test(csp) &&
    !/form-action/.test(csp) && h['x-frame-options'] === 'DENY' && /no-store/.test(h['cache-control'] || ''),
    `csp "${csp}", x-frame-options ${h['x-frame-options']}, cache-control ${h['cache-control']}`)
  const hsts = h['strict-transport-security'] ?? ''
  check('hsts', hsts === EXPECT_HSTS, `Strict-Transport-Security is "${hsts}", want "${EXPECT_HSTS}"`)
  const charset = await page.evaluate(() => document.characterSet)
  check('page_charset', charset === 'UTF-8', `document.characterSet is ${charset}`)

  const email = page.getByLabel('Email', { exact: true })
  const password = page.getByLabel('Password', { exact: true })
  const labelled = (await email.count()) === 1 && (await password.count()) === 1 &&
    await email.isVisible() && await password.isVisible() &&
    (await password.getAttribute('type')) === 'password'
  check('labelled_form', labelled, 'getByLabel(Email/Password) did not find one visible input each')
  const focused = await page.evaluate(() => document.activeElement?.id)
  check('email_autofocus', focused === 'email', `focused element is ${focused}`)
  // The inline style is allowed by its CSP hash: if it were blocked the
  // button would keep the browser's grey look.
  const buttonBg = await page.getByRole('button', { name: 'Sign in' })
    .evaluate((b) => getComputedStyle(b).backgroundColor)
  check('style_applied', buttonBg === 'rgb(36, 86, 199)', `button background is ${buttonBg} (style blocked by CSP?)`)
  check('state_in_form', changedParams(await hiddenParams()).length === 0,
    `hidden fields differ from the request: ${changedParams(await hiddenParams()).join(', ')}`)

  mkdirSync(SHOTS, { recursive: true })
  await page.screenshot({ path: join(SHOTS, 'browser-signin.png'), fullPage: true })
  ok('screenshot')

  // 2. the email as typed: an <input type="email"> refuses a non-ASCII
  // local part and rewrites an IDN domain to punycode, and such a user could
  // never sign in
  await email.pressSequentially(EMAIL)
  const field = await email.evaluate((e) => ({ valid: e.checkValidity(), message: e.validationMessage, value: e.value }))
  check('email_accepted', field.valid && field.value === EMAIL,
    `the browser ${field.valid ? 'changed' : 'refused'} the email ${JSON.stringify(EMAIL)}: ` +
    `value ${JSON.stringify(field.value)}, "${field.message}" (the input's type is ${await email.getAttribute('type')})`)
  if (!field.valid) throw new Error('the form cannot be submitted, the steps after this did not run')

  // 3. a wrong password, submitted with Enter: 401, the generic message,
  // every parameter still in the form
  await password.pressSequentially('wrong pässwörd ✓')
  const [wrong] = await Promise.all([
    page.waitForResponse((r) => r.url().startsWith(`${BASE}/api/v1/authorize`) && r.request().method() === 'POST'),
    page.waitForNavigation({ waitUntil: 'load' }),
    password.press('Enter'),
  ])
  const alert = (await page.getByRole('alert').count()) === 1 ? (await page.getByRole('alert').innerText()).trim() : ''
  check('wrong_password', wrong.status() === 401 && alert === GENERIC_ERROR,
    `status ${wrong.status()}, alert "${alert}"`)
  const again = await hiddenParams()
  check('wrong_password_keeps_params', changedParams(again).length === 0,
    `parameters lost or changed: ${changedParams(again).map((k) => `${k}=${JSON.stringify(again[k])}`).join(', ')}`)
  const keptEmail = await email.inputValue()
  check('wrong_password_keeps_email', keptEmail === EMAIL, `email field is "${keptEmail}"`)
  await page.screenshot({ path: join(SHOTS, 'browser-signin-error.png'), fullPage: true })

  // 4. the right non-ASCII password, with Enter: the browser follows the 302
  await password.fill('')
  await password.pressSequentially(PASSWORD)
  const typed = await password.inputValue()
  check('password_typed', typed === PASSWORD, `password field holds ${JSON.stringify(typed)}`)
  const [post] = await Promise.all([
    page.waitForResponse((r) => r.url().startsWith(`${BASE}/api/v1/authorize`) && r.request().method() === 'POST'),
    page.waitForURL((u) => u.href.startsWith(REDIRECT_URI), { waitUntil: 'load' }),
    password.press('Enter'),
  ]).catch(async (e) => {
    throw new Error(`no redirect to the callback: ${e.message.split('\n')[0]}; page is ${page.url()}: ` +
      (await page.locator('body').innerText().catch(() => '')).slice(0, 200))
  })
  check('signin_redirects', post.status() === 302, `POST answered ${post.status()}`)
  check('callback_reached', callbacks.length === 1, `the listener got ${callbacks.length} callbacks`)
  const cb = new URL(callbacks[0] ?? '/', REDIRECT_URI).searchParams
  const code = cb.get('code')
  check('callback_code', !!code && code.length >= 43, `code is ${code}`)
  check('callback_state', cb.get('state') === state, `state is ${JSON.stringify(cb.get('state'))}, sent ${JSON.stringify(state)}`)
  check('callback_iss', cb.get('iss') === BASE, `iss is ${cb.get('iss')}`)

  // 5. the app exchanges the code (from Node, as a public client)
  const tr = await fetch(`${BASE}/api/v1/tokens`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI, code: code ?? '', code_verifier: verifier }),
  })
  const tokens = await tr.json().catch(() => ({}))
  check('token_exchange', tr.status === 200 && typeof tokens.access_token === 'string' && tokens.access_token.length > 0,
    `status ${tr.status}: ${JSON.stringify(tokens).slice(0, 200)}`)

  // 6. a phone-sized viewport: no horizontal scrolling (prompt=login: the
  // browser's session would sign in at once, without the form)
  await page.setViewportSize({ width: 360, height: 740 })
  await page.goto(`${BASE}/api/v1/authorize?${new URLSearchParams({ ...params, state: 'narrow', prompt: 'login' })}`)
  const widths = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
    form: Math.ceil(document.querySelector('main').getBoundingClientRect().right),
  }))
  check('narrow_viewport', widths.scroll <= widths.client && widths.form <= widths.client,
    `scrollWidth ${widths.scroll}, clientWidth ${widths.client}, form right edge ${widths.form}`)
  await page.screenshot({ path: join(SHOTS, 'browser-signin-narrow.png'), fullPage: true })

  // 7. nothing went wrong in the console along the way
  check('no_console_errors', problems.length === 0, problems.join(' | '))
} catch (e) {
  fail('flow', e.message.split('\n')[0])
  if (problems.length) console.log(`console: ${problems.join(' | ')}`)
} finally {
  await browser.close()
  listener.close()
}
process.exit(failures ? 1 : 0)
