#!/usr/bin/env bash
# gpudoctor bundle --upload against a real HTTPS server on this machine (python3 + an openssl certificate):
# PUT and POST deliver the archive byte for byte; a refusal, a silent server and an unreachable port fail
# with exit 4 and keep the local archive; http:// is refused before anything is recorded; the URL's
# signature never reaches the output.
source "$(dirname "$0")/common.bash"
command -v openssl >/dev/null || skip "openssl is missing: no local HTTPS server"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/key.pem" -out "$work/cert.pem" >/dev/null 2>&1 || skip "openssl cannot make a certificate"

mkdir -p "$work/received"
cat >"$work/server.py" <<'PY'
# Stores PUT/POST bodies under <dir>/received/<last path part>; /deny answers 403, /slow never in time.
import http.server, os, ssl, sys, time
folder = sys.argv[1]
class Handler(http.server.BaseHTTPRequestHandler):
    def store(self):
        if self.path.startswith("/slow"):
            time.sleep(5)
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path.startswith("/deny"):
            self.send_response(403); self.end_headers(); self.wfile.write(b"signature expired\n"); return
        name = self.path.split("?")[0].rsplit("/", 1)[-1]
        with open(os.path.join(folder, "received", name), "wb") as f:
            f.write(body)
        with open(os.path.join(folder, "received", name + ".meta"), "w") as f:
            f.write("%s %s\n" % (self.command, self.headers.get("Content-Type")))
        self.send_response(201 if self.command == "POST" else 200); self.end_headers()
        self.wfile.write(b"stored %d bytes\n" % len(body))
    do_PUT = do_POST = store
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem"))
server.socket = context.wrap_socket(server.socket, server_side=True)
open(os.path.join(folder, "port"), "w").write(str(server.server_address[1]))
server.serve_forever()
PY
"$py" "$work/server.py" "$work" &
server_pid=$!
trap 'kill $server_pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do [[ -s $work/port ]] && break; sleep 0.1; done
[[ -s $work/port ]] || fail "the local HTTPS server did not start"
base="https://127.0.0.1:$(cat "$work/port")"
signature="sig$RANDOM$RANDOM"

# PUT to a presigned-style URL: the archive arrives unchanged; the signature is never printed.
"$gpudoctor" bundle -o "$work/put.tar.gz" --ca-file "$work/cert.pem" \
  --upload "$base/up/put.tar.gz?X-Signature=$signature" >"$work/put.out" 2>"$work/put.err" ||
  fail "bundle --upload (PUT) exited $?: $(cat "$work/put.err")"
cmp -s "$work/put.tar.gz" "$work/received/put.tar.gz" || fail "the server did not receive the archive unchanged"
[[ $(cat "$work/received/put.tar.gz.meta") == "PUT application/gzip" ]] ||
  fail "method and type: $(cat "$work/received/put.tar.gz.meta")"
grep -q "uploaded: HTTP 200 from $base/up/put.tar.gz?<redacted>" "$work/put.err" ||
  fail "no upload confirmation: $(cat "$work/put.err")"
! grep -q "$signature" "$work/put.out" "$work/put.err" || fail "the URL's signature was printed"
pass "PUT delivers the archive byte for byte, and the signature is not printed"

"$gpudoctor" bundle -o "$work/post.tar.gz" --ca-file "$work/cert.pem" --upload-method POST \
  --upload "$base/up/post.tar.gz" >/dev/null 2>"$work/post.err" || fail "POST exited $?: $(cat "$work/post.err")"
cmp -s "$work/post.tar.gz" "$work/received/post.tar.gz" || fail "POST: the archive did not arrive unchanged"
grep -q "HTTP 201" "$work/post.err" || fail "POST: $(cat "$work/post.err")"
pass "POST delivers the archive too"

# Failures: exit 4, the reason, and the local archive kept.
expect_upload_failure() {
  local what=$1 want=$2 status=0
  shift 2
  rm -f "$work/failed.tar.gz"
  "$gpudoctor" bundle -o "$work/failed.tar.gz" "$@" >/dev/null 2>"$work/failed.err" || status=$?
  [[ $status == 4 ]] || fail "$what: exit $status, not 4: $(cat "$work/failed.err")"
  grep -q "$want" "$work/failed.err" || fail "$what: no '$want' in: $(cat "$work/failed.err")"
  grep -q "the bundle is still at $work/failed.tar.gz" "$work/failed.err" || fail "$what: the archive is not named"
  [[ -s $work/failed.tar.gz ]] || fail "$what: the local archive is gone"
  pass "$what: exit 4, '$want', archive kept"
}
expect_upload_failure "a 403" "refused the upload: HTTP 403 (signature expired)" \
  --ca-file "$work/cert.pem" --upload "$base/deny/x.tar.gz?X-Signature=$signature"
! grep -q "$signature" "$work/failed.err" || fail "the signature was printed in the refusal"
expect_upload_failure "an untrusted certificate" "(tls)" --upload "$base/up/tls.tar.gz"
expect_upload_failure "a server that never answers" "(timeout)" \
  --ca-file "$work/cert.pem" --upload-timeout 1000 --upload "$base/slow/x.tar.gz"
closed=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
expect_upload_failure "a closed port" "(connect)" --ca-file "$work/cert.pem" \
  --upload "https://127.0.0.1:$closed/x.tar.gz"

# Bad usage is said at once, before anything is recorded.
status=0
"$gpudoctor" bundle -o "$work/plain.tar.gz" --upload "http://127.0.0.1:1/x" >/dev/null 2>"$work/plain.err" ||
  status=$?
[[ $status == 2 ]] || fail "an http:// URL: exit $status, not 2"
grep -q "needs an https:// URL" "$work/plain.err" || fail "an http:// URL: $(cat "$work/plain.err")"
[[ ! -e $work/plain.tar.gz ]] || fail "an http:// URL: a bundle was recorded anyway"
pass "http:// is refused before recording (exit 2)"
