"""make bench BENCH_BASE=...: the rows of two builds measured in turn, in one run.

Back-to-back runs of make bench on a shared machine read up to 40% apart, so
a row of one run against the same row of another shows nothing. Here both
builds run at once, each on its own store seeded alike, and each row is
measured in rounds: in every round the base and the new build get the same
wrk run one after the other, the order alternating from round to round. A
round gives the ratio new / base of its two runs; the row's figure is the
median of those ratios, with their lowest and highest. Each round also gives
the ratio of requests per second of the server's CPU time, which moves less
with what else the machine runs.

run() is called by run (the script) with the run module itself as b (its wrk,
Server, seeding ...); the pure parts (without_keys, summarize, table) are
tested by test/bench/test_compare.py.
"""
import contextlib
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import time
import urllib.parse

import oidc_rows

# (name, phase, label): the main table's rows a comparison measures, in its
# order. A phase is one start of both servers with the config it names.
ROWS = (
    ("healthz", "full", "`GET /healthz`"),
    ("client_credentials", "full", "`POST /api/v1/tokens` client_credentials"),
    ("list", "full", "`GET .../users?page_size=10&sort_by=display_name&sort_dir=asc`"),
    ("search", "full", "`GET .../users?search=<term>`"),
    ("search_1", "full", "… the same, 1 connection"),
    ("external", "full", "`GET .../users/external/{id}?include_permissions=true`"),
    ("get_user", "full", "`GET .../users/{id}`"),
    ("userinfo", "full", "`GET /api/v1/userinfo`"),
    ("introspect", "full", "`POST /api/v1/tokens/introspect`"),
    ("silent_signin", "full", "silent sign-in `GET /api/v1/authorize`, synchronous=full"),
    ("post_users", "full", "`POST .../users` (BYOU), synchronous=full"),
    ("refresh", "full", "`POST /api/v1/tokens` refresh_token, synchronous=full"),
    ("refresh_openid", "full", "… refresh_token of an OIDC sign-in (+ ID token)"),
    ("signin", "full", "sign-in `POST /api/v1/authorize` (argon2id), 64 connections"),
    ("tls_client_credentials", "tls", "client_credentials over TLS (keep-alive)"),
    ("post_users_audit", "audit", "`POST .../users` with the `[audit] file` on"),
    ("post_users_normal", "normal", "`POST .../users` (BYOU), synchronous=normal"),
    ("refresh_normal", "normal", "`POST /api/v1/tokens` refresh_token, synchronous=normal"),
)
# The rows of make bench a comparison leaves out, and why.
LEFT_OUT = ("the sign-in storm with edgeauth on both CPUs and the TLS handshakes (a "
            "comparison runs both servers on CPU 0 and wrk on CPU 1), the metrics rows (already "
            "two servers side by side), start-up time and peak RSS (one figure a run)")

UNKNOWN_KEY = re.compile(r"unknown key '([A-Za-z0-9_]+)' in \[")


class Side:
    """One build: its binary, its work directory and what runs there."""

    def __init__(self, key, binary, work):
        self.key, self.bin, self.dir = key, binary, work
        self.dropped = []   # config keys this binary does not know
        self.srv = self.st = None
        self.specs = {}


@contextlib.contextmanager
def on(b, side):
    """Points the run module's WORK and BIN at side's for what runs inside:
    its store, config, logs, seeding files and binary."""
    saved = b.WORK, b.BIN
    b.WORK, b.BIN = side.dir, side.bin
    try:
        yield
    finally:
        b.WORK, b.BIN = saved


# --------------------------------------------------------------- pure parts

def without_keys(text, keys):
    """The config text without the lines that set one of keys."""
    out = []
    for line in text.splitlines(keepends=True):
        name = line.split("=", 1)[0].strip()
        if "=" in line and name in keys:
            continue
        out.append(line)
    return "".join(out)


def summarize(pairs):
    """pairs: one (base, new) pair of wrk results a round, each with requests,
    rps, failed and cpu_s (the server's CPU seconds in the run). Returns the
    row's figures: median base and new req/s, the median, lowest and highest
    of the rounds' new / base ratios, the same per CPU-second, and failures.
    A round in which a build answered nothing has no ratio; it counts as a
    failure of that build."""
    done = [(a, n) for a, n in pairs if a["requests"] > 0 and n["requests"] > 0]
    if not done:
        raise ValueError("no round with answers from both builds")
    ratio = [n["rps"] / a["rps"] for a, n in done]
    per_cpu = [(n["requests"] / n["cpu_s"]) / (a["requests"] / a["cpu_s"])
               for a, n in done if a["cpu_s"] > 0 and n["cpu_s"] > 0]
    failed = (sum(a["failed"] + (a["requests"] == 0) for a, _ in pairs),
              sum(n["failed"] + (n["requests"] == 0) for _, n in pairs))
    return {
        "rounds": len(done),
        "base_rps": statistics.median(a["rps"] for a, _ in pairs),
        "new_rps": statistics.median(n["rps"] for _, n in pairs),
        "median": statistics.median(ratio), "min": min(ratio), "max": max(ratio),
        "cpu_median": statistics.median(per_cpu) if per_cpu else None,
        "failed": failed,
    }


def verdict(s, bound):
    """'met' when the median ratio is at least bound and no answer failed."""
    if s["failed"] != (0, 0):
        return f"**errors** (base {s['failed'][0]}, new {s['failed'][1]})"
    return "**met**" if s["median"] >= bound else "**below**"


def table(results, labels, bound):
    """The Markdown table of a comparison. results: {row: summarize() or a
    string (why the row was skipped)}, in the rows' order."""
    lines = [
        "| row | base req/s | new req/s | new / base, median | lowest – highest | "
        f"per CPU-second, median | ≥ {bound:.0%} |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, s in results.items():
        if isinstance(s, str):
            lines.append(f"| {labels[name]} | | | skipped: {s} | | | |")
            continue
        cpu = f"{s['cpu_median']:.3f}" if s["cpu_median"] is not None else "—"
        lines.append(f"| {labels[name]} | {s['base_rps']:,.0f} | {s['new_rps']:,.0f} | "
                     f"{s['median']:.3f} | {s['min']:.3f} – {s['max']:.3f} | {cpu} | "
                     f"{verdict(s, bound)} |")
    return lines


# ------------------------------------------------------------------ servers

def describe(binary):
    """The commit of the tree binary was built in (short hash, '+ changes' if
    its code differs from the commit), or 'unknown'."""
    top = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(binary)), "rev-parse",
                          "--show-toplevel"], capture_output=True, text=True).stdout.strip()
    if not top:
        return "unknown"
    head = subprocess.run(["git", "-C", top, "log", "-1", "--format=%h"], capture_output=True,
                          text=True).stdout.strip()
    changed = subprocess.run(["git", "-C", top, "status", "--porcelain", "--", "src", "include",
                              "schema", "Makefile"], capture_output=True, text=True).stdout
    return head + (" + changes" if changed.strip() else "")


def base_binary(b, path):
    """The base's binary: path itself, or for a source tree its bench build
    (the same flags as this tree's, made there when out of date)."""
    if not os.path.isdir(path):
        if not os.access(path, os.X_OK):
            raise SystemExit(f"bench: {path} is not an executable nor a source tree")
        return os.path.abspath(path)
    build = os.path.join(os.path.abspath(path), "build", "bench")
    binary = os.path.join(build, "edgeauth")
    b.log(f"building the base in {path} (-O2) ...")
    b.sh(["make", "-s", f"BUILD={build}", f"BIN={binary}", "OPT=-O2", binary], cwd=path)
    return binary


def start(b, side, srv):
    """Starts srv (made inside on(b, side)) without the config keys side's
    binary does not know: an older build refuses a key it never had
    ('unknown key'), and the key is then left out of its config."""
    while True:
        with open(srv.conf) as f:
            text = f.read()
        with open(srv.conf, "w") as f:
            f.write(without_keys(text, side.dropped))
        mark = os.path.getsize(srv.log) if os.path.exists(srv.log) else 0
        try:
            srv.start()
            side.srv = srv
            return
        except SystemExit:
            with open(srv.log) as f:
                f.seek(mark)
                m = UNKNOWN_KEY.search(f.read())
            if not m or m.group(1) in side.dropped:
                raise
            side.dropped.append(m.group(1))
            b.log(f"  {side.key}: the binary does not know '{m.group(1)}': left out")


def seed(b, side, users, names, terms, lasts):
    """A fresh store for side, seeded as the main table's (make bench)."""
    with on(b, side):
        shutil.rmtree(side.dir, ignore_errors=True)
        os.makedirs(os.path.join(side.dir, "store"))
        shutil.copy(names, os.path.join(side.dir, "names.txt"))
        srv = b.Server(b.free_port(), "normal", "seed")
        start(b, side, srv)
        with open(srv.stdout) as f:
            creds = json.load(f)
        st = b.Store()
        st.port, st.project = srv.port, creds["project_id"]
        st.P = f"/api/v1/projects/{st.project}"
        st.admin = (creds["client_id"], creds["client_secret"])
        st.token = b.admin_token(st.port, st.admin)
        api = b.Api(st.port, st.token)
        b.seed_model(api, st.P, st)
        b.seed_users(st.port, st.P, st.token, 0, users)
        b.check_search(api, st.P, lasts, terms, users)
        b.seed_signin_users(api, st.P)
        b.settle()
        srv.stop()
        side.st = st


def start_phase(b, side, phase, users, terms, tls):
    """Starts side's server with phase's config and makes its fixed row specs;
    returns {row: why} for the rows that could not be set up."""
    with on(b, side):
        st = side.st
        kw = {"tls": tls} if phase == "tls" else \
            {"audit_file": os.path.join(side.dir, "audit.jsonl")} if phase == "audit" else {}
        srv = b.Server(st.port, "normal" if phase == "normal" else "full", f"cmp-{phase}", **kw)
        start(b, side, srv)
        side.specs, skipped = {}, {}
        if phase == "tls":
            side.specs["tls_client_credentials"] = (
                "client_credentials.lua", f"https://127.0.0.1:{st.port}/api/v1/tokens",
                {"BENCH_BASIC": b.basic(*st.clients[0])}, [], b.CONNS)
            return skipped
        st.token = b.admin_token(st.port, st.admin)
        if phase == "full":
            side.specs.update(b.read_row_specs(st, users, terms))
            try:
                side.specs.update({n: v + (b.CONNS,) for n, v in oidc_rows.specs(b, st).items()})
            except SystemExit as e:
                skipped.update({n: str(e) for n in ("get_user", "userinfo", "introspect",
                                                    "silent_signin")})
        return skipped


def round_spec(b, side, name, tag):
    """The wrk run of row name for one round on side (inside on(b, side)):
    a fixed spec, or the round's own (a fresh pool of refresh tokens, new
    external IDs). Returns (script, url, env, headers, conns)."""
    if name in side.specs:
        return side.specs[name]
    st = side.st
    url = f"http://127.0.0.1:{st.port}"
    if name.startswith("post_users"):
        return ("post_users.lua", url, {
            "BENCH_PATH": f"{st.P}/users", "BENCH_RUN": f"{side.key}{tag}{int(time.time())}",
            "BENCH_NAMES": os.path.join(side.dir, "names.txt"),
            "BENCH_ROLES": os.path.join(side.dir, "roles.txt")},
            [f"Authorization: Bearer {st.token}"], b.CONNS)
    if name.startswith("refresh"):
        pool = os.path.join(side.dir, f"{name}.txt")
        b.refresh_pool(st.port, st.P, st.token, st.clients[0][0], b.CONNS * 3, pool,
                       scope=oidc_rows.SCOPE if name == "refresh_openid" else None)
        return ("refresh.lua", url, {"BENCH_TOKENS": pool, "BENCH_CLIENT": st.clients[0][0]},
                [], b.CONNS)
    if name == "signin":
        _, challenge = b.pkce()
        form = urllib.parse.urlencode({
            "response_type": "code", "client_id": st.clients[0][0], "redirect_uri": b.REDIRECT,
            "code_challenge": challenge, "code_challenge_method": "S256", "state": "bench"})
        return ("signin.lua", url, {"BENCH_FORM": form,
                                    "BENCH_SIGNIN": os.path.join(side.dir, "signin.txt")},
                [], b.STORM_CONNS)
    raise KeyError(name)


def one_run(b, side, name, seconds, tag):
    """One wrk run of row name on side, with the server's CPU seconds in it."""
    with on(b, side):
        script, url, env, headers, conns = round_spec(b, side, name, tag)
        pid = side.srv.proc.pid
        cpu0 = b.cpu_ns(pid)
        r = b.wrk(script, url, seconds, conns, env, headers)
        r["cpu_s"] = (b.cpu_ns(pid) - cpu0) / 1e9
        if name.startswith("post_users"):
            # The creates' search keys are merged while the server is idle:
            # the next run, on either side, is not measured beside that.
            b.settle()
        wait_idle(b, pid)
    return r


def wait_idle(b, pid, timeout=30):
    """Waits until server pid has used under 5% of a CPU for 200 ms: what a
    run left queued (the sign-in row's hashes: up to 64 of them when wrk
    stops) is not measured in the other build's next run."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        cpu0 = b.cpu_ns(pid)
        time.sleep(0.2)
        if b.cpu_ns(pid) - cpu0 < 0.05 * 0.2e9:
            return


def measure_row(b, sides, name, rounds, seconds, loads):
    """rounds pairs of runs of row name, the order alternating; a 1 s
    warm-up of each side first. Appends the load average of each round.
    The sign-in row's answers take seconds each (64 hashes queued on one
    core), so its runs are four times as long."""
    if name == "signin":
        seconds *= 4
    for side in sides:
        one_run(b, side, name, 1, "w")
    pairs = []
    for i in range(rounds):
        got = {}
        for side in (sides if i % 2 == 0 else sides[::-1]):
            got[side.key] = one_run(b, side, name, seconds, str(i))
        loads.append(load_average())
        a, n = got["base"], got["new"]
        pairs.append((a, n))
        b.log(f"    round {i + 1}: base {a['rps']:,.0f}/s ({a['cpu_s']:.2f} s CPU), "
              f"new {n['rps']:,.0f}/s ({n['cpu_s']:.2f} s CPU), load {loads[-1]:.1f}")
    return pairs


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


# --------------------------------------------------------------------- run

def run(b, args, lasts, terms):
    t_start = time.time()
    m = b.machine()
    names = [n for n, _, _ in ROWS]
    wanted = args.rows.split(",") if args.rows else names
    unknown = [n for n in wanted if n not in names]
    if unknown:
        raise SystemExit(f"bench: unknown rows {', '.join(unknown)}; the rows: {', '.join(names)}")
    base = Side("base", base_binary(b, args.compare), os.path.join(b.WORK, "compare-base"))
    new = Side("new", os.path.abspath(args.new or b.BIN), os.path.join(b.WORK, "compare-new"))
    sides = (base, new)
    commits = {s.key: describe(s.bin) for s in sides}
    loads = [load_average()]
    b.log(f"comparing {new.bin} ({commits['new']}) with {base.bin} ({commits['base']}), "
          f"load {loads[0]:.1f}")
    for side in sides:
        b.log(f"seeding the {side.key} store: {args.users:,} users, {b.ROLES} roles, "
              f"{b.RESOURCES} resources, {b.CLIENTS} clients ...")
        seed(b, side, args.users, os.path.join(b.WORK, "names.txt"), terms, lasts)
    tls = b.tls_pair()   # made by this tree's binary, for both
    results = {}
    for phase in dict.fromkeys(p for n, p, _ in ROWS if n in wanted):
        b.log(f"phase {phase} ...")
        skipped = {}
        for side in sides:
            why = start_phase(b, side, phase, args.users, terms, tls)
            skipped.update({n: f"the {side.key} build: {w}" for n, w in why.items()})
        for name in (n for n, p, _ in ROWS if p == phase and n in wanted):
            b.log(f"  {name}")
            if name in skipped:
                results[name] = skipped[name]
                continue
            try:
                results[name] = summarize(measure_row(b, sides, name, args.rounds,
                                                      args.duration, loads))
            except (SystemExit, ValueError) as e:   # a wrk run failed outright
                results[name] = str(e).replace("\n", " ")[:200]
            with open(os.path.join(b.WORK, "compare-results.json"), "w") as f:
                json.dump(results, f, indent=1)   # so far, should a later row stop the run
        for side in sides:
            side.srv.stop()
    loads.append(load_average())
    report(b, args, m, commits, sides, results, loads, time.time() - t_start)


def report(b, args, m, commits, sides, results, loads, elapsed):
    base, new = sides
    labels = {n: label for n, _, label in ROWS}
    dropped = ", ".join(f"`{k}`" for k in base.dropped)
    lines = [
        f"### {commits['new']} against {commits['base']}",
        "",
        f"Run {datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')} on "
        f"{m['cpu']} ({m['cpus']} CPUs), Linux {m['kernel']}, SQLite {m['sqlite']}; took "
        f"{elapsed:.0f} s. Load average (1 min) {loads[0]:.1f} at the start, "
        f"{loads[-1]:.1f} at the end, {min(loads):.1f}–{max(loads):.1f} over the rounds.",
        "",
        f"Command: `{args.command}`. Base: `{base.bin}` ({commits['base']}); new: `{new.bin}` "
        f"({commits['new']}). {args.rounds} rounds a row of {args.duration} s a build, the "
        f"order alternating; each build on its own store of {args.users:,} users "
        f"({b.ROLES:,} roles, {b.RESOURCES} resources, {b.CLIENTS:,} clients); "
        f"{b.CONNS} connections a row unless the row says."
        + (f" Config keys the base build does not know, left out of its config: {dropped}."
           if dropped else ""),
        "",
        *table(results, labels, args.bound),
        "",
        f"Left out: {LEFT_OUT}.",
    ]
    text = "\n".join(lines)
    print("\n" + text + "\n")
    key = commits["base"].split()[0] + ("-rows" if args.rows else "")
    b.replace_section(f"compare-{key}", text)
    b.log(f"written to {os.path.relpath(b.DOC, b.ROOT)}")
