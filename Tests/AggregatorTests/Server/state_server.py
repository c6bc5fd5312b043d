#!/usr/bin/env python3
"""Feeds that change between runs, for the state tests, on 127.0.0.1.

/feed/NAME serves an RSS feed with ETag and Last-Modified (304 to a matching
conditional request). POST-free control: GET /set/NAME/MODE switches a
feed's behaviour for the following requests:
  ok        three dated entries and one undated
  drop      the oldest entry no longer listed
  fail      500
  gone      410
  retry     429 with Retry-After: 3600
  moved     301 to /feed/NAME-new (which serves the feed)
  temp      302 to /feed/NAME-new
  restamp   every entry dated at the time of the request
  edit      entry 1 gets a new title (same guid)
  backlog   twelve undated entries and nothing else
A NAME starting with "atom" serves an Atom feed with feed-level metadata
(id, updated, author, category), one starting with "json" a JSON Feed with
top-level authors; the failure modes apply to them too.
/order/P, /order/Q, /order/R serve three feeds whose entries chain by id
and link, each answered after the delay that /set/order-NAME/SECONDS set.
/big serves a 400-item feed (about 130 KB), for the size cap.
/hold serves a one-item feed once /release is asked (or after 300 s): a run
stays in the middle of its fetches for as long as a test needs; /rehold
makes the next /hold wait again.
/stats returns {path: [requests, 200s, 304s, body bytes]}; /reset clears
modes and counters. Prints the port; exits when stdin closes.
"""
import email.utils
import http.server
import json
import threading
import time

from loopback import serve

MODES = {}
STATS = {}
LOCK = threading.Lock()
HELD = threading.Event()


def atom_body(base):
    """An Atom feed whose metadata matters: id, updated, a feed-level author
    (one entry names its own, one does not), a category, a subtitle."""
    return ('<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">'
            "<title>%s</title><id>urn:uuid:%s-feed</id><updated>2024-01-09T00:00:00Z</updated>"
            '<subtitle>about %s</subtitle><link href="http://state.example/%s/"/>'
            "<author><name>Feed Author</name><email>feed@state.example</email></author>"
            '<category term="feed-topic"/>'
            "<entry><title>%s own author</title><id>urn:%s:a1</id><link href=\"http://state.example/%s/a1\"/>"
            "<updated>2024-01-08T10:00:00Z</updated><author><name>Entry Author</name></author></entry>"
            "<entry><title>%s inherits</title><id>urn:%s:a2</id><link href=\"http://state.example/%s/a2\"/>"
            "<updated>2024-01-07T10:00:00Z</updated></entry>"
            "</feed>" % ((base,) * 10)).encode()


def json_body(base):
    """A JSON Feed 1.1 with top-level authors and one item without any."""
    return json.dumps({
        "version": "https://jsonfeed.org/version/1.1", "title": base,
        "home_page_url": "http://state.example/%s/" % base,
        "authors": [{"name": "JSON Feed Author", "url": "http://state.example/%s/about" % base}],
        "items": [
            {"id": "urn:%s:j1" % base, "url": "http://state.example/%s/j1" % base, "title": "%s j1" % base,
             "content_text": "one", "date_published": "2024-01-06T10:00:00Z"},
            {"id": "urn:%s:j2" % base, "url": "http://state.example/%s/j2" % base, "title": "%s j2" % base,
             "content_text": "two", "date_published": "2024-01-05T10:00:00Z",
             "authors": [{"name": "Item Author"}]},
        ]}).encode()


def body(name, mode):
    base = name.replace("-new", "")
    if base.startswith("atom"):
        return atom_body(base)
    if base.startswith("json"):
        return json_body(base)
    items = []
    if mode == "backlog":
        items = ["<item><title>%s old %d</title><guid>urn:%s:old:%d</guid></item>" % (base, k, base, k) for k in range(12)]
        return ('<?xml version="1.0"?><rss version="2.0"><channel><title>%s</title><link>http://state.example/%s/</link>'
                "<description>d</description>%s</channel></rss>" % (base, base, "".join(items))).encode()
    for k in range(3):
        if mode == "drop" and k == 2:
            continue
        title = "%s entry %d" % (base, k)
        if mode == "edit" and k == 1:
            title += " (edited)"
        date = "Mon, %02d Jan 2024 10:00:00 GMT" % (10 - k)
        if mode == "restamp":
            date = email.utils.formatdate(time.time(), usegmt=True)
        items.append("<item><title>%s</title><link>http://state.example/%s/%d</link><guid>urn:%s:%d</guid>"
                     "<pubDate>%s</pubDate></item>" % (title, base, k, base, k, date))
    items.append("<item><title>%s undated</title><link>http://state.example/%s/undated</link>"
                 "<guid>urn:%s:undated</guid></item>" % (base, base, base))
    return ('<?xml version="1.0"?><rss version="2.0"><channel><title>%s</title><link>http://state.example/%s/</link>'
            "<description>d</description>%s</channel></rss>" % (base, base, "".join(items))).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def count(self, status, size):
        with LOCK:
            s = STATS.setdefault(self.path, [0, 0, 0, 0])
            s[0] += 1
            if status == 200:
                s[1] += 1
            if status == 304:
                s[2] += 1
            s[3] += size

    def reply(self, status, payload=b"", headers=(), count=True):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        if count:
            self.count(status, len(payload))

    def do_GET(self):
        parts = self.path.strip("/").split("/")
        if parts[0] == "set":
            with LOCK:
                MODES[parts[1]] = parts[2]
            return self.reply(200, b"ok", count=False)
        if parts[0] == "reset":
            with LOCK:
                MODES.clear()
                STATS.clear()
            return self.reply(200, b"ok", count=False)
        if parts[0] == "release":
            HELD.set()
            return self.reply(200, b"ok", count=False)
        if parts[0] == "rehold":
            HELD.clear()
            return self.reply(200, b"ok", count=False)
        if parts[0] == "hold":
            HELD.wait(300)
            payload = ('<?xml version="1.0"?><rss version="2.0"><channel><title>held</title>'
                       "<link>http://state.example/held/</link><description>d</description>"
                       "<item><title>held post</title><guid>urn:held</guid></item></channel></rss>").encode()
            return self.reply(200, payload, [("Content-Type", "application/rss+xml")])
        if parts[0] == "stats":
            with LOCK:
                payload = json.dumps(STATS).encode()
            return self.reply(200, payload, count=False)
        if parts[0] == "order":
            # /order/NAME: one of three feeds whose entries chain by id and link (P: urn:a at
            # link L; Q: urn:b at L; R: urn:a at M), answered after the delay /set/order-NAME/SECONDS set.
            name = parts[1]
            with LOCK:
                delay = float(MODES.get("order-" + name, "0"))
            time.sleep(delay)
            entry = {"P": ("urn:a", "http://order.example/L", "10"), "Q": ("urn:b", "http://order.example/L", "09"),
                     "R": ("urn:a", "http://order.example/M", "08")}[name]
            payload = ('<?xml version="1.0"?><rss version="2.0"><channel><title>%s</title>'
                       "<link>http://order.example/%s/</link><description>d</description>"
                       "<item><title>%s post</title><guid>%s</guid><link>%s</link>"
                       "<pubDate>Mon, %s Jun 2024 10:00:00 GMT</pubDate></item></channel></rss>"
                       % (name, name, name, entry[0], entry[1], entry[2])).encode()
            return self.reply(200, payload, [("Content-Type", "application/rss+xml")])
        if parts[0] == "big":
            # 400 items of about 300 bytes: a client with a small --max-bytes gets it cut short.
            items = "".join("<item><title>big %d</title><guid>urn:big:%d</guid><pubDate>Mon, 01 Jan 2024 %02d:%02d:00 GMT"
                            "</pubDate><description>%s</description></item>" % (k, k, k // 60 % 24, k % 60, "x" * 200)
                            for k in range(400))
            payload = ('<?xml version="1.0"?><rss version="2.0"><channel><title>big</title>'
                       "<link>http://state.example/big/</link><description>d</description>%s</channel></rss>"
                       % items).encode()
            if self.headers.get("If-None-Match") == '"big"':
                return self.reply(304, b"", [("ETag", '"big"')])
            return self.reply(200, payload, [("Content-Type", "application/rss+xml"), ("ETag", '"big"')])
        if parts[0] != "feed":
            return self.reply(404)
        name = parts[1]
        mode = MODES.get(name.replace("-new", ""), "ok")
        if not name.endswith("-new"):
            if mode == "fail":
                return self.reply(500, b"broken")
            if mode == "gone":
                return self.reply(410, b"gone")
            if mode == "retry":
                return self.reply(429, b"slow down", [("Retry-After", "3600")])
            if mode == "moved":
                return self.reply(301, b"", [("Location", "/feed/%s-new" % name)])
            if mode == "temp":
                return self.reply(302, b"", [("Location", "/feed/%s-new" % name)])
        payload = body(name, mode)
        etag = '"%x"' % (hash(payload) & 0xFFFFFFFF)
        last_modified = "Tue, 02 Jan 2024 00:00:00 GMT"
        if mode == "restamp":
            last_modified = email.utils.formatdate(time.time(), usegmt=True)
        if self.headers.get("If-None-Match") == etag:
            return self.reply(304, b"", [("ETag", etag)])
        kind = "atom+xml" if name.startswith("atom") else "feed+json" if name.startswith("json") else "rss+xml"
        self.reply(200, payload, [("Content-Type", "application/" + kind), ("ETag", etag),
                                  ("Last-Modified", last_modified)])


serve(Handler)
