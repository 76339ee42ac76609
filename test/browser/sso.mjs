// Single sign-on, prompt, max_age, logout and the cross-site check in a real
// browser (docs/signin.md §"Sessions", §"Logout"): Debian's chromium, driven by playwright-core,
// signs a user in to app A, then app B of the same project gets its code
// without the form; logout through A ends the session for both. Prints
// "ok <step>" per step that passes and "FAIL <step>: why" for one that does
// not; exits 1 on any failure. Run by test/blackbox/t_browser_sso.sh, which
// passes:
//   BASE PROJECT_ID CLIENT_A CLIENT_B USER_EMAIL USER_PASSWORD
//   APP_PORT       the apps' listener started here on 127.0.0.1: /cb/a and
//                  /cb/b receive codes, /out/a the browser after logout,
//                  /bc/b app B's back-channel logouts
//   OTHER_PORT     another site's page, served here on 127.0.0.2
//   FRAME_PORT     over https: the apps' listener once more, speaking TLS
//                  with TLS_CERT and TLS_KEY (the server's own pair), for the
//                  page that renews in an iframe: the session cookie is
//                  SameSite=Lax, and an http page is another site to an
//                  https issuer
//   ADMIN_TOKEN USER_ID ROLE_ID USER_NAME   to deactivate the user
//   LOGOUT_LOG     the file the logout tokens B receives go to, one a line
//   [SPKI_HASH] [CHROMIUM] [SCREENSHOT_DIR]  as for signin.mjs
// It prints "sid <sid>" (the session's, from A's ID token) for the shell,
// which verifies the logout tokens against JWKS.
import { createHash, randomBytes } from 'node:crypto'
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { join } from 'node:path'
import { env, launchBrowser, STEP_TIMEOUT, watchProblems } from './launch.mjs'

const BASE = env('BASE')
const PROJECT_ID = env('PROJECT_ID')
const CLIENT = { a: env('CLIENT_A'), b: env('CLIENT_B') }
const EMAIL = env('USER_EMAIL')
const PASSWORD = env('USER_PASSWORD')
const APP_PORT = Number(env('APP_PORT'))
const OTHER_PORT = Number(env('OTHER_PORT'))
const LOGOUT_LOG = env('LOGOUT_LOG')
const SHOTS = process.env.SCREENSHOT_DIR || 'build'
const APP = `http://127.0.0.1:${APP_PORT}`
const OTHER = `http://127.0.0.2:${OTHER_PORT}`
const HTTPS = BASE.startsWith('https:')

let failures = 0
const ok = (step) => console.log(`ok ${step}`)
const fail = (step, why) => { failures++; console.log(`FAIL ${step}: ${why}`) }
const check = (step, cond, why) => (cond ? ok(step) : fail(step, why))

// --- the apps' listener and the other site ---
const callbacks = []   // URLs of /cb/... and /out/... as the browser reached them
let logoutTokens = 0
const page200 = (res, html) => {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
  res.end(`<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>App</title>${html}\n`)
}
const appHandler = (req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (c) => { body += c })
  req.on('end', () => {
    if (req.method === 'POST' && req.url === '/bc/b') {
      const token = new URLSearchParams(body).get('logout_token')
      if (token) { appendFileSync(LOGOUT_LOG, `${token}\n`); logoutTokens++ }
      res.writeHead(token ? 200 : 400).end()
      return
    }
    if (req.url.startsWith('/frame?')) {
      // an app's page that renews its sign-in in a hidden iframe with
      // prompt=none, as single-page apps' libraries do
      const src = new URL(req.url, 'http://x').searchParams.get('src')
      page200(res, `<p>The app.</p><iframe hidden src="${escape(src)}"></iframe>`)
      return
    }
    if (req.url === '/logout-form') {
      // app A's own page: RP-Initiated Logout by POST (§2 allows it), from
      // the app's origin
      page200(res, postForm(`${BASE}/api/v1/logout`, appLogoutFields, 'Log out of App A'))
      return
    }
    callbacks.push(new URL(req.url, APP))
    page200(res, '<p>The app.</p>')
  })
}
const apps = createServer(appHandler)
// postForm(action, fields, button): a form that posts the fields there
const escape = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')
const postForm = (action, fields, button) => `<form method="post" action="${escape(action)}">` +
  Object.entries(fields).map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`).join('') +
  `<button>${button}</button></form>`
let appLogoutFields = {}
// Another site's page: a form that posts a sign-in with the user's own
// credentials to edgeauth (login CSRF), submitted by its button.
let csrfFields = {}
const other = createServer((req, res) => {
  page200(res, postForm(`${BASE}/api/v1/authorize`, csrfFields, 'Win a prize'))
})
const listen = (server, port, host) => new Promise((resolve, reject) => {
  server.once('error', reject)
  server.listen(port, host, resolve)
})
const FRAME_APP = HTTPS ? `https://127.0.0.1:${env('FRAME_PORT')}` : APP
const framer = HTTPS &&
  createHttpsServer({ cert: readFileSync(env('TLS_CERT')), key: readFileSync(env('TLS_KEY')) }, appHandler)
await Promise.all([listen(apps, APP_PORT, '127.0.0.1'), listen(other, OTHER_PORT, '127.0.0.2'),
  framer && listen(framer, Number(env('FRAME_PORT')), '127.0.0.1')])
  .catch((e) => { console.log(`FAIL setup: listeners: ${e.message}`); process.exit(1) })

// --- the apps' side of a request: PKCE, state, nonce ---
const b64url = (buf) => buf.toString('base64url')
function request(app, extra = {}) {
  const verifier = b64url(randomBytes(32))
  const params = {
    response_type: 'code', client_id: CLIENT[app], redirect_uri: `${APP}/cb/${app}`, scope: 'openid email',
    code_challenge: b64url(createHash('sha256').update(verifier).digest()), code_challenge_method: 'S256',
    state: b64url(randomBytes(12)), nonce: b64url(randomBytes(12)), ...extra,
  }
  return { verifier, params, url: `${BASE}/api/v1/authorize?${new URLSearchParams(params)}` }
}
async function exchange(r, callback) {
  const res = await fetch(`${BASE}/api/v1/tokens`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: r.params.client_id,
      redirect_uri: r.params.redirect_uri, code: callback.searchParams.get('code') ?? '', code_verifier: r.verifier }),
  })
  const tokens = await res.json().catch(() => ({}))
  if (res.status !== 200 || !tokens.id_token) throw new Error(`token exchange: ${res.status} ${JSON.stringify(tokens).slice(0, 200)}`)
  return tokens
}
const claims = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString())

// --- the browser ---
const browser = await launchBrowser({ spki: process.env.SPKI_HASH, chromium: process.env.CHROMIUM })
  .catch((e) => { console.log(`FAIL launch: ${e.message.split('\n')[0]}`); process.exit(1) })
ok('launch')
const { context } = browser
const page = context.pages()[0] ?? await context.newPage()
// every answer of the authorization endpoint the browser got, to tell a
// form (200) from a redirect (302)
let authorizeAnswers = []
page.on('response', (r) => {
  if (r.url().startsWith(`${BASE}/api/v1/authorize`)) authorizeAnswers.push(r.status())
})

// Every console error, page error and failed request, on edgeauth's pages
// and the apps', but the one expected: the cross-site POST's 403.
const problems = watchProblems(page, 403, `${BASE}/api/v1/authorize`)

const cookieName = `${HTTPS ? '__Host-' : ''}edgeauth_${PROJECT_ID}`
// every cookie of the jar, whatever its path
const sessionCookies = async () => (await context.cookies()).filter((c) => c.name.endsWith(`edgeauth_${PROJECT_ID}`))
const formShown = async () => (await page.getByLabel('Password', { exact: true }).count()) === 1

// visit(url): the browser goes there; returns the callbacks it reached and
// the authorization endpoint's answers on the way
async function visit(url) {
  authorizeAnswers = []
  const before = callbacks.length
  await page.goto(url)
  return { reached: callbacks.slice(before), answers: authorizeAnswers }
}

// signIn(r): the form is shown; fill it in, press Enter, reach the app
async function signIn(r) {
  const before = callbacks.length
  await page.getByLabel('Email', { exact: true }).fill(EMAIL)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await Promise.all([
    page.waitForURL((u) => u.href.startsWith(r.params.redirect_uri), { waitUntil: 'load' }),
    page.getByLabel('Password', { exact: true }).press('Enter'),
  ])
  return callbacks.slice(before)
}

const admin = (method, path, body) => fetch(`${BASE}/api/v1/projects/${PROJECT_ID}${path}`, {
  method, headers: { authorization: `Bearer ${env('ADMIN_TOKEN')}`, 'content-type': 'application/json' },
  body: body && JSON.stringify(body),
})

try {
  // 1. prompt=none without a session: back at the app with login_required
  let r = request('a', { prompt: 'none' })
  let v = await visit(r.url)
  let cb = v.reached[0]?.searchParams
  check('prompt_none_without_session', v.reached.length === 1 && cb.get('error') === 'login_required' &&
    cb.get('state') === r.params.state && cb.get('iss') === BASE && !cb.has('code'),
    `reached ${v.reached.map(String)}`)

  // 2. app A: the form, a sign-in, a code and an ID token with a sid
  r = request('a')
  v = await visit(r.url)
  check('a_shows_form', v.answers[0] === 200 && await formShown(), `authorize answered ${v.answers}`)
  const reachedA = await signIn(r)
  const tokensA = await exchange(r, reachedA[0])
  const sid = claims(tokensA.id_token).sid
  check('a_signs_in', reachedA.length === 1 && typeof sid === 'string' && claims(tokensA.id_token).nonce === r.params.nonce,
    `reached ${reachedA.map(String)}, sid ${sid}`)
  console.log(`sid ${sid}`)

  // 3. the session cookie in the browser's jar
  const jar = await sessionCookies()
  const c = jar[0] ?? {}
  check('cookie_flags', jar.length === 1 && c.name === cookieName && c.httpOnly === true && c.sameSite === 'Lax' &&
    c.path === '/' && c.secure === HTTPS && c.domain === '127.0.0.1' && c.expires > Date.now() / 1000,
    `cookies ${JSON.stringify(jar)}`)

  // 4. app B: a code at once, without the form, in the same session
  r = request('b')
  v = await visit(r.url)
  const tokensB = v.reached.length === 1 ? await exchange(r, v.reached[0]) : {}
  check('b_single_sign_on', v.answers.length === 1 && v.answers[0] === 302 && v.reached.length === 1 &&
    v.reached[0].searchParams.get('state') === r.params.state && tokensB.id_token && claims(tokensB.id_token).sid === sid,
    `authorize answered ${v.answers}, reached ${v.reached.map(String)}`)

  // an app's silent renewal in an iframe, from a page on the issuer's site
  // (same scheme and host): a code for the app's callback in the frame
  r = request('b', { prompt: 'none' })
  const beforeFrame = callbacks.length
  await page.goto(`${FRAME_APP}/frame?${new URLSearchParams({ src: r.url })}`)
  const frameDeadline = Date.now() + STEP_TIMEOUT
  while (callbacks.length === beforeFrame && Date.now() < frameDeadline) await new Promise((res) => setTimeout(res, 50))
  const framed = callbacks.slice(beforeFrame).filter((u) => u.pathname === '/cb/b')
  check('b_silent_renew_in_iframe', framed.length === 1 && framed[0].searchParams.get('state') === r.params.state &&
    !!framed[0].searchParams.get('code'), `the frame reached ${framed.map(String)}`)

  // 5. prompt=login and max_age=0 show the form despite the session
  for (const [name, extra] of [['prompt_login_form', { prompt: 'login' }], ['max_age_0_form', { max_age: '0' }]]) {
    v = await visit(request('b', extra).url)
    check(name, v.answers[0] === 200 && v.reached.length === 0 && await formShown(),
      `authorize answered ${v.answers}, reached ${v.reached.map(String)}`)
  }

  // 6. logout through A with its ID token: back at A's page with state,
  // the cookie gone, and the next authorize shows the form
  const logoutState = 'bye ✓'
  v = await visit(`${BASE}/api/v1/logout?${new URLSearchParams({
    id_token_hint: tokensA.id_token, post_logout_redirect_uri: `${APP}/out/a`, state: logoutState })}`)
  check('logout_redirects', v.reached.length === 1 && v.reached[0].pathname === '/out/a' &&
    v.reached[0].searchParams.get('state') === logoutState, `reached ${v.reached.map(String)}, page ${page.url()}`)
  check('logout_clears_cookie', (await sessionCookies()).length === 0, `cookies ${JSON.stringify(await sessionCookies())}`)
  v = await visit(request('b').url)
  check('after_logout_form', v.answers[0] === 200 && v.reached.length === 0 && await formShown(),
    `authorize answered ${v.answers}, reached ${v.reached.map(String)}`)
  const deadline = Date.now() + 15_000
  while (logoutTokens === 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100))
  // (more than one only when a slow answer made edgeauth try again)
  check('b_backchannel_received', logoutTokens >= 1, `app B received ${logoutTokens} logout tokens`)

  // 7. another site's page posts the form with the user's credentials: 403,
  // no session, no redirect
  r = request('a')
  csrfFields = { ...r.params, email: EMAIL, password: PASSWORD }
  await page.goto(`${OTHER}/`)
  authorizeAnswers = []
  const before = callbacks.length
  const [post] = await Promise.all([
    page.waitForResponse((res) => res.url().startsWith(`${BASE}/api/v1/authorize`) && res.request().method() === 'POST'),
    page.waitForNavigation({ waitUntil: 'load' }),
    page.getByRole('button', { name: 'Win a prize' }).click(),
  ])
  const origin = await post.request().headerValue('origin')
  check('cross_site_post_refused', post.status() === 403 && origin === OTHER && callbacks.length === before &&
    (await sessionCookies()).length === 0 && !(await formShown()),
    `status ${post.status()}, Origin ${origin}, callbacks ${callbacks.length - before}, ` +
    `cookies ${(await sessionCookies()).length}, page ${page.url()}`)
  mkdirSync(SHOTS, { recursive: true })
  await page.screenshot({ path: join(SHOTS, 'browser-sso-cross-site.png'), fullPage: true })

  // 8. logout without a hint: edgeauth's confirmation page, whose form the
  // browser posts (same origin) and follows to A's page with state
  r = request('a')
  v = await visit(r.url)
  const signedIn = await signIn(r)
  v = await visit(`${BASE}/api/v1/logout?${new URLSearchParams({
    client_id: CLIENT.a, post_logout_redirect_uri: `${APP}/out/a`, state: 'confirmed' })}`)
  const confirm = page.getByRole('button', { name: 'Sign out' })
  const shown = (await confirm.count()) === 1
  const before8 = callbacks.length
  if (shown) {
    await Promise.all([
      page.waitForURL((u) => u.href.startsWith(`${APP}/out/a`), { waitUntil: 'load' }),
      confirm.click(),
    ]).catch(() => {})
  }
  const landed = callbacks.slice(before8)
  check('logout_confirmation', signedIn.length === 1 && shown && landed.length === 1 &&
    landed[0].pathname === '/out/a' && landed[0].searchParams.get('state') === 'confirmed' &&
    (await sessionCookies()).length === 0,
    `signed in ${signedIn.length}, confirmation shown ${shown}, reached ${landed.map(String)}, page ${page.url()}, ` +
    `cookies ${(await sessionCookies()).length}`)

  // 9. logout posted by app A's own page (another origin, so no cookie
  // goes along: the hint's sid names the session)
  r = request('a')
  v = await visit(r.url)
  const signedInA = await signIn(r)
  const tokensA2 = await exchange(r, signedInA[0])
  appLogoutFields = { id_token_hint: tokensA2.id_token, post_logout_redirect_uri: `${APP}/out/a`, state: 'posted' }
  await page.goto(`${APP}/logout-form`)
  const before9 = callbacks.length
  await Promise.all([
    page.waitForURL((u) => u.href.startsWith(`${APP}/out/a`), { waitUntil: 'load' }),
    page.getByRole('button', { name: 'Log out of App A' }).click(),
  ]).catch(() => {})
  const landed9 = callbacks.slice(before9)
  v = await visit(request('b').url)
  check('logout_posted_by_app', landed9.length === 1 && landed9[0].searchParams.get('state') === 'posted' &&
    v.answers[0] === 200 && await formShown(),
    `reached ${landed9.map(String)}, page ${page.url()}, then authorize answered ${v.answers}`)

  // 10. a deactivated user's session signs in no more: sign in to A, the
  // admin deactivates the user, B's authorize shows the form
  r = request('a')
  v = await visit(r.url)
  const again = await signIn(r)
  const live = (await sessionCookies()).length === 1
  const put = await admin('PUT', `/users/${env('USER_ID')}`,
    { display_name: env('USER_NAME'), email: EMAIL, role_id: env('ROLE_ID'), is_active: false })
  v = await visit(request('b').url)
  check('deactivated_user_form', again.length === 1 && live && put.status === 200 &&
    v.answers[0] === 200 && v.reached.length === 0 && await formShown(),
    `signed in ${again.length}, cookie ${live}, PUT ${put.status}, authorize answered ${v.answers}, reached ${v.reached.map(String)}`)

  check('no_console_errors', problems.length === 0, problems.join(' | '))
} catch (e) {
  fail('flow', e.message.split('\n')[0])
  if (problems.length) console.log(`console: ${problems.join(' | ')}`)
} finally {
  await browser.close()
  apps.close()
  other.close()
  if (framer) framer.close()
}
process.exit(failures ? 1 : 0)
