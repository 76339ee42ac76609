#!/usr/bin/env python3
"""Plays systemd's side of sd_notify for one server run.

    notify.py DIR PORT WATCHDOG_USEC CMD...

Binds a Unix datagram socket DIR/notify.sock, starts CMD with NOTIFY_SOCKET
pointing at it, WATCHDOG_USEC as given and WATCHDOG_PID its own pid (set by
a shell that then execs CMD, so the pid is the server's). With
NOTIFY_ABSTRACT=1 in its environment the socket is in the abstract
namespace instead, and NOTIFY_SOCKET names it with a leading '@'; with
NOTIFY_HUP=1 it sends SIGHUP (a reload) once READY=1 has come; with
NOTIFY_PID set, WATCHDOG_PID is that instead of the server's pid. Records each
message with its time. When READY=1 arrives it connects to PORT at once
(the port must accept by then). After the watchdog has had time for
several pings it sends SIGTERM and waits for STOPPING=1 and the exit.
Prints one JSON object: the messages, whether the port accepted at READY,
the intervals between WATCHDOG=1 pings, the exit status."""
import json
import os
import signal
import socket
import subprocess
import sys
import time


def main():
    d, port, wd_usec, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    path = os.path.join(d, "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if os.environ.get("NOTIFY_ABSTRACT") == "1":
        name = "edgeauth-notify-%d" % os.getpid()
        sock.bind("\0" + name)
        path = "@" + name
    else:
        sock.bind(path)
    env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC=wd_usec)
    proc = subprocess.Popen(["sh", "-c", 'WATCHDOG_PID=${NOTIFY_PID:-$$}; export WATCHDOG_PID; exec "$@"', "sh"]
                            + cmd, env=env, stdout=subprocess.DEVNULL)
    t0 = time.monotonic()
    out = {"messages": [], "accepted_at_ready": None, "pings": [], "exit": None}
    sock.settimeout(0.2)
    ready_at = None
    term_sent = False
    deadline = t0 + 20
    while time.monotonic() < deadline:
        try:
            data = sock.recv(4096).decode()
        except socket.timeout:
            data = None
        now = time.monotonic() - t0
        if data is not None:
            for line in data.split("\n"):
                if line:
                    out["messages"].append([round(now, 3), line])
            if "READY=1" in data.split("\n") and ready_at is None:
                ready_at = now
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    out["accepted_at_ready"] = True
                except OSError:
                    out["accepted_at_ready"] = False
                if os.environ.get("NOTIFY_HUP") == "1":
                    proc.send_signal(signal.SIGHUP)
            if "STOPPING=1" in data.split("\n"):
                break
        if ready_at is not None and not term_sent and now - ready_at > 1.5:
            proc.send_signal(signal.SIGTERM)
            term_sent = True
        if proc.poll() is not None and not term_sent:
            break
    try:
        out["exit"] = proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        out["exit"] = "killed"
    pings = [t for t, m in out["messages"] if m == "WATCHDOG=1"]
    out["pings"] = [round(b - a, 3) for a, b in zip(pings, pings[1:])]
    out["order"] = [m for _, m in out["messages"] if m != "WATCHDOG=1"]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
