"""Many hosts for the shared-state tests: one control port, then HOSTS
ports of 127.0.0.1 (each port a host, as the per-host limit counts them),
printed on the first line. Every host serves /f/N.xml, an RSS feed of
three items, after DELAY seconds (or the `?delay=S` the URL asks for); with
`?etag=1` it has an ETag, and a request naming it is answered 304; the
server counts each path's requests
and the most requests any one host had in flight at once. The control
port answers /stats (JSON) and /reset.

    python3 hosts_server.py HOSTS DELAY
"""
import json
import os
import sys
import threading
import time

import http.server

from loopback import Server


class Busy(Server):
    request_queue_size = 128

HOSTS = int(sys.argv[1]) if len(sys.argv) > 1 else 50
DELAY = float(sys.argv[2]) if len(sys.argv) > 2 else 0.05
lock = threading.Lock()
requests = {}
in_flight = {}
most = {}


def feed(port, number):
    items = "".join(
        f"<item><guid>urn:hosts:{number}:{k}</guid><title>Feed {number} item {k}</title>"
        f"<link>http://example.org/{number}/{k}</link>"
        f"<pubDate>Mon, 0{k + 1} Jan 2024 00:00:00 GMT</pubDate></item>"
        for k in range(3))
    return (f"<?xml version='1.0'?><rss version='2.0'><channel><title>Feed {number}</title>"
            f"<link>http://example.org/{number}/</link>{items}</channel></rss>").encode()


class Host(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        port = self.server.server_address[1]
        with lock:
            requests[f"{port}{self.path}"] = requests.get(f"{port}{self.path}", 0) + 1
            in_flight[port] = in_flight.get(port, 0) + 1
            most[port] = max(most.get(port, 0), in_flight[port])
        try:
            path, _, query = self.path.partition("?")
            asked = dict(part.split("=", 1) for part in query.split("&") if "=" in part)
            time.sleep(float(asked.get("delay", DELAY)))
            if not self.path.startswith("/f/"):
                self.send_error(404)
                return
            number = int(path[3:].split(".")[0])
            etag = f'"f{number}"' if asked.get("etag") == "1" else None
            if etag and self.headers.get("If-None-Match") == etag:
                self.send_response(304)
                self.send_header("ETag", etag)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = feed(port, number)
            self.send_response(200)
            if etag:
                self.send_header("ETag", etag)
            self.send_header("Content-Type", "application/rss+xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        finally:
            with lock:
                in_flight[port] -= 1


class Control(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        with lock:
            if self.path == "/reset":
                requests.clear()
                most.clear()
            body = json.dumps({"requests": requests, "mostInFlight": most}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


servers = [Busy(("127.0.0.1", 0), Control)] + [Busy(("127.0.0.1", 0), Host) for _ in range(HOSTS)]
for server in servers:
    threading.Thread(target=server.serve_forever, daemon=True).start()
print(" ".join(str(s.server_address[1]) for s in servers), flush=True)
sys.stdin.read()
os._exit(0)
