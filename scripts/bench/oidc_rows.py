"""The OpenID Connect and records rows of make bench (issues 13 and 14).

run calls measure() on a running server of the seeded store and lines() to
render the rows; b is the run module itself (its wrk, Api, pkce, row_line
...), passed in rather than imported, since run is a script.

  silent sign-in   GET /api/v1/authorize with a session cookie: a 302 with a
                   code and no password (it writes the code: a commit)
  UserInfo         GET /api/v1/userinfo with a sign-in's openid token
  introspection    POST /api/v1/tokens/introspect of an active access token
  get-by-id        GET .../users/{id}
  refresh, openid  the refresh grant of an OIDC sign-in, which returns an ID
                   token too: against the plain refresh row, one RS256
                   signature more (`openssl speed rsa2048`) and nothing else
  forward-auth     GET /api/v1/forward-auth with a valid app cookie, as a
                   proxy asks it on every page load of a protected app
                   (issue 31; the server trusts 127.0.0.1 as a proxy)
"""
import http.client
import os
import subprocess
import urllib.parse

SCOPE = "openid profile email roles"


def signed_in(b, st, client_id):
    """A password sign-in of the first sign-in user to client_id (its email
    and password are in signin.txt): the session cookie it sets, as the
    Cookie header a browser sends back."""
    email, password = [urllib.parse.unquote(x) for x in
                       open(os.path.join(b.WORK, "signin.txt")).readline().split()]
    _, challenge = b.pkce()
    form = urllib.parse.urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": b.REDIRECT,
        "code_challenge": challenge, "code_challenge_method": "S256", "state": "bench",
        "scope": SCOPE, "email": email, "password": password})
    c = http.client.HTTPConnection("127.0.0.1", st.port, timeout=30)
    c.request("POST", "/api/v1/authorize", form,
              {"Content-Type": "application/x-www-form-urlencoded"})
    r = c.getresponse()
    r.read()
    cookie = r.getheader("Set-Cookie") or ""
    c.close()
    if r.status != 302 or "code=" not in (r.getheader("Location") or "") or "=" not in cookie:
        raise SystemExit(f"bench: the password sign-in for the session failed ({r.status})")
    return cookie.split(";", 1)[0]


def openid_token(b, st, client_id):
    """An access token of an OIDC BYOU sign-in of user ext-0 (scope openid)."""
    api, anon = b.Api(st.port, st.token), b.Api(st.port)
    verifier, challenge = b.pkce()
    code = api.call("POST", f"{st.P}/users/external/ext-0/authorization-codes", {
        "client_id": client_id, "redirect_uri": b.REDIRECT, "code_challenge": challenge,
        "code_challenge_method": "S256", "scope": SCOPE, "nonce": "bench"})["code"]
    t = anon.call("POST", "/api/v1/tokens", form={
        "grant_type": "authorization_code", "client_id": client_id, "code": code,
        "redirect_uri": b.REDIRECT, "code_verifier": verifier})
    if "id_token" not in t:
        raise SystemExit("bench: an OIDC code grant without an ID token")
    return t["access_token"]


def rs256_signs_per_s(b):
    """RS256 (RSA 2048) signatures a second on the server's CPU, over
    wall-clock time (see es256_signs_per_s)."""
    out = subprocess.run(["taskset", "-c", str(b.SERVER_CPU), "openssl", "speed", "-elapsed",
                          "-seconds", "3", "rsa2048"],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("rsa 2048"):
            return float(line.split()[-2])   # rsa 2048 bits sign verify sign/s verify/s
    raise RuntimeError("openssl speed rsa2048: no rsa 2048 line")


FORWARD_APP = "https://dash.bench.example/"


def forward_auth_cookie(b, st):
    """A valid app cookie of a forward-auth app (docs/forward-auth.md): the
    proxy's question, the password sign-in of the first sign-in user, and the
    callback, as a browser goes through them. Returns the Cookie header."""
    email, password = [urllib.parse.unquote(x) for x in
                       open(os.path.join(b.WORK, "signin.txt")).readline().split()]
    client_id = b.Api(st.port, st.token).call("POST", f"{st.P}/clients", {
        "name": "bench forward-auth app", "forward_auth_urls": [FORWARD_APP]})["id"]

    def get(path, headers):
        c = http.client.HTTPConnection("127.0.0.1", st.port, timeout=30)
        c.request("GET", path, headers=headers)
        r = c.getresponse()
        r.read()
        c.close()
        return r

    r = get("/api/v1/forward-auth", forward_headers())
    location = urllib.parse.urlsplit(r.getheader("Location") or "")
    q = dict(urllib.parse.parse_qsl(location.query))
    nonce = (r.getheader("Set-Cookie") or "").split(";", 1)[0]
    form = urllib.parse.urlencode({**q, "email": email, "password": password})
    c = http.client.HTTPConnection("127.0.0.1", st.port, timeout=30)
    c.request("POST", "/api/v1/authorize", form,
              {"Content-Type": "application/x-www-form-urlencoded"})
    a = c.getresponse()
    a.read()
    c.close()
    callback = urllib.parse.urlsplit(a.getheader("Location") or "")
    r = get("/api/v1/forward-auth/callback?" + callback.query, {"Cookie": nonce})
    cookie = (r.getheader("Set-Cookie") or "").split(";", 1)[0]
    if r.status != 302 or not cookie.startswith("__Host-edgeauth_app="):
        raise SystemExit(f"bench: the forward-auth sign-in failed ({r.status})")
    if get("/api/v1/forward-auth", {**forward_headers(), "Cookie": cookie}).status != 200:
        raise SystemExit("bench: the app cookie is not taken")
    return cookie


def forward_headers():
    """What Caddy or Traefik send about a page load of the app."""
    return {"X-Forwarded-Method": "GET", "X-Forwarded-Proto": "https",
            "X-Forwarded-Host": "dash.bench.example", "X-Forwarded-Uri": "/page",
            "Accept": "text/html"}


def specs(b, st):
    """The read rows' wrk runs on the running server st: {name: (script, url,
    env, headers)}; it signs in once for the session and the openid token."""
    url = f"http://127.0.0.1:{st.port}"
    client_id, secret = st.clients[0]
    _, challenge = b.pkce()
    authorize = url + "/api/v1/authorize?" + urllib.parse.urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": b.REDIRECT,
        "code_challenge": challenge, "code_challenge_method": "S256", "state": "bench",
        "scope": SCOPE})
    token = openid_token(b, st, client_id)
    user_id = b.Api(st.port, st.token).call("GET", f"{st.P}/users/external/ext-1")["id"]
    admin = [f"Authorization: Bearer {st.token}"]
    return {
        "silent_signin": ("redirect_code.lua", authorize, {},
                          [f"Cookie: {signed_in(b, st, client_id)}"]),
        "userinfo": ("get.lua", url + "/api/v1/userinfo", {}, [f"Authorization: Bearer {token}"]),
        "introspect": ("introspect.lua", url + "/api/v1/tokens/introspect",
                       {"BENCH_BASIC": b.basic(client_id, secret), "BENCH_TOKEN": token}, []),
        "get_user": ("get.lua", url + f"{st.P}/users/{user_id}", {}, admin),
        "forward_auth": ("get.lua", url + "/api/v1/forward-auth", {},
                         [f"{k}: {v}" for k, v in forward_headers().items()] +
                         [f"Cookie: {forward_auth_cookie(b, st)}"]),
    }


def measure(b, st, seconds):
    """The rows on the running server (synchronous=full); {name: result}."""
    url = f"http://127.0.0.1:{st.port}"
    client_id = st.clients[0][0]
    out = {}
    for name, (script, u, env, headers) in specs(b, st).items():
        b.wrk(script, u, 1, b.CONNS, env, headers)   # warm-up
        r = b.wrk(script, u, seconds, b.CONNS, env, headers)
        r["conns"] = b.CONNS
        out[name] = r
        b.log(f"  {name}: {r['rps']:,.0f} req/s, p99 {b.fmt_ms(r['p99_us'])} ms, "
              f"failed {r['failed']}")
    pool = os.path.join(b.WORK, "refresh-openid.txt")
    b.refresh_pool(st.port, st.P, st.token, client_id, b.CONNS * 3, pool, scope=SCOPE)
    r = b.wrk("refresh.lua", url, seconds, b.CONNS, {"BENCH_TOKENS": pool,
                                                      "BENCH_CLIENT": client_id})
    r["conns"] = b.CONNS
    out["refresh_openid"] = r
    b.log(f"  refresh, openid: {r['rps']:,.0f} req/s, failed {r['failed']}")
    return out


def lines(b, rows, base, commit_full, rs256_signs):
    """The table rows; rows holds measure()'s and the plain refresh_full."""
    s, plain, oidc = rows["silent_signin"], rows["refresh_full"], rows["refresh_openid"]
    # One RS256 signature more than the plain grant, and nothing else.
    expect = 1 / (1 / plain["rps"] + 1 / rs256_signs)
    return [
        b.row_line("silent sign-in `GET /api/v1/authorize` (session cookie), synchronous=full",
                   s, base, f"≥ 80% of {commit_full:,.0f} commits/s: {s['rps'] / commit_full:.0%}",
                   s["rps"] >= 0.8 * commit_full),
        b.row_line("`GET /api/v1/userinfo`", rows["userinfo"], base, "≥ 30% of /healthz",
                   rows["userinfo"]["rps"] >= 0.30 * base["rps"]),
        b.row_line("`POST /api/v1/tokens/introspect` (an active access token)",
                   rows["introspect"], base, "≥ 30% of /healthz",
                   rows["introspect"]["rps"] >= 0.30 * base["rps"]),
        b.row_line("`GET .../users/{id}`", rows["get_user"], base, "≥ 35% of /healthz",
                   rows["get_user"]["rps"] >= 0.35 * base["rps"]),
        b.row_line("`GET /api/v1/forward-auth` (a valid app cookie)", rows["forward_auth"], base,
                   "≥ 30% of /healthz", rows["forward_auth"]["rps"] >= 0.30 * base["rps"]),
        b.row_line("`POST /api/v1/tokens` refresh_token of an OIDC sign-in (+ ID token), "
                   "synchronous=full", oidc, base,
                   f"≥ 90% of the plain refresh with one RS256 signature more "
                   f"(1 / (1 / {plain['rps']:,.0f} + 1 / {rs256_signs:,.0f}) = {expect:,.0f}/s): "
                   f"{oidc['rps'] / expect:.0%}", oidc["rps"] >= 0.9 * expect),
    ]
