"""A web app that signs its users in with edgeauth through Authlib (Debian:
python3-authlib python3-requests). Register the app as a client with the
redirect URI ${APP_URL}/callback, then run
  ISSUER=http://127.0.0.1:8080 CLIENT_ID=... CLIENT_SECRET=... \\
    APP_URL=http://127.0.0.1:3000 python3 authlib_app.py
and open ${APP_URL}/login.
"""
import json
import os
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlsplit

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, JsonWebToken
from authlib.oidc.core import CodeIDToken

ISSUER = os.environ["ISSUER"]
CLIENT_ID = os.environ["CLIENT_ID"]
CLIENT_SECRET = os.environ["CLIENT_SECRET"]
APP_URL = os.environ.get("APP_URL", "http://127.0.0.1:3000")

meta = requests.get(ISSUER + "/.well-known/openid-configuration", timeout=10).json()
keys = JsonWebKey.import_key_set(requests.get(meta["jwks_uri"], timeout=10).json())
id_tokens = JsonWebToken(meta["id_token_signing_alg_values_supported"])

# What a sign-in in progress must remember, by its state. A real app keeps
# it in the user's session (a cookie) instead.
pending = {}


def session(**kwargs):
    # The one setting: edgeauth requires PKCE (S256), which Authlib sends
    # only when asked. Authlib's requests client takes an http issuer as it is.
    return OAuth2Session(CLIENT_ID, CLIENT_SECRET, scope="openid profile email",
                         redirect_uri=APP_URL + "/callback",
                         code_challenge_method="S256", **kwargs)


def login():
    verifier, nonce = generate_token(48), generate_token(20)
    url, state = session().create_authorization_url(
        meta["authorization_endpoint"], code_verifier=verifier, nonce=nonce)
    pending[state] = (verifier, nonce)
    return 302, {"Location": url}, b""


def callback(path):
    query = parse_qs(urlsplit(path).query)
    state = query.get("state", [""])[0]
    if "error" in query:  # edgeauth refused the request: say why
        pending.pop(state, None)
        why = query.get("error_description", query["error"])[0]
        return 400, {}, f"sign-in refused: {why}\n".encode()
    if state not in pending:
        return 400, {}, b"unknown state\n"
    verifier, nonce = pending.pop(state)
    oauth = session(state=state)
    token = oauth.fetch_token(meta["token_endpoint"], authorization_response=APP_URL + path,
                              state=state, code_verifier=verifier)
    claims = id_tokens.decode(
        token["id_token"], keys, claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "value": meta["issuer"]}},
        claims_params={"nonce": nonce, "client_id": CLIENT_ID,
                       "access_token": token["access_token"]})
    claims.validate()
    userinfo = oauth.get(meta["userinfo_endpoint"], timeout=10).json()
    if userinfo.get("sub") != claims["sub"]:
        return 502, {}, b"UserInfo is about another user\n"
    body = {"sub": claims["sub"], "userinfo": userinfo, "expires_in": token["expires_in"]}
    return 200, {"Content-Type": "application/json"}, (json.dumps(body) + "\n").encode()


class App(BaseHTTPRequestHandler):
    def do_GET(self):
        route = urlsplit(self.path).path
        try:
            if route == "/login":
                status, headers, body = login()
            elif route == "/callback":
                status, headers, body = callback(self.path)
            else:
                status, headers, body = 404, {}, b""
        except Exception as err:  # the user sees why the sign-in failed
            status, headers, body = 500, {}, f"sign-in failed: {err}\n".encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


app = urlsplit(APP_URL)
HTTPServer((app.hostname, app.port), App).serve_forever()
