#!/usr/bin/env python3
"""tests/guest/lib/mig-peer.py - the host side of the migration test's traffic.

usage: mig-peer.py BLOB DONEFILE PORT
       mig-peer.py udp IP PORT STOPFILE   8000-byte datagrams to IP:PORT, 500 a
              second, until STOPFILE exists (the pattern tests/guest/mig-udp.c checks)
  GET /blob   BLOB (host -> guest; the guest checks its sha256)
  POST /up    answers the sha256 of the body it read (guest -> host; the guest
              compares with its own), "short" when the body ended early
  GET /done   404 until DONEFILE exists: the host's "migrations over, stop"
  GET /end    404 until DONEFILE.end exists: the host's "every guest stopped, you may
              power off" (a guest that serves the other must outlive its last download)
"""
import hashlib
import http.server
import os
import socket
import socketserver
import sys
import time



def udp(ip, port, stop):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    seq = errors = 0
    last = None
    while not os.path.exists(stop):
        body = bytes((seq * 7 + i) & 0xFF for i in range(4, 8000))
        try:
            s.sendto(seq.to_bytes(4, "big") + body, (ip, port))
        except OSError as e:  # no neighbour yet, or the path changed: keep going
            errors = errors + 1
            last = e
        seq += 1
        time.sleep(0.002)
    print(f"sent {seq}, {errors} send errors" + (f" (last: {last})" if last else ""))
    sys.exit(0)


if sys.argv[1] == "udp":
    udp(sys.argv[2], int(sys.argv[3]), sys.argv[4])
BLOB, DONE, PORT = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(BLOB, "rb") as fh:
    DATA = fh.read()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def reply(self, body):
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass

    def do_GET(self):
        if self.path == "/blob":
            self.reply(DATA)
        elif self.path == "/done" and os.path.exists(DONE):
            self.reply(b"")
        elif self.path == "/end" and os.path.exists(DONE + ".end"):
            self.reply(b"")
        else:
            self.send_error(404)

    def do_POST(self):
        left = int(self.headers.get("Content-Length", "0"))
        h = hashlib.sha256()
        while left > 0:
            b = self.rfile.read(min(65536, left))
            if not b:
                break
            h.update(b)
            left -= len(b)
        self.reply((h.hexdigest() if left == 0 else "short").encode() + b"\n")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


Server(("0.0.0.0", PORT), Handler).serve_forever()
