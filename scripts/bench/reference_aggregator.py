#!/usr/bin/env python3
"""The Python reference aggregator of the end-to-end benchmark: a thread
pool fetching with urllib, a feed parser from PyPI, one sort, an Atom file.

    reference_aggregator.py URL_FILE OUTPUT --jobs N [--parser feedparser_rs|feedparser]
"""
import argparse
import concurrent.futures
import time
import urllib.request
from xml.sax.saxutils import escape


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("urls")
    ap.add_argument("output")
    ap.add_argument("--jobs", type=int, default=16)
    ap.add_argument("--parser", default="feedparser_rs")
    args = ap.parse_args()
    parser = __import__(args.parser)
    urls = [u.strip() for u in open(args.urls) if u.strip()]

    def work(url):
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                feed = parser.parse(response.read())
        except Exception:
            return []
        out = []
        for e in feed.entries:
            stamp = e.get("published_parsed") or e.get("updated_parsed")
            when = time.mktime(tuple(stamp)[:9]) if stamp else 0
            out.append((when, e.get("title") or "", e.get("link") or "", e.get("id") or e.get("link") or "",
                        e.get("summary") or ""))
        return out

    entries = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for result in pool.map(work, urls):
            entries.extend(result)
    entries.sort(key=lambda e: e[0], reverse=True)
    with open(args.output, "w") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
                "<title>reference</title><id>urn:reference</id><updated>2024-01-01T00:00:00Z</updated>\n")
        for when, title, link, ident, summary in entries:
            f.write("<entry><title>%s</title><link href=\"%s\"/><id>%s</id><updated>%s</updated>"
                    "<summary type=\"html\">%s</summary></entry>\n"
                    % (escape(title), escape(link, {'"': "&quot;"}), escape(ident),
                       time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when)), escape(summary)))
        f.write("</feed>\n")


if __name__ == "__main__":
    main()
