#!/usr/bin/env python3
"""lib.sh's keep-alive client (issue26.5): req's requests over one
connection, in one process, instead of a curl each (a curl costs 40 ms of
CPU, and far longer than the request on a busy machine).

    reqd.py   (lib.sh's keepalive_client starts it as a coprocess)

Reads a request a line, fields joined by tabs:
    METHOD URL BODY_FILE HDRS_FILE OUT_FILE [HEADER...]
(BODY_FILE "-" for no body) and writes the answer's status line and headers
to HDRS_FILE as curl -D does and its body to OUT_FILE, then answers a line:
    STATUS ERROR
ERROR is what jq -r .error prints for the body (a JSON object's error
code, "null" without one), or "?" when jq must say, so that check_err
needs no jq.

A line "JQ<tab>FILTER" asks what jq -r FILTER prints for the last answer's
body, for the filters jq_of knows (a path of names, .a.b, and .a|length):
answered "= VALUE" (one line), or "?" when jq must say (lib.sh's
check_json then runs it). STATUS is 000 when no answer came
(as curl's), "curl" when the request is one to leave to curl (a URL
http.client refuses to send). A connection the server closed while idle is opened
again, and the request sent once more only if nothing of an answer came."""
import http.client
import json
import os
import re
import ssl
import sys
import urllib.parse

UA = "curl/7.88.1"   # what the server logs; it answers every client alike
conns = {}


def connection(scheme, netloc):
    key = (scheme, netloc)
    c = conns.get(key)
    if c is None:
        if scheme == "https":
            ctx = ssl.create_default_context(cafile=os.environ.get("CURL_CA_BUNDLE") or None)
            c = http.client.HTTPSConnection(netloc, timeout=120, context=ctx)
        else:
            c = http.client.HTTPConnection(netloc, timeout=120)
        conns[key] = c
    return c


def error_of(body):
    """What jq -r .error prints for BODY, or "?" when jq is to say it."""
    try:
        j = json.loads(body)
    except ValueError:
        return "?"
    if not isinstance(j, dict):
        return "?"
    e = j.get("error")
    if e is None:
        return "null"
    return e if isinstance(e, str) and e and not any(c.isspace() for c in e) else "?"


last_body = b""
NAME = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)")


def jq_of(flt, body):
    """What jq -r FLT prints for BODY when it is one line and FLT a path of
    names (.a.b) with an optional |length; None when jq is to say."""
    flt = flt.strip()
    length = flt.endswith("|length")
    if length:
        flt = flt[:-len("|length")].rstrip()
    names = NAME.findall(flt)
    if not names or "".join("." + n for n in names) != flt:
        return None
    try:
        v = json.loads(body)
    except ValueError:
        return None
    for n in names:
        if isinstance(v, dict):
            v = v.get(n)
        elif v is not None:   # jq: cannot index a string, number, array
            return None
    if length:
        if v is None:
            v = 0
        elif isinstance(v, (str, list, dict)):
            v = len(v)
        else:
            return None
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int) and abs(v) < 2 ** 53:
        return str(v)
    if isinstance(v, str) and not any(c in v for c in "\n\r\0"):
        return v
    return None   # a float, an object, a string of lines: as jq writes them


def send(c, method, target, host, headers, body):
    c.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
    c.putheader("Host", host)
    c.putheader("User-Agent", UA)
    c.putheader("Accept", "*/*")
    for name, value in headers:
        c.putheader(name, value)
    if body is not None:
        c.putheader("Content-Length", str(len(body)))
    c.endheaders(body)
    return c.getresponse()


def one(fields):
    global last_body
    method, url, body_file, hdrs_file, out_file = fields[:5]
    headers = [h.split(":", 1) for h in fields[5:] if ":" in h]
    headers = [(n.strip(), v.strip()) for n, v in headers]
    for name in (hdrs_file, out_file):   # as curl leaves them when no answer came
        open(name, "wb").close()
    last_body = b""
    body = None
    if body_file != "-":
        with open(body_file, "rb") as f:
            body = f.read()
    u = urllib.parse.urlsplit(url)
    target = (u.path or "/") + ("?" + u.query if u.query else "")
    c = connection(u.scheme, u.netloc)
    resp = None
    for attempt in (1, 2):
        try:
            resp = send(c, method, target, u.netloc, headers, body)
            data = resp.read()   # empty for HEAD: http.client knows
            break
        except http.client.InvalidURL:   # nothing sent: curl sends it, or refuses it
            c.close()
            return "curl ?"
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as e:
            # a kept connection the server had closed: once more on a new one
            c.close()
            if attempt == 2 or (resp is not None and not isinstance(e, http.client.RemoteDisconnected)):
                return "000 ?"
            resp = None
        except (OSError, http.client.HTTPException):
            c.close()
            return "000 ?"
    head = "HTTP/1.1 %d %s\r\n" % (resp.status, resp.reason)
    head += "".join("%s: %s\r\n" % (n, v) for n, v in resp.getheaders()) + "\r\n"
    with open(hdrs_file, "wb") as f:
        f.write(head.encode("latin-1", "replace"))
    with open(out_file, "wb") as f:
        f.write(data)
    last_body = data
    if resp.will_close:
        c.close()
    return "%03d %s" % (resp.status, error_of(data.decode("utf-8", "replace")))


def main():
    sys.stdout.reconfigure(encoding="utf-8")   # as jq writes strings
    for line in sys.stdin:
        fields = line.rstrip("\n").split("\t")
        try:
            if fields[0] == "JQ" and len(fields) == 2:
                v = jq_of(fields[1], last_body.decode("utf-8", "replace"))
                answer = "?" if v is None else "= " + v
            else:
                answer = one(fields) if len(fields) >= 5 else "curl ?"
        except Exception as e:   # never leave req waiting (nor send it twice)
            print("reqd.py: %s: %r" % (" ".join(fields[:2]), e), file=sys.stderr)
            answer = "000 ?"
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
