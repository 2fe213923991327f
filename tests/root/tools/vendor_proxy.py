#!/usr/bin/env python3
"""The vendors' hosts for the root tests: an HTTP proxy on 127.0.0.1 that apt inside a test root uses
(Acquire::http::Proxy). A request for http://HOST/PATH is answered from MIRROR/PATH when HOST is one the
tests serve (the vendors' repository hosts, deb.debian.org and archive.ubuntu.com, whose /debian and /ubuntu
map to MIRROR/debian and MIRROR/ubuntu), and refused (502) for any other host, so nothing leaves the machine.
Writes its port to PORT_FILE; stops after MAX_SECONDS in any case."""
import http.server, os, sys, threading, urllib.parse

MIRROR, PORT_FILE, MAX_SECONDS = sys.argv[1], sys.argv[2], float(sys.argv[3])
HOSTS = {"repo.radeon.com", "developer.download.nvidia.com", "nvidia.github.io", "deb.debian.org",
         "archive.ubuntu.com", "download.pytorch.org"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, body):
        url = urllib.parse.urlsplit(self.path)
        host = url.hostname or "127.0.0.1"
        path = os.path.normpath(urllib.parse.unquote(url.path)).lstrip("/")
        full = os.path.join(MIRROR, path)
        if host not in HOSTS and host != "127.0.0.1":
            self.send_response(502)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path.startswith("..") or not os.path.isfile(full):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with open(full, "rb") as f:
            data = f.read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if body:
            self.wfile.write(data)

    def do_GET(self):
        self.answer(True)

    def do_HEAD(self):
        self.answer(False)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Timer(MAX_SECONDS, server.shutdown).start()
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
