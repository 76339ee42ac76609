"""The device grant's row of make bench (issue 32): polling while pending.

A fleet of kiosks (RFC 8628 devices) whose users have not decided yet polls
the token endpoint, each every interval, and gets 400
authorization_pending: that is the load the grant puts on a box at rest.
Each poll is one conditional UPDATE of its code's row (the last poll's time,
so that a poll sooner than the interval is slow_down, docs/device.md).

The row polls a pool of pending codes of a public device_flow client in
turn (device_poll.lua); the pool holds more codes than /healthz answers in
the bench's `[device] interval_s` (1 s), and a poll is never faster than a
/healthz, so every code is polled at most once an interval: a slow_down, as
any answer but the pending 400, counts as an error of the row. The pool is
asked for over wrk first (device_codes.lua), each code one commit.

run calls measure() on a running server and line() to render the row; b is
the run module itself, as for oidc_rows.
"""
import math
import os

INTERVAL_S = 1   # the bench config's [device] interval_s


def pool(b, st, base_rps):
    """A public device_flow client and enough pending codes for a row that
    cannot poll faster than base_rps: (client_id, path of the codes)."""
    client_id = b.Api(st.port, st.token).call("POST", f"{st.P}/clients", {
        "name": "bench kiosks", "device_flow": True})["id"]
    n = math.ceil(base_rps * INTERVAL_S * 1.2)
    path = os.path.join(b.WORK, "device-codes.txt")
    done = os.path.join(b.WORK, "device-codes.done")
    r = b.wrk("device_codes.lua", f"http://127.0.0.1:{st.port}", 3600, b.CONNS, {
        "BENCH_CLIENT": client_id, "BENCH_COUNT": str(n), "BENCH_CODES": path},
        done_file=done)
    got = sum(1 for line in open(path) if line.strip())
    if r["failed"] or got != n:
        raise SystemExit(f"bench: device codes: {got} of {n}, {r['failed']} failed")
    b.log(f"  {n:,} device codes asked for at {r['rps']:,.0f}/s")
    return client_id, path


def measure(b, st, seconds, base_rps):
    """The row on the running server; its result (no warm-up: the server is
    warm from the rows before, and a warm-up would poll the codes)."""
    client_id, path = pool(b, st, base_rps)
    r = b.wrk("device_poll.lua", f"http://127.0.0.1:{st.port}", seconds, b.CONNS,
              {"BENCH_CLIENT": client_id, "BENCH_CODES": path}, status=400)
    r["conns"] = b.CONNS
    b.log(f"  device poll, pending: {r['rps']:,.0f} req/s, p99 {b.fmt_ms(r['p99_us'])} ms, "
          f"failed {r['failed']}")
    return r


def line(b, r, base):
    return b.row_line("`POST /api/v1/tokens` device_code while pending (400 "
                      "`authorization_pending`), synchronous=full", r, base,
                      "≥ 30% of /healthz", r["rps"] >= 0.30 * base["rps"])
