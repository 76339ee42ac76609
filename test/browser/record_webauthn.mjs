// Records WebAuthn ceremonies made by a real browser for the verifier's unit
// tests (test/unit/check_webauthn_recorded.c): Debian's chromium with the
// DevTools protocol's virtual authenticator (CTAP2, internal transport,
// resident keys, user verification), on a page of the fixed origin
// http://localhost:8080 that playwright answers itself (no server), makes a
// registration (attestation "none") and an assertion of the same credential
// for each of ES256 and RS256, against fixed challenges. Prints the C header
// test/unit/webauthn_recorded.h on stdout:
//   node test/browser/record_webauthn.mjs > test/unit/webauthn_recorded.h
// The keys are the authenticator's own and are gone with it; the recorded
// bytes are what the tests check, as a relying party gets them.
import { execFileSync } from 'node:child_process'
import { launchBrowser } from './launch.mjs'

const ORIGIN = 'http://localhost:8080'
const RP_ID = 'localhost'
// 32 bytes each, as the server's challenges (webauthn.h, WEBAUTHN_CHALLENGE_BYTES)
const CREATE_CHALLENGE = Array.from({ length: 32 }, (_, i) => i)
const GET_CHALLENGE = Array.from({ length: 32 }, (_, i) => 255 - i)
const ALGS = [['ES256', -7], ['RS256', -257]]

const b64u = (bytes) => Buffer.from(bytes).toString('base64url')

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium'
const VERSION = execFileSync(CHROMIUM, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] })
  .toString().trim()
const browser = await launchBrowser({ chromium: CHROMIUM })
const out = []
try {
  const page = browser.context.pages()[0] ?? await browser.context.newPage()
  await page.route(`${ORIGIN}/**`, (route) => route.fulfill({
    status: 200, contentType: 'text/html', body: '<!doctype html><title>recorder</title>' }))
  await page.goto(`${ORIGIN}/`)
  const cdp = await browser.context.newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  for (const [name, alg] of ALGS) {
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true,
        hasUserVerification: true, isUserVerified: true },
    })
    const rec = await page.evaluate(async ({ alg, createChallenge, getChallenge, rpId }) => {
      const arr = (buf) => Array.from(new Uint8Array(buf))
      const cred = await navigator.credentials.create({ publicKey: {
        challenge: new Uint8Array(createChallenge),
        rp: { id: rpId, name: 'edgeauth' },
        user: { id: new TextEncoder().encode('user-1'), name: 'rita@example.com', displayName: 'Rita' },
        pubKeyCredParams: [{ type: 'public-key', alg }],
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
        attestation: 'none',
      } })
      const got = await navigator.credentials.get({ publicKey: {
        challenge: new Uint8Array(getChallenge), rpId, userVerification: 'required',
        allowCredentials: [{ type: 'public-key', id: cred.rawId }],
      } })
      return { id: arr(cred.rawId), createClientData: arr(cred.response.clientDataJSON),
        attestationObject: arr(cred.response.attestationObject),
        getClientData: arr(got.response.clientDataJSON),
        authData: arr(got.response.authenticatorData), signature: arr(got.response.signature) }
    }, { alg, createChallenge: CREATE_CHALLENGE, getChallenge: GET_CHALLENGE, rpId: RP_ID })
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId })
    out.push([name, rec])
  }
} finally {
  await browser.close()
}

const str = (v) => `"${v}"`
const lines = [
  '/* Recorded by test/browser/record_webauthn.mjs with the DevTools protocol\'s',
  ' * virtual authenticator (CTAP2, internal, resident key, user verified) of',
  ` * ${VERSION}:`,
  ' * one registration (attestation "none") and one assertion of its credential',
  ' * per algorithm, each value base64url without padding, as a browser gives',
  ' * them to a relying party. Do not edit; record again instead. */',
  '#ifndef EDGEAUTH_WEBAUTHN_RECORDED_H',
  '#define EDGEAUTH_WEBAUTHN_RECORDED_H',
  '',
  `#define REC_ORIGIN ${str(ORIGIN)}`,
  `#define REC_RP_ID ${str(RP_ID)}`,
  `#define REC_CREATE_CHALLENGE ${str(b64u(CREATE_CHALLENGE))}`,
  `#define REC_GET_CHALLENGE ${str(b64u(GET_CHALLENGE))}`,
  '',
  'struct recorded_ceremony {',
  '\tconst char *name;',
  '\tint alg;',
  '\tconst char *credential_id, *create_client_data, *attestation_object;',
  '\tconst char *get_client_data, *auth_data, *signature;',
  '};',
  '',
  'static const struct recorded_ceremony recorded[] = {',
]
for (const [name, r] of out) {
  lines.push(`\t{ ${str(name)}, ${ALGS.find(([n]) => n === name)[1]},`)
  const fields = [r.id, r.createClientData, r.attestationObject, r.getClientData, r.authData, r.signature]
  fields.forEach((f, i) => {
    const s = b64u(f)
    const chunks = s.match(/.{1,88}/g)
    lines.push(chunks.map((c) => `\t  "${c}"`).join('\n') + (i < fields.length - 1 ? ',' : ' },'))
  })
}
lines.push('};', '', '#endif', '')
process.stdout.write(lines.join('\n'))
