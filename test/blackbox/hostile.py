#!/usr/bin/env python3
"""Runs t_hostile.sh's table (hostile_cases.txt, whose header says the
format) in one process (issue26.5): a request a case, each on a connection
of its own as curl opened them, without the dozen processes a case cost
in shell (curl, jq, the substitutions' subshells): 0.5 s a case on a
busy machine, over 400 cases.

    hostile.py CASES PORT SERVER_PID [CURL_DIR]

The placeholders' values come from the environment (H_P, H_PID, H_TOKEN,
H_ROLE, H_APP, H_BASIC, H_NONE_JWT, H_HS_JWT, H_EXP_JWT). A request is
built here as curl builds it (request line with the path as is, Host,
User-Agent, Accept, the case's headers, Content-Length and curl's default
Content-Type for a body); the cases whose sending curl shapes itself (a
body over 1 KiB, HEAD, Transfer-Encoding, Expect, a header curl drops or
empties) still go through curl, with t_hostile.sh's arguments, in
CURL_DIR. RAW cases send their body's bytes as they are (rawhttp.py).

Prints "pass", "fail MESSAGE" a check, and at the end "cases N". Stops
after a case that the server did not outlive."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rawhttp  # noqa: E402

CURL_UA = "curl/" + subprocess.run(["curl", "--version"], capture_output=True,
                                   text=True).stdout.split()[1]
SIMPLE_CTYPES = {"JSON": "application/json", "FORM": "application/x-www-form-urlencoded"}
# headers curl sets or shapes itself: a case naming one goes through curl
CURL_OWNED = {"host", "user-agent", "accept", "content-length", "transfer-encoding",
              "expect", "connection"}


def placeholders():
    v = {k: os.environ.get("H_" + k, "") for k in
         ("P", "PID", "TOKEN", "ROLE", "APP", "BASIC", "NONE_JWT", "HS_JWT", "EXP_JWT")}
    v["PORT"] = sys.argv[2]
    for name, n in (("A1K", 1024), ("LONG8K", 8192), ("LONG10K", 10240), ("LONG16K", 16500),
                    ("LONG20K", 20480), ("LONG100K", 102400)):
        v[name] = "a" * n
    v["Q1500"] = "&".join("x%d=1" % i for i in range(1500))
    return v


VALUES = placeholders()


def subst(s):
    for k in ("P", "PID", "TOKEN", "ROLE", "APP", "BASIC", "NONE_JWT", "HS_JWT", "EXP_JWT",
              "PORT", "A1K", "LONG8K", "LONG10K", "LONG16K", "LONG20K", "LONG100K", "Q1500"):
        s = s.replace("{%s}" % k, VALUES[k])
    return s


def enc(s):
    return s.encode("utf-8", "surrogateescape")


ESCAPES = {"\\": b"\\", "a": b"\a", "b": b"\b", "e": b"\x1b", "E": b"\x1b", "f": b"\f",
           "n": b"\n", "r": b"\r", "t": b"\t", "v": b"\v"}


def printf_b(s):
    """The bytes printf '%b' writes for S."""
    out, i = b"", 0
    while i < len(s):
        c = s[i]
        if c != "\\" or i + 1 == len(s):
            out += enc(c)
            i += 1
            continue
        n = s[i + 1]
        if n in ESCAPES:
            out += ESCAPES[n]
            i += 2
        elif n == "x" and re.match(r"[0-9A-Fa-f]", s[i + 2:i + 3]):
            m = re.match(r"[0-9A-Fa-f]{1,2}", s[i + 2:])
            out += bytes([int(m.group(0), 16)])
            i += 2 + len(m.group(0))
        elif n == "0":
            m = re.match(r"[0-7]{0,3}", s[i + 2:])
            out += bytes([int(m.group(0) or "0", 8) & 0xff])
            i += 2 + len(m.group(0))
        else:
            out += enc(c + n)
            i += 2
    return out


def build_body(spec):
    """t_hostile.sh's body field: its parts, joined."""
    if spec == "-":
        return b""
    out = b""
    for part in spec.split(" ++ "):
        part = subst(part)
        if part == "-":
            continue
        if part.startswith("esc:"):
            out += printf_b(part[4:])
        elif part.startswith("gen:keys:"):
            n, code = part[9:].split(":", 1)
            d = {"code": code, "name": "n"}
            d.update(("k%d" % i, i) for i in range(int(n)))
            out += json.dumps(d).encode()
        elif part.startswith("rep:"):
            n, text = part[4:].split(":", 1)
            out += enc(text).decode("latin-1").encode("latin-1").decode(
                "unicode_escape").encode("latin-1") * int(n)
        else:
            out += enc(part)
    return out


def header_lines(spec):
    """The case's headers as curl -H arguments."""
    if spec == "-":
        return []
    hs = []
    for h in spec.split(" ;; "):
        if h == "AUTH":
            hs.append("Authorization: Bearer " + VALUES["TOKEN"])
        elif h in SIMPLE_CTYPES:
            hs.append("Content-Type: " + SIMPLE_CTYPES[h])
        else:
            hs.append(subst(h))
    return hs


def needs_curl(method, hs, body):
    if method == "HEAD" or len(body) > 1024:
        return True
    for h in hs:
        name, colon, value = h.partition(":")
        if not colon or not value.strip() or name.strip().lower() in CURL_OWNED:
            return True
    return False


def by_curl(method, path, hs, body, body_given):
    d = sys.argv[4] if len(sys.argv) > 4 else "."
    hdrs, bodyf, reqf = (os.path.join(d, n) for n in ("hdrs", "body", "reqbody"))
    for f in (hdrs, bodyf):
        open(f, "wb").close()
    args = ["curl", "-s", "--path-as-is", "--max-time", "20", "-D", hdrs, "-o", bodyf,
            "-w", "%{http_code}"]
    for h in hs:
        args += ["-H", h]
    args += ["-I"] if method == "HEAD" else ["-X", method]
    if body_given:
        with open(reqf, "wb") as f:
            f.write(body)
        args += ["--data-binary", "@" + reqf]
    args.append("http://127.0.0.1:%s%s" % (sys.argv[2], path))
    status = subprocess.run(args, capture_output=True).stdout.decode() or "000"
    head = open(hdrs, "rb").read()
    got = b"" if method == "HEAD" else open(bodyf, "rb").read()
    return status, head, got


def by_socket(method, path, hs, body, body_given):
    lines = ["%s %s HTTP/1.1" % (method, path), "Host: 127.0.0.1:" + sys.argv[2],
             "User-Agent: " + CURL_UA, "Accept: */*"] + hs
    if body_given:
        lines.append("Content-Length: %d" % len(body))
        if not any(h.lower().startswith("content-type:") for h in hs):
            lines.append("Content-Type: application/x-www-form-urlencoded")
    req = b"\r\n".join(enc(x) for x in lines) + b"\r\n\r\n" + body
    status, head, got = rawhttp.exchange(int(sys.argv[2]), req, 20)
    return status.rstrip("!"), head + b"\r\n", got


def error_of(body):
    if not body:
        return "-"
    try:
        j = json.loads(body.decode("utf-8", "replace"))
    except ValueError:
        return "(not JSON)"
    return j["error"] if isinstance(j, dict) and isinstance(j.get("error"), str) else "-"


def check_hdr(name, hcheck, head, body):
    text = head.decode("latin-1").replace("\r", "")
    if hcheck.startswith("allow:"):
        got = []
        for line in text.split("\n"):
            if line[:6] in ("Allow:", "allow:"):
                got += [m.strip() for m in line[6:].split(",")]
        got = ",".join(sorted(m for m in got if m not in ("HEAD", "OPTIONS", "")))
        want = ",".join(sorted(hcheck[6:].split(",")))
        return None if got == want else "%s: Allow header: got '%s', want '%s'" % (name, got, want)
    if hcheck.startswith("desc:"):
        try:
            d = json.loads(body.decode("utf-8", "replace")).get("error_description") or ""
        except (ValueError, AttributeError):
            d = ""
        if re.search(hcheck[5:], d):
            return None
        return "%s: error_description '%s' does not match '%s'" % (name, d, hcheck[5:])
    if re.search(hcheck, text, re.I | re.M):
        return None
    return "%s: header: no header matching '%s'" % (name, hcheck)


def run_case(fields):
    name, method, path, headers, body_spec, want_status, want_err = fields[:7]
    hcheck = fields[7] if len(fields) > 7 else ""
    body = build_body(body_spec)
    if method == "RAW":
        status, head, got = rawhttp.exchange(int(sys.argv[2]), body, 5)
        head += b"\r\n"
    else:
        hs = header_lines(headers)
        send = by_curl if needs_curl(method, hs, body) else by_socket
        status, head, got = send(method, subst(path), hs, body, body_spec != "-")
    err = error_of(got)
    ok = status in want_status.split(",")
    if ok and want_err == "*":
        ok = err not in ("-", "(not JSON)")
    elif ok and want_err != "any":
        ok = err == want_err
    if ok:
        print("pass")
    else:
        shown = got[:4096].replace(b"\0", b"")[:160].decode("utf-8", "replace").replace("\n", " ")
        print("fail %s: got %s %s, want %s %s; body: %s" % (name, status, err, want_status,
                                                          want_err, shown))
    if hcheck:
        why = check_hdr(name, hcheck, head, got)
        print("pass" if why is None else "fail " + why)


def main():
    pid, n = int(sys.argv[3]), 0
    with open(sys.argv[1], encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            n += 1
            fields = line.split(" | ")
            fields += [""] * (7 - len(fields))
            run_case(fields)
            sys.stdout.flush()
            try:
                os.kill(pid, 0)
            except OSError:
                print("fail server died after case '%s'" % fields[0])
                break
    print("cases %d" % n)


if __name__ == "__main__":
    main()
