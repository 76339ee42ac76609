#!/usr/bin/env python3
"""A back-channel logout receiver for t_backchannel.sh: an HTTP server on
127.0.0.1 that records every request as a JSON line and answers by the
path's first segment:

  /ok/...        200            /fail/...      500
  /reject/...    400            /redirect/...  302 to /ok/redirected
  /stall/...     never answers (the connection stays open)
  /bighead/...   200 with 8 KiB of headers

Usage: logout_receiver.py PORT_FILE LOG_FILE [CERT KEY]. With CERT and KEY
it speaks only TLS. The chosen port goes to PORT_FILE once it listens."""
import json
import os
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port_file, log_file = sys.argv[1], sys.argv[2]
tls = sys.argv[3:5]
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, body):
        entry = {"t": time.time(), "method": self.command, "path": self.path,
                 "content_type": self.headers.get("Content-Type"),
                 "host": self.headers.get("Host"), "body": body}
        with lock, open(log_file, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def answer(self, status, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode("utf-8", "replace")
        self.record(body)
        kind = self.path.split("/")[1]
        if kind == "stall":
            time.sleep(3600)
        elif kind == "fail":
            self.answer(500)
        elif kind == "reject":
            self.answer(400)
        elif kind == "redirect":
            self.answer(302, [("Location", "/ok/redirected")])
        elif kind == "bighead":
            self.answer(200, [("X-Filler-%d" % i, "x" * 100) for i in range(80)])
        else:
            self.answer(200)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
if tls:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tls[0], tls[1])
    server.socket = context.wrap_socket(server.socket, server_side=True)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
