#!/usr/bin/env python3
"""Connection abuse for t_connections.sh. Every mode is bounded in time and
prints one JSON object.

  idle PORT N SECONDS [PID]      open N connections, send nothing, hold them
                                 SECONDS; report how many the server closed
                                 and when (seconds after each was opened);
                                 with PID, also the most fds PID had open
  slow PORT N SECONDS INTERVAL   slowloris: N connections send a request line
                                 at once, then one header byte every INTERVAL
                                 seconds for SECONDS; report as idle
  pipeline PORT FILE             send FILE's bytes in one write, read until
                                 the server closes (60 s at most); report the
                                 answers (status, body) in order, and when
                                 the server closed (null: it did not)
  flood PORT MIB SECONDS PID [chunksize]
                                 pipeline MIB MiB of GET /healthz on one
                                 connection and never read an answer (or
                                 send a chunked POST whose chunk-size line
                                 never ends), until the server ends it,
                                 SECONDS at most; meanwhile sample PID's
                                 VmRSS and ask /healthz on other
                                 connections; report the MiB sent, the RSS
                                 before and at most, the probes, and when
                                 the server ended the connection
  peraddr PORT N                 hold N idle connections from 127.0.0.1 and
                                 report how many the server kept (once it
                                 kept N at most, 30 s at most); then ask
                                 /healthz on one more from 127.0.0.1 and on
                                 one from 127.0.0.2, and, once the N are
                                 closed, again from 127.0.0.1
  half PORT                      half a request, then shutdown(SHUT_WR)
  midbody PORT                   a POST announcing 1000 bytes, 100 sent,
                                 then close
  rst PORT                       a whole request, then close with RST
                                 before reading the answer

With CONNABUSE_CA set to a CA file, every connection speaks TLS (trusting
that CA), its handshake done before the mode's first byte. CONNABUSE_PATH
(default /healthz) is the path every mode asks for (/metrics on the metrics
listener).
"""
import fcntl
import json
import os
import select
import socket
import ssl
import struct
import sys
import termios
import time

CA = os.environ.get("CONNABUSE_CA")
PATH = os.environ.get("CONNABUSE_PATH", "/healthz").encode()
# Nothing to read yet: on a TLS socket also when only handshake records
# (a TLS 1.3 session ticket) arrived.
WOULD_BLOCK = (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError)


def tls(s):
    """s itself, or s over TLS (handshake done) when CONNABUSE_CA is set."""
    if not CA:
        return s
    return ssl.create_default_context(cafile=CA).wrap_socket(s, server_hostname="127.0.0.1")


def open_conn(port, timeout=5):
    return tls(socket.create_connection(("127.0.0.1", port), timeout=timeout))


def connect(port):
    s = open_conn(port)
    s.setblocking(False)
    return s


def fd_count(pid):
    try:
        return len(os.listdir("/proc/%s/fd" % pid))
    except OSError:
        return -1


def hold(port, n, seconds, interval=None, pid=None):
    socks, opened, closed, answered = [], {}, {}, 0
    failed_connects = 0
    for _ in range(n):
        try:
            s = connect(port)
        except OSError:
            failed_connects += 1
            continue
        opened[s] = time.monotonic()
        socks.append(s)
        if interval is not None:
            try:
                s.send(b"GET " + PATH + b" HTTP/1.1\r\nHost: x\r\n")
            except OSError:
                pass
    max_fds = fd_count(pid) if pid else -1
    start = time.monotonic()
    next_byte = start + (interval or 0)
    while time.monotonic() - start < seconds:
        live = [s for s in socks if s not in closed]
        if not live:
            break
        timeout = 0.05
        readable, _, _ = select.select(live, [], [], timeout)
        now = time.monotonic()
        for s in readable:
            try:
                data = s.recv(65536)
            except WOULD_BLOCK:
                continue
            except OSError:
                data = b""
            if data:
                answered += 1          # an answer (408, 400...) before closing
                continue
            closed[s] = now - opened[s]
        if interval is not None and now >= next_byte:
            next_byte = now + interval
            for s in live:
                if s in closed:
                    continue
                try:
                    s.send(b"a")       # one more byte of the header name
                except OSError:
                    closed[s] = now - opened[s]
        if pid:
            max_fds = max(max_fds, fd_count(pid))
    for s in socks:
        s.close()
    times = sorted(closed.values())
    return {
        "opened": len(socks),
        "failed_connects": failed_connects,
        "closed": len(closed),
        "answers": answered,
        "first_close_s": round(times[0], 2) if times else None,
        "last_close_s": round(times[-1], 2) if times else None,
        "max_fds": max_fds,
    }


def parse_answers(data):
    answers = []
    while data.startswith(b"HTTP/"):
        end = data.find(b"\r\n\r\n")
        if end < 0:
            break
        head = data[:end].decode("latin-1")
        length = 0
        for line in head.split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        body = data[end + 4:end + 4 + length]
        answers.append({"status": int(head[9:12]), "body": body.decode("utf-8", "replace")})
        data = data[end + 4 + length:]
    return answers, len(data)


def pipeline(port, path):
    with open(path, "rb") as f:
        request = f.read()
    s = open_conn(port)
    start = time.monotonic()
    s.sendall(request)
    data, closed = b"", None
    s.settimeout(60)
    try:
        while time.monotonic() < start + 60:
            chunk = s.recv(65536)
            if not chunk:
                closed = round(time.monotonic() - start, 2)
                break
            data += chunk
    except socket.timeout:
        pass
    except OSError:
        closed = round(time.monotonic() - start, 2)
    s.close()
    answers, rest = parse_answers(data)
    return {"answers": answers, "unparsed_bytes": rest, "closed_after_s": closed}


def rss_kib(pid):
    try:
        with open("/proc/%s/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def healthz(port, source="127.0.0.1", timeout=30):
    """(status or None, seconds) of one GET PATH on a new connection;
    None when the server closed it without an answer or did not answer
    within timeout (a bound no busy machine reaches)."""
    start = time.monotonic()
    s = socket.socket()
    s.settimeout(timeout)
    status = None
    try:
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
        s = tls(s)
        s.sendall(b"GET " + PATH + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        head = s.recv(64)
        if head.startswith(b"HTTP/1.1 "):
            status = int(head[9:12])
    except OSError:
        pass
    s.close()
    return status, round(time.monotonic() - start, 3)


def peer_closed(s):
    """True once the peer has ended the connection (its FIN arrived), read
    or not: the socket's TCP state is CLOSE_WAIT or CLOSE (Linux)."""
    try:
        return s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] in (7, 8)
    except OSError:
        return True


def unread(s):
    """Bytes the kernel holds for s that the test has not read (FIONREAD)."""
    try:
        return struct.unpack("i", fcntl.ioctl(s.fileno(), termios.FIONREAD, b"\0" * 4))[0]
    except OSError:
        return 0


def flood(port, mib, seconds, pid, kind):
    total = mib << 20
    s = open_conn(port)
    if kind == "chunksize":    # one chunk-size line that never ends
        s.sendall(b"POST /api/v1/tokens HTTP/1.1\r\nHost: x\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")
        block = memoryview(b"1" * (1 << 20))
    else:                      # requests, pipelined
        request = b"GET " + PATH + b" HTTP/1.1\r\nHost: x\r\n\r\n"
        block = memoryview(request * ((1 << 20) // len(request)))
    s.setblocking(False)
    rss_start = rss_kib(pid)
    rss_max, probes = rss_start, []
    sent, off, dead, last_io, inq = 0, 0, False, 0.0, 0
    start = time.monotonic()
    next_probe = start + 0.3
    while time.monotonic() - start < seconds:
        if sent < total and not dead:
            _, writable, _ = select.select([], [s], [], 0.02)
            try:
                while writable and sent < total:
                    n = s.send(block[off:])
                    sent += n
                    off = (off + n) % len(block)
                    last_io = time.monotonic() - start
            except WOULD_BLOCK:
                pass
            except OSError:
                dead = time.monotonic() - start   # the server ended it
        else:
            time.sleep(0.02)
        if not dead and unread(s) > inq:   # the server wrote: its timer restarts
            inq, last_io = unread(s), time.monotonic() - start
        if not dead and peer_closed(s):
            dead = time.monotonic() - start
        if dead:
            break              # probes after the end are not "meanwhile"
        rss_max = max(rss_max, rss_kib(pid))
        if time.monotonic() >= next_probe:
            probes.append(healthz(port))
            next_probe = time.monotonic() + 0.5
    s.close()
    return {
        "sent_mib": round(sent / (1 << 20), 1),
        "rss_start_kib": rss_start,
        "rss_max_kib": rss_max,
        "rss_growth_mib": round((rss_max - rss_start) / 1024, 1),
        "probes": len(probes),
        "probes_ok": sum(1 for st, _ in probes if st == 200),
        "probe_max_s": max((t for _, t in probes), default=None),
        "closed_after_s": round(dead, 1) if dead else None,
        # from the last byte the server's socket took or wrote: its idle timeout
        "idle_before_close_s": round(dead - last_io, 1) if dead else None,
    }


def peraddr(port, n):
    socks = []
    for _ in range(n):
        try:
            s = connect(port)
        except OSError:        # closed at once, in the handshake
            continue
        socks.append(s)
    def still_open():
        kept = 0
        for s in socks:
            try:
                kept += s.recv(1) != b""
            except WOULD_BLOCK:
                kept += 1      # nothing to read: still open
            except OSError:
                pass
        return kept
    # the surplus is closed by the server in its own time: until no more
    # than KEPT_MAX are open (a state), 30 s at most
    kept_max, start = int(os.environ.get("KEPT_MAX", n)), time.monotonic()
    kept = still_open()
    while kept > kept_max and time.monotonic() - start < 30:
        time.sleep(0.05)
        kept = still_open()
    same = healthz(port)
    other = healthz(port, "127.0.0.2")
    for s in socks:
        s.close()
    # the server sees them close and forgets them: until it answers again
    again, start = healthz(port), time.monotonic()
    while again[0] != 200 and time.monotonic() - start < 30:
        time.sleep(0.1)
        again = healthz(port)
    return {
        "kept": kept,
        "same_status": same[0], "same_s": same[1],
        "other_status": other[0], "other_s": other[1],
        "again_status": again[0],
    }


def wait_close(s, seconds):
    """Seconds until the server closed s, or None."""
    start = time.monotonic()
    s.setblocking(False)
    while time.monotonic() - start < seconds:
        r, _, _ = select.select([s], [], [], 0.05)
        if r:
            try:
                if not s.recv(65536):
                    return round(time.monotonic() - start, 2)
            except WOULD_BLOCK:
                pass
            except OSError:
                return round(time.monotonic() - start, 2)
    return None


def half(port):
    s = open_conn(port)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    s.shutdown(socket.SHUT_WR)
    t = wait_close(s, 60)
    s.close()
    return {"closed_after_s": t}


def midbody(port):
    s = open_conn(port)
    s.sendall(b"POST /api/v1/tokens HTTP/1.1\r\nHost: x\r\n"
              b"Content-Type: application/x-www-form-urlencoded\r\n"
              b"Content-Length: 1000\r\n\r\n" + b"a" * 100)
    time.sleep(0.2)
    s.close()
    return {"sent": 100}


def rst(port):
    s = open_conn(port)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.sendall(b"GET /.well-known/jwks.json HTTP/1.1\r\nHost: x\r\n\r\n")
    s.close()                  # RST: the answer is written to a dead socket
    return {"reset": True}


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "idle":
        pid = sys.argv[5] if len(sys.argv) > 5 else None
        out = hold(port, int(sys.argv[3]), float(sys.argv[4]), None, pid)
    elif mode == "slow":
        out = hold(port, int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]))
    elif mode == "pipeline":
        out = pipeline(port, sys.argv[3])
    elif mode == "flood":
        out = flood(port, int(sys.argv[3]), float(sys.argv[4]), sys.argv[5],
                    sys.argv[6] if len(sys.argv) > 6 else "requests")
    elif mode == "peraddr":
        out = peraddr(port, int(sys.argv[3]))
    elif mode == "half":
        out = half(port)
    elif mode == "midbody":
        out = midbody(port)
    elif mode == "rst":
        out = rst(port)
    else:
        sys.exit("unknown mode " + mode)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
