#!/usr/bin/env python3
"""Sends bytes curl cannot send (bare control characters, broken framing,
bodies that do not match their headers) and reads one answer.

    rawhttp.py PORT REQUEST_FILE HEADERS_FILE BODY_FILE [TIMEOUT_S]

Sends REQUEST_FILE's bytes as they are, from a thread, while reading, so that
an answer sent before the whole request was accepted is still seen. Writes
the status line and headers to HEADERS_FILE, the body to BODY_FILE, and
prints the status code: 000 when no answer came. A code is followed by '!'
when the answer had neither Content-Length nor chunked framing and the
server did not close the connection either: a client cannot tell where such
an answer ends. Prints the bytes the server accepted to stderr when asked
(RAWHTTP_VERBOSE=1)."""
import os
import socket
import sys
import threading
import time


def exchange(port, request, timeout=3.0):
    """Sends REQUEST (bytes) on a connection of its own; returns the status
    as main prints it, the status line and headers, and the body."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    sent = [0]

    def sender():
        view = memoryview(request)
        try:
            while sent[0] < len(view):
                n = s.send(view[sent[0]:sent[0] + 65536])
                sent[0] += n
        except OSError:
            pass

    t = threading.Thread(target=sender, daemon=True)
    t.start()

    data = b""
    closed = False
    deadline = time.monotonic() + timeout
    head_end = -1
    need = None            # total bytes of a Content-Length framed answer
    while time.monotonic() < deadline:
        s.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        except OSError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        data += chunk
        if head_end < 0:
            head_end = data.find(b"\r\n\r\n")
            if head_end >= 0:
                for line in data[:head_end].split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        try:
                            need = head_end + 4 + int(value.strip())
                        except ValueError:
                            pass
                if data.startswith(b"HEAD") or data[9:12] in (b"204", b"304"):
                    need = head_end + 4
        if need is not None and len(data) >= need:
            break
    try:
        s.close()
    except OSError:
        pass
    if os.environ.get("RAWHTTP_VERBOSE"):
        print("sent %d of %d bytes" % (sent[0], len(request)), file=sys.stderr)

    if head_end < 0:
        head_end = data.find(b"\r\n\r\n")
    head = data[:head_end] if head_end >= 0 else data
    body = data[head_end + 4:] if head_end >= 0 else b""
    if need is not None:
        body = data[head_end + 4:need]
    status = "000"
    if head.startswith(b"HTTP/") and len(head) >= 12:
        status = head[9:12].decode("ascii", "replace")
        chunked = b"transfer-encoding: chunked" in head.lower()
        if need is None and not chunked and not closed:
            status += "!"
    return status, head, body


def main():
    port = int(sys.argv[1])
    with open(sys.argv[2], "rb") as f:
        request = f.read()
    hdr_file, body_file = sys.argv[3], sys.argv[4]
    timeout = float(sys.argv[5]) if len(sys.argv) > 5 else 3.0
    status, head, body = exchange(port, request, timeout)
    with open(hdr_file, "wb") as f:
        f.write(head + b"\r\n")
    with open(body_file, "wb") as f:
        f.write(body)
    print(status)


if __name__ == "__main__":
    main()
