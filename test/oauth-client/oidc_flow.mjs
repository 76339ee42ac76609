// OpenID Connect as a certified relying-party library does it: openid-client
// (panva's, pinned in package-lock.json), used with its defaults, against a
// running edgeauth. Three clients of one project sign one user in: a public
// one, one with client_secret_basic and one with client_secret_post. Prints
// "ok <step>" per step; on the first failure prints "FAIL <step>: why" and
// exits 1. Run by test/blackbox/t_openid_client.sh, which passes:
//   BASE            the issuer URL
//   PORT            the port of the app's own listener started here
//                   (127.0.0.1): /cb/<name> receives codes, /out/<name> the
//                   browser after logout, /bc/<name> back-channel logouts
//   PUBLIC_ID, BASIC_ID, BASIC_SECRET, POST_ID, POST_SECRET  the clients,
//                   each with redirect URI /cb/<name>, post-logout URI
//                   /out/<name> and backchannel_logout_uri /bc/<name>
//   USER_EMAIL USER_PASSWORD USER_ID   the user who signs in
//
// The user agent's part (loading the authorization URL, posting the form,
// keeping the session cookie) is done here with fetch, as flow.mjs does.
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'
import * as client from 'openid-client'
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose'
import { parseForm, steps } from './steps.mjs'

const env = (name) => {
  const v = process.env[name]
  if (!v) fail('setup', new Error(`missing environment variable ${name}`))
  return v
}

function describe(err) {
  const parts = [`${err?.name ?? 'Error'}: ${err?.message ?? err}`]
  if (err?.code) parts.push(`code=${err.code}`)
  if (err?.error) parts.push(`error=${err.error}`)
  if (err?.error_description) parts.push(`error_description=${err.error_description}`)
  if (err?.status) parts.push(`status=${err.status}`)
  if (err?.cause !== undefined) {
    try { parts.push(`cause=${JSON.stringify(err.cause)}`) } catch { parts.push(`cause=${err.cause}`) }
  }
  return parts.join(' ')
}

const { fail, step, assert } = steps(describe)

const base = env('BASE')
const port = Number(env('PORT'))
const email = env('USER_EMAIL')
const password = env('USER_PASSWORD')
const userId = env('USER_ID')
const app = `http://127.0.0.1:${port}`

// --- the apps' listener: callbacks, post-logout landings, back-channel ---
const landings = []   // paths with query of GETs to /out/...
const logoutTokens = {}   // name -> [logout_token, ...]
const listener = createServer((req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (c) => { body += c })
  req.on('end', () => {
    const [, kind, name] = req.url.split('?')[0].split('/')
    if (kind === 'bc' && req.method === 'POST') {
      const ctype = req.headers['content-type'] ?? ''
      const token = new URLSearchParams(body).get('logout_token')
      if (!/^application\/x-www-form-urlencoded\b/.test(ctype) || !token) {
        res.writeHead(400).end()
        return
      }
      ;(logoutTokens[name] ??= []).push(token)
      res.writeHead(200, { 'Cache-Control': 'no-store' }).end()
      return
    }
    if (kind === 'out') landings.push(req.url)
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('app page\n')
  })
})
await new Promise((resolve, reject) => {
  listener.once('error', reject)
  listener.listen(port, '127.0.0.1', resolve)
}).catch((e) => fail('setup', new Error(`listener on ${port}: ${e.message}`)))

// The one departure from the defaults: openid-client refuses plain-http
// endpoints unless allowInsecureRequests is set (its documented switch for
// testing without TLS). Over https (t_tls_openid_client.sh) it is not set.
// Its other option used, enableNonRepudiationChecks, adds a check: the ID
// token's signature is verified against JWKS (by default the library trusts
// the TLS connection to the token endpoint instead).
const execute = [client.enableNonRepudiationChecks]
if (base.startsWith('http:')) execute.push(client.allowInsecureRequests)

const issuer = new URL(base)
const apps = {
  public: { id: env('PUBLIC_ID'), auth: () => client.None() },
  basic: { id: env('BASIC_ID'), auth: () => client.ClientSecretBasic(env('BASIC_SECRET')) },
  post: { id: env('POST_ID'), auth: () => client.ClientSecretPost(env('POST_SECRET')) },
  // a public client registered with id_token_signed_response_alg ES256,
  // which the library is told as client metadata; it asks with max_age,
  // and the library checks auth_time against it
  es256: { id: env('ES256_ID'), auth: () => client.None(), alg: 'ES256', maxAge: 600 },
}
const redirectUri = (name) => `${app}/cb/${name}`

// 1. discovery (/.well-known/openid-configuration) for each client
for (const [name, a] of Object.entries(apps)) {
  a.config = await step(`discovery_${name}`, async () => {
    const metadata = a.alg ? { id_token_signed_response_alg: a.alg } : undefined
    const config = await client.discovery(issuer, a.id, metadata, a.auth(), { execute })
    const m = config.serverMetadata()
    assert(m.issuer === base, `issuer ${m.issuer}`)
    for (const e of ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri',
      'end_session_endpoint', 'introspection_endpoint']) assert(m[e], `no ${e}`)
    assert(config.serverMetadata().supportsPKCE(), 'S256 PKCE not advertised')
    return config
  })
}

// The user agent: a cookie jar of one cookie (the session's), as a browser
// keeps it for the issuer.
let sessionCookie = null
function keepCookie(res) {
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(';')
    const eq = pair.indexOf('=')
    const name = pair.slice(0, eq)
    if (!/^(__Host-)?edgeauth_/.test(name)) continue
    sessionCookie = pair.slice(eq + 1) === '' ? null : pair
  }
}
const cookieHeader = () => (sessionCookie ? { cookie: sessionCookie } : {})

// authorize(url): what the browser does with an authorization URL. Returns
// {form: true} when the sign-in page was shown (and, with signIn, the form
// was posted), and the callback URL the browser was sent to.
async function authorize(url, { signIn = false } = {}) {
  const page = await fetch(url, { redirect: 'manual', headers: cookieHeader() })
  let location = page.headers.get('location')
  let form = false
  if (page.status === 200) {
    form = true
    const html = await page.text()
    if (!signIn) return { form, callback: null }
    const { action, fields } = parseForm(html, url)
    fields.set('email', email)
    fields.set('password', password)
    const post = await fetch(action, { method: 'POST', body: fields, redirect: 'manual', headers: cookieHeader() })
    keepCookie(post)
    location = post.headers.get('location')
    assert(post.status === 302 && location, `sign-in answered ${post.status}: ${(await post.text()).slice(0, 200)}`)
  } else {
    assert(page.status === 302 && location, `authorize answered ${page.status}: ${(await page.text()).slice(0, 200)}`)
  }
  return { form, callback: new URL(location) }
}

// 2. code + PKCE + nonce for each client, the library checking the answer
// and the ID token; the first signs in with the form, the other two get
// their code from the session (single sign-on)
const scope = 'openid profile email roles'
const atHash = (token) => createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url')
for (const [name, a] of Object.entries(apps)) {
  await step(`authorization_code_${name}`, async () => {
    const verifier = client.randomPKCECodeVerifier()
    const nonce = client.randomNonce()
    const state = client.randomState()
    const url = client.buildAuthorizationUrl(a.config, {
      redirect_uri: redirectUri(name), scope, nonce, state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      ...(a.maxAge ? { max_age: String(a.maxAge) } : {}),
    })
    const first = name === 'public'
    const { form, callback } = await authorize(url, { signIn: first })
    assert(form === first, first ? 'no sign-in form without a session' : 'the form was shown despite the session')
    assert(callback.href.startsWith(redirectUri(name) + '?'), `sent to ${callback.href}`)
    a.tokens = await client.authorizationCodeGrant(a.config, callback,
      { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true, maxAge: a.maxAge })
    a.claims = a.tokens.claims()
    assert(a.claims.sub === userId, `sub ${a.claims.sub}, want ${userId}`)
    assert(a.claims.aud === a.id || (Array.isArray(a.claims.aud) && a.claims.aud.includes(a.id)), `aud ${a.claims.aud}`)
    assert(a.claims.nonce === nonce, `nonce ${a.claims.nonce}`)
    assert(typeof a.tokens.refresh_token === 'string', 'no refresh token')
    assert(a.tokens.scope?.split(' ').slice(0, 4).join(' ') === scope, `scope ${a.tokens.scope}`)
  })
  await step(`id_token_${name}`, async () => {
    const c = a.claims
    const header = decodeProtectedHeader(a.tokens.id_token)
    assert(header.alg === (a.alg ?? 'RS256') && header.typ === 'JWT' && header.kid, `header ${JSON.stringify(header)}`)
    // openid-client leaves at_hash to the RP in the code flow (OIDC Core
    // §3.1.3.8 makes it optional there), so it is checked here
    assert(c.at_hash === atHash(a.tokens.access_token), `at_hash ${c.at_hash}`)
    assert(typeof c.sid === 'string' && c.sid.length > 0, 'no sid')
    assert(typeof c.auth_time === 'number' && c.auth_time <= c.iat, `auth_time ${c.auth_time}`)
    assert(JSON.stringify(c.amr) === '["pwd"]', `amr ${JSON.stringify(c.amr)}`)
    assert(c.email === email && c.email_verified === true, `email ${c.email} ${c.email_verified}`)
    assert(c.preferred_username === email && typeof c.name === 'string', `profile ${c.name} ${c.preferred_username}`)
    assert(c.role === 'reader' && JSON.stringify(c.permissions) === '["users:read"]', `roles ${c.role} ${c.permissions}`)
  })
}
await step('sso_one_session', async () => {
  const sids = new Set(Object.values(apps).map((a) => a.claims.sid))
  assert(sids.size === 1, `the three sign-ins have sids ${[...sids]}`)
})

// 3. UserInfo, the library checking its sub against the ID token's
for (const [name, a] of Object.entries(apps)) {
  await step(`userinfo_${name}`, async () => {
    const info = await client.fetchUserInfo(a.config, a.tokens.access_token, a.claims.sub)
    assert(info.sub === userId && info.email === email && info.role === 'reader', `userinfo ${JSON.stringify(info)}`)
  })
}
await step('userinfo_wrong_sub_refused', async () => {
  const a = apps.public
  let err
  try {
    await client.fetchUserInfo(a.config, a.tokens.access_token, 'someone-else')
  } catch (e) { err = e }
  assert(err, 'the library accepted a UserInfo answer for another subject')
})

// 4. refresh: new tokens and a new ID token of the same sign-in
for (const [name, a] of Object.entries(apps)) {
  await step(`refresh_${name}`, async () => {
    const old = a.tokens
    const t = await client.refreshTokenGrant(a.config, old.refresh_token)
    assert(t.refresh_token && t.refresh_token !== old.refresh_token, 'the refresh token did not rotate')
    assert(t.id_token && t.id_token !== old.id_token, 'no new ID token')
    const c = t.claims()
    assert(c.sub === a.claims.sub && c.sid === a.claims.sid && c.auth_time === a.claims.auth_time,
      `refreshed claims ${JSON.stringify(c)}`)
    assert(c.at_hash === atHash(t.access_token), 'refreshed at_hash')
    a.tokens = t
    a.claims = c
  })
}

// 5. introspection (RFC 7662) by the confidential clients
async function introspect(a, token) {
  return client.tokenIntrospection(a.config, token)
}
for (const name of ['basic', 'post']) {
  await step(`introspection_${name}`, async () => {
    const r = await introspect(apps[name], apps.public.tokens.access_token)
    assert(r.active === true && r.sub === userId && r.client_id === apps.public.id, `introspection ${JSON.stringify(r)}`)
  })
}

// revocation (RFC 7009) of a refresh token by its public client: the
// refresh fails, its access token is inactive
await step('revocation_es256', async () => {
  const a = apps.es256
  await client.tokenRevocation(a.config, a.tokens.refresh_token)
  let err
  try {
    await client.refreshTokenGrant(a.config, a.tokens.refresh_token)
  } catch (e) { err = e }
  assert(err instanceof client.ResponseBodyError && err.status === 400 && err.error === 'invalid_refresh_token',
    `refresh after revocation: ${err ? describe(err) : 'new tokens'}`)
  const r = await introspect(apps.basic, a.tokens.access_token)
  assert(r.active === false, 'the access token of a revoked sign-in is active')
})

// 6. RP-initiated logout through the basic client, followed by the browser:
// back at the registered URI with state
const logoutState = client.randomState()
await step('logout', async () => {
  const a = apps.basic
  const url = client.buildEndSessionUrl(a.config, {
    id_token_hint: a.tokens.id_token, post_logout_redirect_uri: `${app}/out/basic`, state: logoutState,
  })
  const res = await fetch(url, { headers: cookieHeader() })
  assert(res.status === 200 && res.url === `${app}/out/basic?state=${logoutState}`, `logout ended at ${res.status} ${res.url}`)
  assert(landings.length === 1 && landings[0] === `/out/basic?state=${logoutState}`, `landings ${landings}`)
})

// 7. back-channel: each client that got a code in the session receives a
// logout token, which verifies as OIDC Back-Channel Logout 1.0 §2.6 says
const jwks = createRemoteJWKSet(new URL(apps.public.config.serverMetadata().jwks_uri))
const deadline = Date.now() + 15_000
while (Object.keys(apps).some((n) => !logoutTokens[n]) && Date.now() < deadline) {
  await new Promise((r) => setTimeout(r, 100))
}
for (const [name, a] of Object.entries(apps)) {
  await step(`backchannel_${name}`, async () => {
    const got = logoutTokens[name] ?? []
    // more than one only when a slow answer made edgeauth try again: the
    // same logout then (one jti per logout)
    const jtis = new Set(got.map((t) => decodeJwt(t).jti))
    assert(got.length >= 1 && jtis.size === 1, `received ${got.length} logout tokens, jtis ${[...jtis]}`)
    const { payload: p, protectedHeader: h } = await jwtVerify(got[0], jwks, {
      issuer: base, audience: a.id, typ: 'logout+jwt', algorithms: [a.alg ?? 'RS256'], requiredClaims: ['iat', 'exp', 'jti'],
    })
    assert(h.typ === 'logout+jwt', `typ ${h.typ}`)
    assert(p.sub === a.claims.sub && p.sid === a.claims.sid, `sub ${p.sub} sid ${p.sid}`)
    const events = p.events ?? {}
    assert(JSON.stringify(events) === '{"http://schemas.openid.net/event/backchannel-logout":{}}',
      `events ${JSON.stringify(events)}`)
    assert(!('nonce' in p), 'a logout token with a nonce')
    assert(p.exp - p.iat === 120, `exp - iat is ${p.exp - p.iat}`)
  })
}

// 8. after the logout: the sign-ins of the session are revoked and the
// session signs nobody in
await step('logout_revoked_tokens', async () => {
  const r = await introspect(apps.basic, apps.public.tokens.access_token)
  assert(r.active === false, 'an access token of the session is still active')
  let err
  try {
    await client.refreshTokenGrant(apps.post.config, apps.post.tokens.refresh_token)
  } catch (e) { err = e }
  assert(err instanceof client.ResponseBodyError && err.status === 400, `refresh after logout: ${describe(err)}`)
})
await step('logout_ended_session', async () => {
  const a = apps.public
  const state = client.randomState()
  const verifier = client.randomPKCECodeVerifier()
  const url = client.buildAuthorizationUrl(a.config, {
    redirect_uri: redirectUri('public'), scope, state, prompt: 'none',
    code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  })
  const { form, callback } = await authorize(url)
  assert(!form && callback, 'prompt=none showed the form')
  let err
  try {
    await client.authorizationCodeGrant(a.config, callback, { pkceCodeVerifier: verifier, expectedState: state })
  } catch (e) { err = e }
  assert(err instanceof client.AuthorizationResponseError && err.error === 'login_required',
    `prompt=none after logout: ${err ? describe(err) : 'a code'}`)
})

listener.close()
process.exit(0)
