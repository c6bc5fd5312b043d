"""Serves the team's real-world feed captures (../shared/corpora/realworld
beside the repository) on 127.0.0.1: GET /<file> as listed in MANIFEST.tsv,
as application/xml with no charset, so that each document says its own
encoding and every program that reads them (feedmerge, and Planet Venus and
Planet 2.0 in the differential test) reads it as XML."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from loopback import serve  # noqa: E402
import http.server  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "../../../../shared/corpora/realworld"))


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        path = os.path.normpath(os.path.join(ROOT, self.path.lstrip("/")))
        if not path.startswith(ROOT + os.sep) or not os.path.isfile(path):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with open(path, "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


serve(Handler)
