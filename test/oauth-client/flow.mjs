// Runs the OAuth 2.0 flows that a standard, strict client library performs,
// against a running edgeauth, with oauth4webapi used unchanged. Prints
// "ok <step>" per step; on the first failure prints the error and exits 1.
//
// Environment:
//   BASE                 the issuer URL, e.g. http://127.0.0.1:8080
//   PUBLIC_CLIENT_ID     a public client (token_endpoint_auth_method none)
//   REDIRECT_URI         a redirect URI registered on that client
//   CONF_CLIENT_ID       a confidential client ...
//   CONF_CLIENT_SECRET   ... and its secret (client_secret_basic)
//   USER_EMAIL           a user who can sign in with a password
//   USER_PASSWORD
//   PROJECT_ID           the expected access-token audience (RFC 9068 aud)
//   EXPECTED_SCOPE       optional: the scope the user's token must carry
import * as oauth from 'oauth4webapi'
import { parseForm, steps } from './steps.mjs'

const env = (name, optional = false) => {
  const v = process.env[name]
  if (!v && !optional) fail('setup', new Error(`missing environment variable ${name}`))
  return v
}

function describe(err) {
  const parts = [`${err?.name ?? 'Error'}: ${err?.message ?? err}`]
  if (err?.code) parts.push(`code=${err.code}`)
  if (err instanceof oauth.ResponseBodyError) {
    parts.push(`status=${err.status} error=${err.error}`)
    if (err.error_description) parts.push(`error_description=${err.error_description}`)
  }
  if (err instanceof oauth.WWWAuthenticateChallengeError) {
    parts.push(`status=${err.status} challenges=${JSON.stringify(err.cause)}`)
  }
  if (err?.cause !== undefined && !(err instanceof oauth.WWWAuthenticateChallengeError)) {
    let cause = err.cause
    if (cause instanceof URLSearchParams) cause = Object.fromEntries(cause)
    if (cause instanceof Response) {
      cause = { status: cause.status, headers: Object.fromEntries(cause.headers) }
    }
    try {
      parts.push(`cause=${JSON.stringify(cause, (k, v) =>
        v instanceof Headers ? Object.fromEntries(v) : v)}`)
    } catch {
      parts.push(`cause=${String(cause)}`)
    }
  }
  return parts.join(' ')
}

const { fail, step, assert } = steps(describe)

const base = env('BASE')
const publicClientId = env('PUBLIC_CLIENT_ID')
const redirectUri = env('REDIRECT_URI')
const confClientId = env('CONF_CLIENT_ID')
const confClientSecret = env('CONF_CLIENT_SECRET')
const email = env('USER_EMAIL')
const password = env('USER_PASSWORD')
const projectId = env('PROJECT_ID')
const expectedScope = env('EXPECTED_SCOPE', true)

// The only relaxation: oauth4webapi refuses non-https endpoints unless
// allowInsecureRequests is set (documented for local development and testing
// against non-TLS environments) when the server listens on plain HTTP on
// 127.0.0.1, since every request to it needs this; over https (edgeauth's
// own TLS, t_tls_oauth_library.sh) it is not. Nothing else is relaxed:
// issuer, iss (RFC 9207), state, PKCE, content types and response shapes are
// all checked by the library's defaults.
const http = base.startsWith('https:') ? {} : { [oauth.allowInsecureRequests]: true }

const issuer = new URL(base)
const publicClient = { client_id: publicClientId, token_endpoint_auth_method: 'none' }
const confClient = { client_id: confClientId, token_endpoint_auth_method: 'client_secret_basic' }

// a. discovery (RFC 8414: /.well-known/oauth-authorization-server)
const as = await step('discovery', async () => {
  const res = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...http })
  const as = await oauth.processDiscoveryResponse(issuer, res)
  assert(as.authorization_endpoint && as.token_endpoint && as.revocation_endpoint && as.jwks_uri,
    `metadata lacks an endpoint: ${JSON.stringify(as)}`)
  assert(as.code_challenge_methods_supported?.includes('S256'), 'S256 not advertised')
  assert(as.authorization_response_iss_parameter_supported === true,
    'authorization_response_iss_parameter_supported is not true')
  return as
})

// b. authorization code + PKCE as a public client
const codeVerifier = oauth.generateRandomCodeVerifier()
const state = oauth.generateRandomState()
let tokens = await step('authorization_code', async () => {
  const codeChallenge = await oauth.calculatePKCECodeChallenge(codeVerifier)
  const authorizationUrl = new URL(as.authorization_endpoint)
  authorizationUrl.searchParams.set('client_id', publicClient.client_id)
  authorizationUrl.searchParams.set('redirect_uri', redirectUri)
  authorizationUrl.searchParams.set('response_type', 'code')
  authorizationUrl.searchParams.set('code_challenge', codeChallenge)
  authorizationUrl.searchParams.set('code_challenge_method', 'S256')
  authorizationUrl.searchParams.set('state', state)

  // the user agent: load the page, fill in the form, submit it
  const page = await fetch(authorizationUrl, { redirect: 'manual' })
  const html = await page.text()
  assert(page.status === 200, `authorize page: status ${page.status}: ${html.slice(0, 300)}`)
  assert(/^text\/html\b/i.test(page.headers.get('content-type') ?? ''),
    `authorize page content-type ${page.headers.get('content-type')}`)
  const { action, fields } = parseForm(html, authorizationUrl)
  assert(fields.get('state') === state, 'the form does not carry state back unchanged')
  assert(fields.get('code_challenge') === codeChallenge, 'the form does not carry the challenge')
  fields.set('email', email)
  fields.set('password', password)
  const signin = await fetch(action, { method: 'POST', body: fields, redirect: 'manual' })
  const location = signin.headers.get('location')
  assert(signin.status === 302 && location,
    `sign-in: status ${signin.status}, location ${location}: ${(await signin.text()).slice(0, 300)}`)
  const callback = new URL(location)
  assert(callback.origin + callback.pathname === new URL(redirectUri).href.replace(/\?.*$/, ''),
    `redirected to ${location}, not to ${redirectUri}`)

  // the client: validate the authorization response (state, iss per RFC 9207)
  const params = oauth.validateAuthResponse(as, publicClient, callback, state)
  const res = await oauth.authorizationCodeGrantRequest(as, publicClient, oauth.None(), params,
    redirectUri, codeVerifier, http)
  const result = await oauth.processAuthorizationCodeResponse(as, publicClient, res)
  assert(result.token_type === 'bearer', `token_type ${result.token_type}`)
  assert(typeof result.access_token === 'string' && typeof result.refresh_token === 'string',
    'no access or refresh token')
  assert(typeof result.expires_in === 'number' && result.expires_in > 0, 'no expires_in')
  if (expectedScope) assert(result.scope === expectedScope, `scope '${result.scope}', want '${expectedScope}'`)
  return result
})

// f (user token). RFC 9068 validation of the access token, as a resource server would
async function validateAccessToken(accessToken, expectedSub) {
  const request = new Request(new URL('/api/v1/projects', base), {
    headers: { authorization: `Bearer ${accessToken}` },
  })
  const claims = await oauth.validateJwtAccessToken(as, request, projectId, http)
  assert(claims.sub === expectedSub || expectedSub === undefined, `sub ${claims.sub}, want ${expectedSub}`)
  return claims
}
const userClaims = await step('jwt_access_token', async () => {
  const claims = await validateAccessToken(tokens.access_token)
  assert(claims.client_id === publicClient.client_id, `client_id claim ${claims.client_id}`)
  assert(claims.project_id === projectId, `project_id claim ${claims.project_id}`)
  return claims
})

// c. refresh, with rotation
const firstRefresh = tokens.refresh_token
tokens = await step('refresh', async () => {
  const res = await oauth.refreshTokenGrantRequest(as, publicClient, oauth.None(), firstRefresh, http)
  const result = await oauth.processRefreshTokenResponse(as, publicClient, res)
  assert(typeof result.refresh_token === 'string', 'no refresh token in the refresh answer')
  assert(result.refresh_token !== firstRefresh, 'the refresh token did not rotate')
  assert(result.access_token !== undefined, 'no access token')
  return result
})
await step('refreshed_jwt_access_token', async () => {
  const claims = await validateAccessToken(tokens.access_token, userClaims.sub)
  assert(claims.jti !== userClaims.jti, 'the refreshed access token has the same jti')
})

// d. client_credentials with client_secret_basic
await step('client_credentials', async () => {
  const res = await oauth.clientCredentialsGrantRequest(as, confClient,
    oauth.ClientSecretBasic(confClientSecret), new URLSearchParams(), http)
  const result = await oauth.processClientCredentialsResponse(as, confClient, res)
  assert(result.token_type === 'bearer', `token_type ${result.token_type}`)
  assert(result.refresh_token === undefined, 'client_credentials answered a refresh token')
  const claims = await validateAccessToken(result.access_token, confClient.client_id)
  assert(claims.client_id === confClient.client_id, `client_id claim ${claims.client_id}`)
})

// g. introspection (RFC 7662) of the user's access token, as a resource
// server would: the confidential client asks, with client_secret_basic
async function introspect(token) {
  const res = await oauth.introspectionRequest(as, confClient,
    oauth.ClientSecretBasic(confClientSecret), token, http)
  return oauth.processIntrospectionResponse(as, confClient, res)
}
await step('introspection', async () => {
  assert(as.introspection_endpoint === `${base}/api/v1/tokens/introspect`,
    `introspection_endpoint ${as.introspection_endpoint}`)
  const result = await introspect(tokens.access_token)
  assert(result.active === true, `active ${result.active}`)
  assert(result.client_id === publicClient.client_id, `client_id ${result.client_id}`)
  assert(result.sub === userClaims.sub, `sub ${result.sub}`)
  assert(result.token_type === 'Bearer', `token_type ${result.token_type}`)
  assert(result.aud === projectId && result.iss === base, `aud ${result.aud}, iss ${result.iss}`)
  if (expectedScope) assert(result.scope === expectedScope, `scope '${result.scope}'`)
  const refresh = await introspect(tokens.refresh_token)
  assert(refresh.active === false, 'another client\'s refresh token is active to the caller')
})

// e. revocation (RFC 7009) of the refresh token, then the refresh must fail
const currentRefresh = tokens.refresh_token
await step('revocation', async () => {
  const res = await oauth.revocationRequest(as, publicClient, oauth.None(), currentRefresh,
    { additionalParameters: { token_type_hint: 'refresh_token' }, ...http })
  await oauth.processRevocationResponse(res)
})
await step('revoked_refresh_rejected', async () => {
  const res = await oauth.refreshTokenGrantRequest(as, publicClient, oauth.None(), currentRefresh, http)
  let err
  try {
    await oauth.processRefreshTokenResponse(as, publicClient, res)
  } catch (e) {
    err = e
  }
  assert(err !== undefined, 'a revoked refresh token was accepted')
  if (!(err instanceof oauth.ResponseBodyError)) throw err
  assert(err.status === 400 && err.error === 'invalid_refresh_token',
    `got ${err.status} ${err.error}, want 400 invalid_refresh_token`)
})
await step('introspection_inactive', async () => {
  const result = await introspect(tokens.access_token)
  assert(result.active === false, 'an access token of a revoked sign-in is active')
  assert(Object.keys(result).length === 1, `more than active: ${JSON.stringify(result)}`)
})
