#!/usr/bin/env python3
"""A planet on 127.0.0.1 for the end-to-end test: an OPML with nested
folders over 48 healthy feeds in every format (RSS 2.0, 0.91, 1.0, Atom 1.0,
0.3, JSON Feed 1.1), with entries shared across feeds, undated and
future-dated entries, plus five broken feeds (404, 500, not XML, an HTML
page, a server that never answers).

Prints the port; serves /planet.opml, /feed/N, the broken paths, and
/expected.json (the entry ids the merged output must hold, each once).
Exits when its stdin closes.
"""
import http.server
import json
import time

from loopback import serve

FORMATS = ["rss2", "atom", "rdf", "json", "atom03", "rss091"]
HEALTHY = 48
BROKEN = {"/broken/404": 404, "/broken/500": 500, "/broken/notxml": 200, "/broken/html": 200, "/broken/hang": 0}


def entries_of(n):
    """Five entries per feed. Entry 0 of feed n is shared with feed n+1
    (same id); entry 1 of every 8th feed has no date; entry 2 of every 10th
    feed is dated in 2099."""
    out = []
    for k in range(5):
        e = {"id": "urn:planet:%d:%d" % (n, k), "title": "Feed %d entry %d & more" % (n, k),
             "link": "http://planet.example/%d/%d" % (n, k),
             "date": "2024-%02d-%02dT%02d:%02d:00Z" % (1 + n % 12, 1 + k * 5, n % 24, k * 7)}
        if k == 0 and n > 0:
            e["id"] = "urn:planet:shared:%d" % (n - 1)  # also carried by feed n-1 as its entry 4
            e["link"] = "http://planet.example/shared/%d" % (n - 1)
        if k == 4 and n < HEALTHY - 1:
            e["id"] = "urn:planet:shared:%d" % n
            e["link"] = "http://planet.example/shared/%d" % n
        if k == 1 and n % 8 == 0:
            e["date"] = None
        if k == 2 and n % 10 == 0:
            e["date"] = "2099-01-01T00:00:00Z"
        out.append(e)
    return out


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def rfc822(iso):
    t = time.strptime(iso, "%Y-%m-%dT%H:%M:%SZ")
    return time.strftime("%a, %d %b %Y %H:%M:%S GMT", t)


def render(n):
    fmt = FORMATS[n % len(FORMATS)]
    es = entries_of(n)
    if fmt == "rss2" or fmt == "rss091":
        items = "".join(
            "<item><title>%s</title><link>%s</link><guid isPermaLink=\"false\">%s</guid>%s<description>&lt;p&gt;Body %s&lt;/p&gt;</description></item>"
            % (esc(e["title"]), e["link"], e["id"], "<pubDate>%s</pubDate>" % rfc822(e["date"]) if e["date"] else "", e["id"])
            for e in es)
        version = "2.0" if fmt == "rss2" else "0.91"
        return "application/rss+xml", '<?xml version="1.0"?><rss version="%s"><channel><title>Feed %d</title><link>http://planet.example/%d/</link><description>d</description>%s</channel></rss>' % (version, n, n, items)
    if fmt == "atom":
        items = "".join(
            "<entry><title>%s</title><link href=\"%s\"/><id>%s</id>%s<content type=\"html\">&lt;p&gt;Body %s&lt;/p&gt;</content></entry>"
            % (esc(e["title"]), e["link"], e["id"], "<updated>%s</updated>" % e["date"] if e["date"] else "", e["id"])
            for e in es)
        return "application/atom+xml", '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Feed %d</title><id>urn:feed:%d</id><link href="http://planet.example/%d/"/>%s</feed>' % (n, n, n, items)
    if fmt == "atom03":
        items = "".join(
            "<entry><title>%s</title><link rel=\"alternate\" type=\"text/html\" href=\"%s\"/><id>%s</id>%s</entry>"
            % (esc(e["title"]), e["link"], e["id"], "<issued>%s</issued><modified>%s</modified>" % (e["date"], e["date"]) if e["date"] else "")
            for e in es)
        return "application/atom+xml", '<?xml version="1.0"?><feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>Feed %d</title><link rel="alternate" type="text/html" href="http://planet.example/%d/"/>%s</feed>' % (n, n, items)
    if fmt == "rdf":
        items = "".join(
            "<item rdf:about=\"%s\"><title>%s</title><link>%s</link><dc:identifier>%s</dc:identifier>%s</item>"
            % (e["link"], esc(e["title"]), e["link"], e["id"], "<dc:date>%s</dc:date>" % e["date"] if e["date"] else "")
            for e in es)
        return "application/rdf+xml", '<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel rdf:about="http://planet.example/%d/"><title>Feed %d</title><link>http://planet.example/%d/</link><description>d</description></channel>%s</rdf:RDF>' % (n, n, n, items)
    items = []
    for e in es:
        item = {"id": e["id"], "url": e["link"], "title": e["title"], "content_html": "<p>Body %s</p>" % e["id"]}
        if e["date"]:
            item["date_published"] = e["date"]
        items.append(item)
    return "application/feed+json", json.dumps({"version": "https://jsonfeed.org/version/1.1", "title": "Feed %d" % n,
                                                "home_page_url": "http://planet.example/%d/" % n, "items": items})


def expected_groups():
    """The entries the merged output must hold, each exactly once: entries
    that share an id or a link are one entry. Each group lists the ids any
    of its copies carries (RSS 1.0 items are identified by rdf:about, their link)."""
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    ids_of = []
    for n in range(HEALTHY):
        for e in entries_of(n):
            own_id = e["link"] if FORMATS[n % len(FORMATS)] == "rdf" else e["id"]
            names = ["id:" + own_id, "link:" + e["link"]]
            parent[find(names[0])] = find(names[1])
            ids_of.append((names[0], own_id))
    groups = {}
    for name, own_id in ids_of:
        groups.setdefault(find(name), set()).add(own_id)
    return sorted(sorted(g) for g in groups.values())


def opml(port):
    base = "http://127.0.0.1:%d" % port
    groups = []
    for g in range(4):
        outlines = "".join('<outline type="rss" text="Feed %d" xmlUrl="%s/feed/%d"/>' % (n, base, n)
                           for n in range(HEALTHY) if n % 4 == g)
        groups.append('<outline text="Group %d"><outline text="Inner %d">%s</outline></outline>' % (g, g, outlines))
    broken = "".join('<outline text="broken %s" xmlUrl="%s%s"/>' % (p, base, p) for p in BROKEN)
    return ('<?xml version="1.0"?><opml version="2.0"><head><title>Test Planet</title><ownerId>http://planet.example/</ownerId>'
            "<ownerName>Planet Owner</ownerName><ownerEmail>owner@planet.example</ownerEmail></head><body>"
            "%s<outline text=\"Broken\">%s</outline><outline text=\"a folder without feeds\"/>"
            '<outline text="Feed 0 again" xmlUrl="%s/feed/0"/></body></opml>' % ("".join(groups), broken, base))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="text/plain"):
        body = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type + "; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/planet.opml":
            self.send(200, opml(self.server.server_address[1]), "text/x-opml")
        elif self.path == "/subscriptions":  # an OPML list at a URL that does not say so
            self.send(200, opml(self.server.server_address[1]), "text/xml")
        elif self.path == "/expected.json":
            self.send(200, json.dumps(expected_groups()), "application/json")
        elif self.path.startswith("/feed/"):
            n = int(self.path.rsplit("/", 1)[1])
            content_type, body = render(n)
            self.send(200, body, content_type)
        elif self.path in ("/broken/404", "/broken/500"):
            self.send(BROKEN[self.path], "error")
        elif self.path == "/broken/notxml":
            self.send(200, "<<<this is not XML at all", "application/rss+xml")
        elif self.path == "/broken/html":
            self.send(200, "<!DOCTYPE html><html><body><p>moved</p></body></html>", "text/html")
        elif self.path.startswith("/blog/"):
            # A blog's home page: not a feed, but it advertises some (autodiscovery). Not XML:
            # unquoted attributes, an unclosed <br>, a comments feed listed first.
            n = int(self.path.rsplit("/", 1)[1])
            self.send(200, "<!DOCTYPE html><html><head><title>Blog %d</title>"
                      "<link rel=stylesheet href=/s.css>"
                      "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"Comments\" href=\"/broken/404\">"
                      "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"Posts\" href=\"../feed/%d\">"
                      "</head><body><p>Hello<br></body></html>" % (n, n), "text/html; charset=utf-8")
        elif self.path == "/broken/hang":
            time.sleep(60)
        else:
            self.send(404, "no")


serve(Handler)
