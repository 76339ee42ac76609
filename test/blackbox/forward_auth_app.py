"""The app behind the proxy in t_forward_auth_proxies.sh: a page that shows
the request headers it received, as JSON in <pre id="headers">. Prints its
port on the first line of stdout once it listens (port 0: any free one)."""
import html
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Headers(BaseHTTPRequestHandler):
    def do_GET(self):
        seen = {k: v for k, v in self.headers.items()}
        body = ('<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">'
                '<title>App</title><pre id="headers">%s</pre>\n'
                % html.escape(json.dumps(seen, sort_keys=True))).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Headers)
print(server.server_address[1], flush=True)
server.serve_forever()
