#!/usr/bin/env python3
"""A feed server on 127.0.0.1 that records every request's headers, for the
tests of signed requests (SignedRequestTests). Any path is under a test's
own prefix, /PREFIX/...:

  /PREFIX/feed.xml       an RSS feed of one item
  /PREFIX/moved.xml      301 to /PREFIX/feed.xml (the same authority)
  /PREFIX/elsewhere.xml  302 to http://localhost:PORT/PREFIX/feed.xml (another authority)
  /log?prefix=/PREFIX/   the requests recorded under the prefix, as JSON:
                         [{"method", "path", "headers": [[name, value], ...]}]

Prints the port; exits when its stdin closes.
"""
import http.server
import json
import threading
import urllib.parse

from loopback import serve

FEED = (b'<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>Signed</title>'
        b'<link>https://signed.example/</link><description>d</description><item><guid>signed-1</guid>'
        b'<title>One</title><pubDate>Wed, 01 May 2024 10:00:00 GMT</pubDate></item></channel></rss>')

recorded = []
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/log":
            prefix = urllib.parse.parse_qs(url.query).get("prefix", [""])[0]
            with lock:
                mine = [r for r in recorded if r["path"].startswith(prefix)]
            self.send(200, json.dumps(mine).encode(), [("Content-Type", "application/json")])
            return
        with lock:
            recorded.append({"method": self.command, "path": self.path, "headers": list(self.headers.items())})
        folder, _, name = url.path.rpartition("/")
        if name == "feed.xml":
            self.send(200, FEED, [("Content-Type", "application/rss+xml")])
        elif name == "moved.xml":
            self.send(301, headers=[("Location", folder + "/feed.xml")])
        elif name == "elsewhere.xml":
            port = self.server.server_address[1]
            self.send(302, headers=[("Location", "http://localhost:%d%s/feed.xml" % (port, folder))])
        else:
            self.send(404)


serve(Handler)
