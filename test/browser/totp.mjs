// TOTP in a real browser (docs/signin.md §"Second factors"): Debian's
// chromium signs in on the account page, sets up an authenticator app
// there with a code from oathtool and reads its ten recovery codes; then,
// with JavaScript disabled (DevTools protocol
// Emulation.setScriptExecutionDisabled), signs in with the password and a
// code, sees that code refused the second time (replay), signs in with a
// recovery code and sees that one refused the second time too, then wrong
// codes until the sign-in throttle answers 429. Every page has a CSP
// without 'unsafe-' and a script only by hash. No console
// error or CSP violation on the way. Prints "ok <step>" or "FAIL <step>:
// why"; exits 1 on any failure. Run by test/blackbox/t_totp_browser.sh,
// which passes:
//   ISSUER PROJECT_ID USER_EMAIL USER_PASSWORD
//   NOW      the second the server's clock is frozen at: the set-up is
//            confirmed with the code of the step before (which the server
//            accepts, docs/signin.md) so that the sign-in's code, NOW's, is new
//   [CHROMIUM]
import { execFileSync } from 'node:child_process'
import { env, launchOrExit, steps, watchProblems } from './launch.mjs'

const ISSUER = env('ISSUER')
const PROJECT_ID = env('PROJECT_ID')
const EMAIL = env('USER_EMAIL')
const PASSWORD = env('USER_PASSWORD')
const NOW = Number(env('NOW'))
const PAGE = `${ISSUER}/account?project_id=${encodeURIComponent(PROJECT_ID)}`
const AUTHORIZE = `${ISSUER}/api/v1/authorize`
const SIGN_IN_AGAIN = `${AUTHORIZE}?${new URLSearchParams({ response_type: 'code',
  client_id: `console.${PROJECT_ID}`, redirect_uri: PAGE, prompt: 'login' })}`

const report = steps()
const { ok, fail, check } = report
const text = async (page) => (await page.locator('body').innerText().catch(() => '')).slice(0, 400)
// code(secret, at): the authenticator app's code at the second at, by oathtool
const code = (secret, at) => execFileSync('oathtool', ['--totp', '-b', secret, '--now', `@${at}`],
  { encoding: 'utf8' }).trim()

const { context, close } = await launchOrExit(report, { chromium: process.env.CHROMIUM })
const page = context.pages()[0] ?? await context.newPage()
// a refused code is a 401 page (docs/signin.md), which Chromium logs
const problems = watchProblems(page, 401, AUTHORIZE)
// and so is the throttle's 429 (left out here: watchProblems takes one status)
const throttleLog = `console error on ${AUTHORIZE}: Failed to load resource: the server responded with a status of 429 `

// every page's Content-Security-Policy (docs/signin.md: no inline script;
// the one script pinned by its hash)
const policies = []
page.on('response', async (r) => {
  // a redirect is no page
  const redirect = r.status() >= 300 && r.status() < 400
  if (r.request().resourceType() === 'document' && r.url().startsWith(ISSUER) && !redirect) {
    policies.push([`${r.status()} ${r.url()}`, await r.headerValue('content-security-policy')])
  }
})
const badPolicy = ([, csp]) => !csp || /unsafe-/.test(csp) ||
  (/script-src/.test(csp) && !/script-src( 'sha256-[A-Za-z0-9+/=]+')+(;|$)/.test(csp))

// submit(locator): presses Enter in a field, waits for the next page
const submit = (field) => Promise.all([page.waitForNavigation({ waitUntil: 'load' }), field.press('Enter')])
// password(): the first step on the sign-in page shown
async function password() {
  await page.locator('input[name=email]').fill(EMAIL)
  await page.locator('input[name=password]').fill(PASSWORD)
  await submit(page.locator('input[name=password]'))
}
// second(value): the second step's field, then the next page's status
async function second(value) {
  const otp = page.locator('input[name=otp]')
  await otp.fill(value)
  const [res] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), otp.press('Enter')])
  return res?.status()
}
const refused = async () => (await page.locator('[data-error="access_denied"]').count()) === 1 &&
  (await page.locator('input[name=otp]').count()) === 1

try {
  // 1. the account page: signed in with the password (no factor yet)
  await page.goto(PAGE)
  check('to_signin', page.url().startsWith(AUTHORIZE), `at ${page.url()}`)
  await password()
  check('account_page', page.url() === PAGE, `at ${page.url()}: ${await text(page)}`)

  // 2. set up the app: the key from the page, the first code from oathtool
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }),
    page.getByRole('button', { name: 'Set up an authenticator app' }).click()])
  const uri = await page.locator('code', { hasText: 'otpauth://' }).innerText()
  const secret = new URL(uri).searchParams.get('secret')
  check('setup_page', /^[A-Z2-7]{32}$/.test(secret ?? '') &&
    await page.getByRole('img', { name: "QR code of the authenticator app's key" }).isVisible(),
  `the set-up page shows ${uri}: ${await text(page)}`)
  await page.locator('input[name=code]').fill(code(secret, NOW - 30))
  await submit(page.locator('input[name=code]'))
  const codes = (await page.locator('td').allInnerTexts()).filter((t) => /^[a-z2-7-]{32}$/.test(t))
  check('enrolled', new Set(codes).size === 10, `${codes.length} recovery codes: ${await text(page)}`)

  // 3. without JavaScript: the password, then the app's code
  const cdp = await context.newCDPSession(page)
  await cdp.send('Emulation.setScriptExecutionDisabled', { value: true })
  await page.goto(SIGN_IN_AGAIN)
  await password()
  check('asks_code', (await page.locator('input[name=otp]').count()) === 1 &&
    (await page.locator('input[name=factor_token]').count()) >= 1, `after the password: ${await text(page)}`)
  const now = code(secret, NOW)
  const status = await second(now)
  check('code_signs_in', status === 200 && page.url() === PAGE, `${status} at ${page.url()}: ${await text(page)}`)

  // 4. the same code again: refused (replay), then a recovery code
  await page.goto(SIGN_IN_AGAIN)
  await password()
  const replay = await second(now)
  check('replay_refused', replay === 401 && await refused(), `${replay}: ${await text(page)}`)
  const signedIn = await second(codes[0])
  check('recovery_signs_in', signedIn === 200 && page.url() === PAGE &&
    (await text(page)).includes('You have 9 unused recovery codes'), `${signedIn} at ${page.url()}: ${await text(page)}`)

  // 5. the same recovery code again: refused
  await page.goto(SIGN_IN_AGAIN)
  await password()
  const again = await second(codes[0])
  check('recovery_once', again === 401 && await refused(), `${again}: ${await text(page)}`)

  // 6. wrong codes count in the sign-in throttle (t_totp_browser.sh sets
  // [signin] max_failures to 5; the success above wiped the count): within
  // five tries the answer is 429, the password form saying so with
  // Retry-After, and the right password is refused there too
  const accepted = [NOW - 30, NOW, NOW + 30].map((t) => code(secret, t))
  const wrong = ['000000', '111111', '222222', '333333'].find((c) => !accepted.includes(c))
  let throttled
  for (let i = 0; i < 5 && !throttled; i++) {
    const [res] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }),
      page.locator('input[name=otp]').fill(wrong).then(() => page.locator('input[name=otp]').press('Enter'))])
    if (res?.status() === 429) throttled = res
    else if (res?.status() !== 401) throw new Error(`a wrong code answered ${res?.status()}: ${await text(page)}`)
  }
  check('throttled', throttled && Number(throttled.headers()['retry-after']) > 0 &&
    await page.locator('[data-error="too_many_attempts"]').isVisible() &&
    (await page.locator('input[name=password]').count()) === 1,
  `${throttled ? `429 with Retry-After ${throttled.headers()['retry-after']}` : 'no 429 in five wrong codes'}: ${await text(page)}`)
  await page.locator('input[name=email]').fill(EMAIL)
  await page.locator('input[name=password]').fill(PASSWORD)
  const [res] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }),
    page.locator('input[name=password]').press('Enter')])
  check('throttled_password', res?.status() === 429 && page.url().startsWith(AUTHORIZE), `${res?.status()} at ${page.url()}`)

  // 7. JavaScript was off: the passkeys page's script would have shown its form
  await page.goto(`${ISSUER}/account/passkeys?project_id=${encodeURIComponent(PROJECT_ID)}`)
  const form = page.locator('#passkey-add')
  check('scripts_off', (await form.count()) === 1 && !(await form.isVisible()),
    `at ${page.url()}: ${await text(page)}`)
} catch (e) {
  fail('run', e.message.split('\n')[0])
}
check('csp', policies.length >= 10 && !policies.some(badPolicy),
  `${policies.length} pages; ${JSON.stringify(policies.filter(badPolicy))}`)
const unexpected = problems.filter((p) => !p.startsWith(throttleLog))
check('no_console_errors', unexpected.length === 0, unexpected.join('; '))
await close()
process.exit(report.failures() ? 1 : 0)
