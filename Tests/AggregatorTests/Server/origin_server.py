"""Origins for the politeness tests: one control port, then HOSTS ports of
127.0.0.1 (each port a host), printed on the first line. Every request to a
host is logged (its time, port, path, the headers a publisher looks at, and
when it ended); what a path answers is set by its name:

    /etag.xml        an odd weak ETag and an RFC 850 Last-Modified; 304 when
                     both come back byte for byte
    /rotating.xml    a 304 carries a fresh ETag; only the latest one gets a 304
    /plain.xml       no validators, the same body
    /maxage.xml      Cache-Control: max-age=172800
    /expires.xml     Expires three days after Date
    /ttl.xml         RSS ttl 180
    /retry.xml       429 with Retry-After: 7200
    /busy-N.xml      429 with Retry-After: 14400
    /fail-N.xml      500
    /gzip.xml        gzip-encoded when asked, with a Set-Cookie
    /moved.xml       301 to /new.xml; /temp.xml 302 to /temp-target.xml
    /gone.xml        410; /missing.xml 404
    /challenge.xml   403 with cf-mitigated: challenge (Cloudflare's managed challenge)
    /challenge-page.xml  200 with an HTML challenge page
    /skip.xml        RSS skipDays Saturday, skipHours 0-5
    anything else    an RSS feed of three items, after ?delay=S seconds

The control port answers /log?from=N (the log from entry N, JSON) and /reset.

    python3 origin_server.py HOSTS
"""
import email.utils
import gzip
import json
import os
import sys
import threading
import time

import http.server

from loopback import Server


class Busy(Server):
    request_queue_size = 128


HOSTS = int(sys.argv[1]) if len(sys.argv) > 1 else 30
lock = threading.Lock()
log = []
rotation = {}


def rss(title, extra=""):
    items = "".join(
        f"<item><guid>urn:origin:{title}:{k}</guid><title>{title} {k}</title>"
        f"<pubDate>Mon, 0{k + 1} Jan 2024 00:00:00 GMT</pubDate></item>" for k in range(3))
    return (f"<?xml version='1.0'?><rss version='2.0'><channel><title>{title}</title>"
            f"<link>http://example.org/{title}/</link>{extra}{items}</channel></rss>").encode()


class Host(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", headers=()):
        self.status = status
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def do_GET(self):
        port = self.server.server_address[1]
        entry = {
            "start": time.time(), "port": port, "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
        }
        try:
            self.serve(port)
        finally:
            entry["end"] = time.time()
            entry["status"] = getattr(self, "status", 0)
            with lock:
                log.append(entry)

    def serve(self, port):
        path, _, query = self.path.partition("?")
        asked = dict(part.split("=", 1) for part in query.split("&") if "=" in part)
        name = path.rsplit("/", 1)[-1]
        feed = ("Content-Type", "application/rss+xml")
        if name == "etag.xml":
            etag, modified = 'W/"x-1\\"odd"', "Monday, 01-Jan-24 00:00:00 GMT"
            if self.headers.get("If-None-Match") == etag and self.headers.get("If-Modified-Since") == modified:
                return self.answer(304, headers=[("ETag", etag)])
            return self.answer(200, rss("etag"), [feed, ("ETag", etag), ("Last-Modified", modified)])
        if name == "rotating.xml":
            with lock:
                current = rotation.get(port, 0)
                if current and self.headers.get("If-None-Match") == f'"v{current}"':
                    rotation[port] = current + 1
                    return self.answer(304, headers=[("ETag", f'"v{current + 1}"')])
                rotation[port] = current + 1
                return self.answer(200, rss("rotating"), [feed, ("ETag", f'"v{current + 1}"')])
        if name == "plain.xml":
            return self.answer(200, rss("plain"), [feed])
        if name == "maxage.xml":
            return self.answer(200, rss("maxage"), [feed, ("Cache-Control", "max-age=172800")])
        if name == "expires.xml":
            now = time.time()
            return self.answer(200, rss("expires"), [
                feed, ("Date", email.utils.formatdate(now, usegmt=True)),
                ("Expires", email.utils.formatdate(now + 3 * 86400, usegmt=True))])
        if name == "ttl.xml":
            return self.answer(200, rss("ttl", "<ttl>180</ttl>"), [feed])
        if name == "retry.xml":
            return self.answer(429, b"slow down", [("Retry-After", "7200")])
        if name.startswith("busy-"):
            return self.answer(429, b"slow down", [("Retry-After", "14400")])
        if name.startswith("fail-"):
            return self.answer(500, b"broken")
        if name == "gzip.xml":
            body = rss("gzip")
            headers = [feed, ("Set-Cookie", "session=abc; Path=/")]
            if "gzip" in self.headers.get("Accept-Encoding", ""):
                body = gzip.compress(body)
                headers.append(("Content-Encoding", "gzip"))
            return self.answer(200, body, headers)
        if name == "moved.xml":
            return self.answer(301, headers=[("Location", "/new.xml")])
        if name == "temp.xml":
            return self.answer(302, headers=[("Location", "/temp-target.xml")])
        if name == "gone.xml":
            return self.answer(410)
        if name == "missing.xml":
            return self.answer(404)
        if name == "challenge.xml":
            page = b"<!DOCTYPE html><html><head><title>Just a moment...</title></head><body></body></html>"
            return self.answer(403, page, [("Content-Type", "text/html"), ("cf-mitigated", "challenge")])
        if name == "challenge-page.xml":
            page = (b"<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>"
                    b"<script src='/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1'></script></body></html>")
            return self.answer(200, page, [("Content-Type", "text/html")])
        if name == "skip.xml":
            skip = "<skipDays><day>Saturday</day></skipDays><skipHours>" + "".join(
                f"<hour>{h}</hour>" for h in range(6)) + "</skipHours>"
            return self.answer(200, rss("skip", skip), [feed])
        time.sleep(float(asked.get("delay", 0)))
        return self.answer(200, rss(name), [feed])


class Control(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        path, _, query = self.path.partition("?")
        asked = dict(part.split("=", 1) for part in query.split("&") if "=" in part)
        with lock:
            if path == "/reset":
                log.clear()
                rotation.clear()
            body = json.dumps(log[int(asked.get("from", 0)):]).encode()
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
