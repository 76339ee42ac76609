// A role that requires a second factor, in a real browser with JavaScript
// disabled (docs/signin.md §"Second factors"): Debian's chromium signs a
// user of such a role, who has no factor, in to an app; after the
// password the sign-in page shows the authenticator app's set-up (QR code
// and key), a wrong code answers it again, the code from oathtool shows
// ten recovery codes, and their Continue form reaches the app's redirect
// URI with the code and state; the ID token of that code says
// amr ["pwd","otp","mfa"]. Every page has a CSP without 'unsafe-'; no
// console error or CSP violation on the way. Prints "ok <step>" or
// "FAIL <step>: why"; exits 1 on any failure. Run by
// test/blackbox/t_role_second_factor_browser.sh, which passes:
//   ISSUER CLIENT_ID REDIRECT_URI USER_EMAIL USER_PASSWORD
//   NOW      the second the server's clock is frozen at
//   [CHROMIUM]
import { execFileSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { env, launchOrExit, steps, watchProblems } from './launch.mjs'

const ISSUER = env('ISSUER')
const CLIENT_ID = env('CLIENT_ID')
const REDIRECT_URI = env('REDIRECT_URI')
const EMAIL = env('USER_EMAIL')
const PASSWORD = env('USER_PASSWORD')
const NOW = Number(env('NOW'))
const AUTHORIZE = `${ISSUER}/api/v1/authorize`

const report = steps()
const { fail, check } = report
const text = async (page) => (await page.locator('body').innerText().catch(() => '')).slice(0, 400)
const code = (secret, at) => execFileSync('oathtool', ['--totp', '-b', secret, '--now', `@${at}`],
  { encoding: 'utf8' }).trim()
const b64url = (buf) => buf.toString('base64url')
const claims = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString())

const verifier = b64url(randomBytes(32))
const state = b64url(randomBytes(12))
const request = `${AUTHORIZE}?${new URLSearchParams({
  response_type: 'code', client_id: CLIENT_ID, redirect_uri: REDIRECT_URI, scope: 'openid',
  code_challenge: b64url(createHash('sha256').update(verifier).digest()),
  code_challenge_method: 'S256', state,
})}`

const { context, close } = await launchOrExit(report, { chromium: process.env.CHROMIUM })
const page = context.pages()[0] ?? await context.newPage()
// a refused code is a 401 page (docs/signin.md), which Chromium logs
const problems = watchProblems(page, 401, AUTHORIZE)
const policies = []
page.on('response', async (r) => {
  const redirect = r.status() >= 300 && r.status() < 400
  if (r.request().resourceType() === 'document' && r.url().startsWith(ISSUER) && !redirect) {
    policies.push([`${r.status()} ${r.url()}`, await r.headerValue('content-security-policy')])
  }
})
const badPolicy = ([, csp]) => !csp || /unsafe-/.test(csp) || /script-src/.test(csp)
// the app's redirect URI, answered by the test as the app would (with an
// empty icon: no request for a /favicon.ico)
await page.route(`${REDIRECT_URI}?*`, (route) => route.fulfill({
  status: 200, contentType: 'text/html', body: '<!doctype html><link rel=icon href="data:,"><p>app',
}))
const submit = (field) => Promise.all([page.waitForNavigation({ waitUntil: 'load' }), field.press('Enter')])

try {
  const cdp = await context.newCDPSession(page)
  await cdp.send('Emulation.setScriptExecutionDisabled', { value: true })

  // 1. the password: the set-up instead of the code
  await page.goto(request)
  await page.locator('input[name=email]').fill(EMAIL)
  await page.locator('input[name=password]').fill(PASSWORD)
  await submit(page.locator('input[name=password]'))
  const uri = await page.locator('code', { hasText: 'otpauth://' }).innerText().catch(() => '')
  const secret = uri ? new URL(uri).searchParams.get('secret') : ''
  check('enroll_page', page.url() === AUTHORIZE && /^[A-Z2-7]{32}$/.test(secret ?? '') &&
    await page.getByRole('img', { name: "QR code of the authenticator app's key" }).isVisible() &&
    (await page.locator('input[name=enroll_token]').count()) === 1,
  `after the password at ${page.url()}: ${await text(page)}`)

  // 2. a wrong code: the same set-up again, saying so
  const accepted = [NOW - 30, NOW, NOW + 30].map((t) => code(secret, t))
  const wrong = ['000000', '111111', '222222'].find((c) => !accepted.includes(c))
  await page.locator('input[name=otp]').fill(wrong)
  const [res] = await submit(page.locator('input[name=otp]'))
  check('wrong_code', res?.status() === 401 &&
    await page.locator('[data-error="access_denied"]').isVisible() &&
    (await page.locator('code', { hasText: `secret=${secret}` }).count()) === 1,
  `${res?.status()}: ${await text(page)}`)

  // 3. the app's code: ten recovery codes, once
  await page.locator('input[name=otp]').fill(code(secret, NOW))
  await submit(page.locator('input[name=otp]'))
  const codes = (await page.locator('td').allInnerTexts()).filter((t) => /^[a-z2-7-]{32}$/.test(t))
  check('recovery_codes', new Set(codes).size === 10 && page.url() === AUTHORIZE,
    `${codes.length} recovery codes at ${page.url()}: ${await text(page)}`)

  // 4. Continue: the app's redirect URI with the code and state
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }),
    page.getByRole('button', { name: 'Continue' }).click()])
  const back = new URL(page.url())
  check('continue', `${back.origin}${back.pathname}` === REDIRECT_URI &&
    back.searchParams.get('state') === state && back.searchParams.get('iss') === ISSUER &&
    !!back.searchParams.get('code'), `at ${page.url()}`)

  // 5. the code's ID token: a password and a one-time code
  const tokens = await fetch(`${ISSUER}/api/v1/tokens`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI, code: back.searchParams.get('code') ?? '', code_verifier: verifier }),
  }).then((r) => r.json()).catch(() => ({}))
  const amr = tokens.id_token ? claims(tokens.id_token).amr : undefined
  check('amr', JSON.stringify(amr) === '["pwd","otp","mfa"]', `tokens ${JSON.stringify(tokens).slice(0, 200)}; amr ${JSON.stringify(amr)}`)
} catch (e) {
  fail('run', e.message.split('\n')[0])
}
check('csp', policies.length >= 3 && !policies.some(badPolicy),
  `${policies.length} pages; ${JSON.stringify(policies.filter(badPolicy))}`)
check('no_console_errors', problems.length === 0, problems.join('; '))
await close()
process.exit(report.failures() ? 1 : 0)
