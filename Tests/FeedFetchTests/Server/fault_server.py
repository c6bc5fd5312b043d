#!/usr/bin/env python3
"""HTTP server for the fetch tests: every fault the fetch stage must survive.

Listens on 127.0.0.1 and 127.0.0.2 (ephemeral ports), prints
"PORT1 PORT2" on its first line of stdout, and exits when its stdin closes
(that is, when the test process that started it ends). Standard library
only, apart from brotli and zstandard for those two encodings.
"""
import gzip
import http.server
import os
import socket
import socketserver
import struct
import sys
import threading
import time
import urllib.parse
import zlib

FEED = (b'<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>Served</title>'
        b"<link>http://127.0.0.1/</link><description>d</description>"
        b"<item><title>One</title><guid>urn:1</guid></item></channel></rss>\n")
ETAG = '"v1"'
LAST_MODIFIED = "Tue, 10 Jun 2003 09:41:01 GMT"


def make_bomb(megabytes):
    compressor = zlib.compressobj(1, zlib.DEFLATED, 31)  # gzip wrapper; level 1 is 3x faster here
    block = bytes(1 << 20)
    out = [compressor.compress(block) for _ in range(megabytes)]
    out.append(compressor.flush())
    return b"".join(out)


# 256 MB of zeros, about 1 MB on the wire; tests cap bodies at 1 MB. Built on the first
# request (not at start: the whole suite would wait for it), once.
BOMB = []
BOMB_LOCK = threading.Lock()


def bomb():
    with BOMB_LOCK:
        if not BOMB:
            BOMB.append(make_bomb(256))
        return BOMB[0]
HITS = {}
HITS_LOCK = threading.Lock()
ACTIVE = {"now": 0, "max": 0}
TIMED = {}  # (address, run) -> [[start, end]] of /timed, in seconds of time.monotonic()
CONNECTIONS = [0]  # connections accepted so far, on both addresses


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        with HITS_LOCK:
            CONNECTIONS[0] += 1
            self.connection_number = CONNECTIONS[0]

    def send(self, status, body=b"", headers=(), content_type="application/rss+xml; charset=utf-8"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def redirect(self, status, location):
        self.send(status, b"", [("Location", location)], "text/plain")

    def do_GET(self):
        path, _, query = self.path.partition("?")
        with HITS_LOCK:
            HITS[path] = HITS.get(path, 0) + 1
        params = urllib.parse.parse_qs(query)
        if path == "/ok":
            self.send(200, FEED, [("ETag", ETAG), ("Last-Modified", LAST_MODIFIED), ("Cache-Control", "max-age=60")])
        elif path == "/conditional":
            if self.headers.get("If-None-Match") == ETAG or self.headers.get("If-Modified-Since") == LAST_MODIFIED:
                self.send_response(304)
                self.send_header("ETag", ETAG)
                self.end_headers()
            else:
                self.send(200, FEED, [("ETag", ETAG), ("Last-Modified", LAST_MODIFIED)])
        elif path.startswith("/status/"):
            status = int(path.rsplit("/", 1)[1])
            headers = []
            if status == 429:
                headers.append(("Retry-After", "120"))
            if status == 503:
                when = time.gmtime(time.time() + 300)
                headers.append(("Retry-After", time.strftime("%a, %d %b %Y %H:%M:%S GMT", when)))
            self.send(status, b"error page", headers, "text/plain")
        elif path == "/redirect/301":
            self.redirect(301, "/redirect/308")
        elif path == "/redirect/308":
            self.redirect(308, "/ok")
        elif path == "/redirect/302":
            self.redirect(302, "/ok")
        elif path == "/loop":
            self.redirect(302, "/loop")
        elif path == "/to-file":
            self.redirect(302, "file:///etc/hostname")
        elif path == "/to-gopher":
            self.redirect(302, "gopher://127.0.0.1:70/")
        elif path == "/redirect-to":
            self.redirect(302, params["url"][0])
        elif path == "/html":
            self.send(200, b"<!DOCTYPE html><html><body><p>Not a feed</p></body></html>", [], "text/html; charset=utf-8")
        elif path == "/reset":
            self.send_response(200)
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(FEED[:50])
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
        elif path == "/truncated-length":
            self.send_response(200)
            self.send_header("Content-Length", str(len(FEED) * 2))
            self.end_headers()
            self.wfile.write(FEED)
            self.wfile.flush()
            self.close_connection = True
        elif path == "/truncated-chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(FEED), FEED))
            self.wfile.flush()
            self.close_connection = True  # no terminating zero-length chunk
        elif path == "/big-chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"x" * 65536
            try:
                for _ in range(int(params.get("chunks", ["5120"])[0])):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
        elif path == "/gzip-bomb":
            try:
                self.send(200, bomb(), [("Content-Encoding", "gzip")], "application/rss+xml")
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
        elif path == "/corrupt-gzip":
            self.send(200, b"\x1f\x8b\x08\x00garbage that is not deflate data at all" * 10,
                      [("Content-Encoding", "gzip")])
        elif path == "/gzip":
            self.send(200, gzip.compress(FEED), [("Content-Encoding", "gzip")])
        elif path == "/br":
            import brotli
            self.send(200, brotli.compress(FEED), [("Content-Encoding", "br")])
        elif path == "/zstd":
            import zstandard
            self.send(200, zstandard.ZstdCompressor().compress(FEED), [("Content-Encoding", "zstd")])
        elif path == "/drip":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            try:
                for _ in range(1000):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(1)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
        elif path == "/hang":
            time.sleep(120)
            self.close_connection = True
        elif path == "/slow":
            with HITS_LOCK:
                ACTIVE["now"] += 1
                ACTIVE["max"] = max(ACTIVE["max"], ACTIVE["now"])
            time.sleep(0.3)
            with HITS_LOCK:
                ACTIVE["now"] -= 1
            self.send(200, FEED)
        elif path == "/timed":  # a request of a run, its start and end noted at this address
            key = (self.server.server_address[0], params.get("run", [""])[0])
            with HITS_LOCK:
                record = [time.monotonic(), None]
                TIMED.setdefault(key, []).append(record)
            time.sleep(0.4)
            with HITS_LOCK:
                record[1] = time.monotonic()
            self.send(200, FEED)
        elif path == "/timed-log":  # "START END" per line for a run at this address, taken out
            key = (self.server.server_address[0], params.get("run", [""])[0])
            with HITS_LOCK:
                records = TIMED.pop(key, [])
            body = "\n".join("%.6f %.6f" % (start, end) for start, end in records if end is not None).encode()
            self.send(200, body, [], "text/plain")
        elif path == "/connection":  # which connection the request came on
            self.send(200, str(self.connection_number).encode(), [], "text/plain")
        elif path == "/max-concurrency":
            with HITS_LOCK:
                body = str(ACTIVE["max"]).encode()
                ACTIVE["max"] = 0
            self.send(200, body, [], "text/plain")
        elif path == "/hits":
            with HITS_LOCK:
                body = "\n".join("%s %d" % item for item in sorted(HITS.items())).encode()
            self.send(200, body, [], "text/plain")
        else:
            self.send(404, b"not found", [], "text/plain")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def handle_error(self, request, client_address):
        pass  # resets and broken pipes are what these tests provoke


def main():
    servers = [Server(("127.0.0.1", 0), Handler), Server(("127.0.0.2", 0), Handler)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print(" ".join(str(s.server_address[1]) for s in servers), flush=True)
    sys.stdin.read()  # returns when the parent closes the pipe or dies
    os._exit(0)


if __name__ == "__main__":
    main()
