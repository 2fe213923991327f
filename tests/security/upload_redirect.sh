#!/usr/bin/env bash
# `bundle --upload` never downgrades: a redirect is followed only to https on the same host (scheme, host and
# port); one to http:// or to another host is refused before anything is sent there (exit 4, the archive kept);
# a 307 to https on the same host delivers the archive. What gpudoctor prints of the server (its reply, the final
# URL) has control characters escaped, and the final URL is printed without its query.
# Real servers on loopback: HTTPS on 127.0.0.1 (redirecting), HTTPS on 127.0.0.2 (another host), plain HTTP on
# 127.0.0.1; each records what reaches it.
source "$(dirname "$0")/../e2e/common.bash"
command -v openssl >/dev/null || skip "openssl is missing: no local HTTPS server"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1,IP:127.0.0.2,DNS:localhost \
  -keyout "$work/key.pem" -out "$work/cert.pem" >/dev/null 2>&1 || skip "openssl cannot make a certificate"
mkdir -p "$work/received" "$work/redirects"
cat >"$work/server.py" <<'PY'
# argv: folder, address, tls|plain, name. Stores bodies under <folder>/received/<name>-<last path part>.
# /redirect/<code>/<id>: answers <code> with Location: the content of <folder>/redirects/<id> (after the body);
# /escape: answers 201 with terminal escape sequences; anything else: stored, 201.
import http.server, os, ssl, sys
folder, address, mode, name = sys.argv[1:5]
class Handler(http.server.BaseHTTPRequestHandler):
    def handle_one(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        path = self.path
        if path.startswith("/redirect/"):
            code, rid = path[len("/redirect/"):].split("?")[0].split("/", 1)
            self.send_response(int(code))
            self.send_header("Location", open(os.path.join(folder, "redirects", rid)).read().strip())
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path.startswith("/escape"):
            reply = b"\x1b]0;owned\x07\x1b[2J\x1b[31mstored\x9b1m and more\r\n"
            self.send_response(201)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)
            return
        last = path.split("?")[0].rsplit("/", 1)[-1]
        with open(os.path.join(folder, "received", name + "-" + last), "wb") as f:
            f.write(body)
        reply = b"stored %d bytes\n" % len(body)
        self.send_response(201 if self.command != "GET" else 200)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)
    do_PUT = do_POST = do_GET = handle_one
    def log_message(self, *args): pass
class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, *args): pass
server = Server((address, 0), Handler)
if mode == "tls":
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem"))
    server.socket = context.wrap_socket(server.socket, server_side=True)
open(os.path.join(folder, name + ".port.tmp"), "w").write(str(server.server_address[1]))
os.rename(os.path.join(folder, name + ".port.tmp"), os.path.join(folder, name + ".port"))
server.serve_forever()
PY
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
for spec in "127.0.0.1 tls main" "127.0.0.2 tls other" "127.0.0.1 plain plain"; do
  read -r address mode name <<<"$spec"
  "$py" "$work/server.py" "$work" "$address" "$mode" "$name" 2>"$work/$name.log" &
  pids+=($!)
done
for name in main other plain; do
  for _ in $(seq 100); do [[ -s $work/$name.port ]] && break; sleep 0.1; done
  [[ -s $work/$name.port ]] || skip "the $name server did not start (127.0.0.2 unusable?): $(cat "$work/$name.log")"
done
main="https://127.0.0.1:$(cat "$work/main.port")"
other="https://127.0.0.2:$(cat "$work/other.port")"
plain="http://127.0.0.1:$(cat "$work/plain.port")"
localhost="https://localhost:$(cat "$work/main.port")"
secret="sig$RANDOM$RANDOM"

upload() { # name, URL: records a bundle and uploads it, sets $status, output in $work/<name>.err
  status=0
  "$gpudoctor" bundle -o "$work/$1.tar.gz" --ca-file "$work/cert.pem" --upload "$2" \
    >"$work/$1.out" 2>"$work/$1.err" || status=$?
}

refused() { # what, name, URL, target label: exit 4, said, archive kept, nothing reached http or the other host
  local what=$1 name=$2
  upload "$name" "$3"
  [[ $status == 4 ]] || fail "$what: exit $status, not 4: $(cat "$work/$name.err")"
  grep -q "redirect" "$work/$name.err" || fail "$what: the refusal does not say redirect: $(cat "$work/$name.err")"
  grep -q "the bundle is still at $work/$name.tar.gz" "$work/$name.err" || fail "$what: the archive is not named"
  [[ -s $work/$name.tar.gz ]] || fail "$what: the local archive is gone"
  [[ -z $(ls -A "$work/received") ]] || fail "$what: the archive was sent on: $(ls "$work/received")"
  ! grep -q "$secret" "$work/$name.out" "$work/$name.err" || fail "$what: a URL's query was printed"
  pass "$what: refused (exit 4), nothing sent there, archive kept"
}
to() { # code, Location: a URL of the main server that answers <code> with that Location
  local id=r$RANDOM$RANDOM # (a subshell: no counter)
  echo "$2" >"$work/redirects/$id"
  echo "$main/redirect/$1/$id"
}

refused "307 to http:// on the same host" to-http "$(to 307 "$plain/in/x.tar.gz?s=$secret")"
refused "302 to http:// on the same host" to-http-302 "$(to 302 "$plain/in/x.tar.gz")"
refused "301 to http:// on the same host" to-http-301 "$(to 301 "$plain/in/x.tar.gz")"
refused "308 to https on another host" to-other "$(to 308 "$other/in/x.tar.gz?s=$secret")"
refused "303 to https on another host" to-other-303 "$(to 303 "$other/in/x.tar.gz")"
refused "307 to https on another name of the host" to-localhost "$(to 307 "$localhost/in/x.tar.gz")"
refused "307 to https on the same host, another port" to-port \
  "$(to 307 "https://127.0.0.1:$(cat "$work/other.port")/in/x.tar.gz")"

# Allowed: a 307 to https on the same host (absolute, with its own signature in the query) delivers the archive.
upload same "$(to 307 "$main/in/same.tar.gz?X-Signature=$secret")?X-Signature=$secret"
[[ $status == 0 ]] || fail "307 to https on the same host: exit $status: $(cat "$work/same.err")"
cmp -s "$work/same.tar.gz" "$work/received/main-same.tar.gz" || fail "307 same host: the archive did not arrive"
grep -q "uploaded: HTTP 201 from $main/in/same.tar.gz?<redacted>" "$work/same.err" ||
  fail "307 same host: the final URL is not named (without its query): $(cat "$work/same.err")"
! grep -q "$secret" "$work/same.out" "$work/same.err" || fail "307 same host: a query was printed"
pass "307 to https on the same host: the archive is delivered, the final URL printed without its query"
rm -f "$work/received/"*

# The server's reply is printed with its control characters escaped: no escape sequence reaches the terminal.
upload escape "$main/escape/x.tar.gz"
[[ $status == 0 ]] || fail "escape: exit $status: $(cat "$work/escape.err")"
grep -q "stored" "$work/escape.err" || fail "escape: the reply is not shown: $(cat "$work/escape.err")"
if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f\x9b]' "$work/escape.err" "$work/escape.out"; then
  fail "escape: control characters reached the output: $(od -c "$work/escape.err" | sed -n 1,10p)"
fi
pass "the server's reply is shown with its control characters escaped"
