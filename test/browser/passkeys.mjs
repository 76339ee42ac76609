// Passkeys in a real browser (docs/signin.md §"Passkeys"): Debian's
// chromium with the DevTools protocol's virtual authenticator (CTAP2,
// internal transport, resident keys, user verification) opens the passkeys
// page, signs in through the project's sign-in page, registers a passkey
// with the page's one script (served as a file and pinned by hash in the
// CSP: it must run), sees it listed, uses it as the second factor, then,
// in a fresh browser whose authenticator holds the same credential, signs
// in to the app with the passkey alone ("Sign in with a passkey": a
// discoverable credential, user verification required) and reaches the
// app's redirect with a code, and finally removes it. Prints "ok <step>"
// or "FAIL <step>: why"; exits 1 on any failure. Run by
// test/blackbox/t_passkeys_browser.sh, which passes:
//   ISSUER PROJECT_ID USER_EMAIL USER_PASSWORD CLIENT_ID REDIRECT_URI
//   CALLBACK_FILE (where the app's callback URL, the PKCE verifier, the
//   state and the nonce are written, for the code's exchange by
//   openid-client) [CHROMIUM]
import { createHash, randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { env, launchBrowser, watchProblems } from './launch.mjs'

const ISSUER = env('ISSUER')
const PROJECT_ID = env('PROJECT_ID')
const EMAIL = env('USER_EMAIL')
const PASSWORD = env('USER_PASSWORD')
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium'
const PAGE = `${ISSUER}/account/passkeys?project_id=${encodeURIComponent(PROJECT_ID)}`
const CLIENT_ID = env('CLIENT_ID')
const REDIRECT_URI = env('REDIRECT_URI')
const CALLBACK_FILE = env('CALLBACK_FILE')
const b64u = (buf) => buf.toString('base64url')

let failures = 0
const ok = (step) => console.log(`ok ${step}`)
const fail = (step, why) => { failures++; console.log(`FAIL ${step}: ${why}`) }
const check = (step, cond, why) => (cond ? ok(step) : fail(step, why))
const text = async (page) => (await page.locator('body').innerText().catch(() => '')).slice(0, 300)

let browser
try {
  browser = await launchBrowser({ chromium: CHROMIUM })
} catch (e) {
  console.log(`FAIL launch: ${e.message}`)
  process.exit(1)
}
ok('launch')
const { context } = browser
const page = context.pages()[0] ?? await context.newPage()
const problems = watchProblems(page, 0, '')
const AUTHENTICATOR = { protocol: 'ctap2', transport: 'internal', hasResidentKey: true,
  hasUserVerification: true, isUserVerified: true }

// 5. a fresh browser (no session) whose authenticator holds the same
// credential signs in to the app with the passkey alone; the app's
// redirect is answered here, its URL kept for the code's exchange
async function passkeyAlone (credential) {
  const fresh = await launchBrowser({ chromium: CHROMIUM })
  try {
    const p = fresh.context.pages()[0] ?? await fresh.context.newPage()
    const freshProblems = watchProblems(p, 0, '')
    const cdp = await fresh.context.newCDPSession(p)
    await cdp.send('WebAuthn.enable')
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', { options: AUTHENTICATOR })
    await cdp.send('WebAuthn.addCredential', { authenticatorId, credential })
    // the app: a listener on the redirect URI's port, as signin.mjs's
    let callback
    const app = createServer((req, res) => {
      callback = new URL(req.url, REDIRECT_URI).href
      res.writeHead(200, { 'Content-Type': 'text/html' })
      res.end('<!doctype html><title>app</title><link rel="icon" href="data:,">')
    })
    await new Promise((resolve) => app.listen(Number(new URL(REDIRECT_URI).port), '127.0.0.1', resolve))
    fresh.app = app
    const verifier = b64u(randomBytes(32))
    const state = b64u(randomBytes(12))
    const nonce = b64u(randomBytes(12))
    await p.goto(`${ISSUER}/api/v1/authorize?${new URLSearchParams({ response_type: 'code',
      client_id: CLIENT_ID, redirect_uri: REDIRECT_URI, scope: 'openid', state, nonce,
      code_challenge: b64u(createHash('sha256').update(verifier).digest()),
      code_challenge_method: 'S256' })}`)
    const button = p.getByRole('button', { name: 'Sign in with a passkey' })
    await button.waitFor({ state: 'visible' }).catch(() => {})
    check('alone_offered', await button.isVisible(), `the sign-in page shows: ${await text(p)}`)
    await Promise.all([
      p.waitForURL((u) => u.href.startsWith(REDIRECT_URI), { waitUntil: 'load' }),
      button.click(),
    ]).catch(async (e) => { throw new Error(`the passkey alone did not sign in: ${e.message.split('\n')[0]}; ${await text(p)}`) })
    const cb = new URL(callback ?? REDIRECT_URI)
    check('passkey_alone', cb.searchParams.get('code') && cb.searchParams.get('state') === state,
      `the app got ${cb.href}`)
    writeFileSync(CALLBACK_FILE, JSON.stringify({ callback: cb.href, verifier, state, nonce }))
    const used = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials
    check('alone_user_verified', used[0]?.signCount > credential.signCount,
      `signCount ${used[0]?.signCount} after ${credential.signCount}`)
    check('alone_no_console_errors', freshProblems.length === 0, freshProblems.join('; '))
  } finally {
    fresh.app?.close()
    await fresh.close()
  }
}

try {
  // the virtual authenticator (DevTools protocol, WebAuthn domain)
  const cdp = await context.newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: AUTHENTICATOR,
  })
  ok('authenticator')

  // 1. not signed in: the sign-in page, then back to the passkeys page
  await page.goto(PAGE)
  check('to_signin', page.url().startsWith(`${ISSUER}/api/v1/authorize`), `at ${page.url()}`)
  await page.locator('input[name=email]').fill(EMAIL)
  await page.locator('input[name=password]').fill(PASSWORD)
  await Promise.all([
    page.waitForURL((u) => u.href === PAGE, { waitUntil: 'load' }),
    page.locator('input[name=password]').press('Enter'),
  ]).catch(async (e) => { throw new Error(`no way back to the page: ${e.message.split('\n')[0]}; ${await text(page)}`) })
  ok('back_to_page')

  // 2. the script ran (the CSP let it): the registration form is shown
  const form = page.locator('#passkey-add')
  await form.waitFor({ state: 'visible' }).catch(() => {})
  check('script_runs', await form.isVisible(), `the form stays hidden: ${await text(page)}`)

  // 3. register: the page's script, the authenticator, the form's post
  await page.locator('#name').fill('Chromium key')
  await Promise.all([
    page.waitForNavigation({ waitUntil: 'load' }),
    page.getByRole('button', { name: 'Add a passkey' }).click(),
  ])
  const added = await text(page)
  check('registered', added.includes('The passkey was added.') && added.includes('Chromium key'),
    `the page says: ${added}`)
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
  check('resident', credentials.length === 1 && credentials[0].isResidentCredential,
    `the authenticator holds ${JSON.stringify(credentials.map((c) => c.isResidentCredential))}`)
  check('rp_id', credentials[0]?.rpId === new URL(ISSUER).hostname, `rpId ${credentials[0]?.rpId}`)

  // 4. sign in again (prompt=login): the password, then the passkey as the
  // second factor, through the same script on the second step's page
  const again = `${ISSUER}/api/v1/authorize?${new URLSearchParams({ response_type: 'code',
    client_id: `console.${PROJECT_ID}`, redirect_uri: PAGE, prompt: 'login' })}`
  await page.goto(again)
  await page.locator('input[name=email]').fill(EMAIL)
  await page.locator('input[name=password]').fill(PASSWORD)
  await Promise.all([
    page.waitForNavigation({ waitUntil: 'load' }),
    page.locator('input[name=password]').press('Enter'),
  ])
  const use = page.getByRole('button', { name: 'Use a passkey' })
  await use.waitFor({ state: 'visible' }).catch(() => {})
  check('factor_offered', await use.isVisible(), `the second step shows: ${await text(page)}`)
  await Promise.all([
    page.waitForURL((u) => u.href === PAGE, { waitUntil: 'load' }),
    use.click(),
  ]).catch(async (e) => { throw new Error(`the passkey did not sign in: ${e.message.split('\n')[0]}; ${await text(page)}`) })
  ok('passkey_second_factor')
  const after = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials
  check('sign_count', after[0]?.signCount >= 1, `signCount ${after[0]?.signCount}`)

  await passkeyAlone(after[0])

  // 6. remove it
  await Promise.all([
    page.waitForNavigation({ waitUntil: 'load' }),
    page.getByRole('button', { name: 'Remove' }).click(),
  ])
  const removed = await text(page)
  check('removed', removed.includes('The passkey was removed.') && removed.includes('You have no passkey yet.'),
    `the page says: ${removed}`)
} catch (e) {
  fail('run', e.message.split('\n')[0])
}
check('no_console_errors', problems.length === 0, problems.join('; '))
await browser.close()
process.exit(failures ? 1 : 0)
