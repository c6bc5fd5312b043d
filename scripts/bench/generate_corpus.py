#!/usr/bin/env python3
"""Deterministic synthetic feed corpus for the benchmarks.

    generate_corpus.py OUT_DIR [FEEDS]

Writes OUT_DIR/feeds/0000.xml ... 0999.xml (RSS 2.0 and Atom 1.0 halves,
20-100 entries, HTML content in CDATA and escaped, mixed date formats,
8-230 KB each, ~60 MB and ~60,000 entries in all), OUT_DIR/json/00.json ...
99.json (JSON Feed 1.1), and OUT_DIR/big/big0.xml ... big2.xml (three ~20 MB
feeds). The same seed gives the same bytes. With FEEDS above 1,000 (the
scale benchmark's 10,000), the feeds past the first 1,000 are written last,
from the same generator: a larger corpus holds the 1,000-feed one unchanged.
"""
import html
import json
import os
import random
import sys

WORDS = ("feed merge planet atom channel entry author swift libxml parse fetch timeline river "
         "news post blog update release note community open source linux kernel compiler test "
         "bench memory thread queue socket cache server client request response header body").split()
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def sentence(r, n):
    return " ".join(r.choice(WORDS) for _ in range(n)).capitalize()


def paragraph_html(r, size):
    parts = []
    while sum(len(p) for p in parts) < size:
        w = sentence(r, r.randint(8, 20))
        parts.append('<p>%s <a href="https://example.org/%s">%s</a> <em>%s</em>.</p>'
                     % (w, r.choice(WORDS), r.choice(WORDS), sentence(r, 3)))
    return "\n".join(parts)


def date_string(r, t, style):
    y, mo, d = 2020 + t // 360, 1 + (t // 30) % 12, 1 + t % 28
    h, mi, s = r.randint(0, 23), r.randint(0, 59), r.randint(0, 59)
    if style == 0:
        return "%s, %02d %s %d %02d:%02d:%02d GMT" % (DAYS[d % 7], d, MONTHS[mo - 1], y, h, mi, s)
    if style == 1:
        return "%s, %d %s %d %02d:%02d:%02d +0200" % (DAYS[d % 7], d, MONTHS[mo - 1], y, h, mi, s)
    if style == 2:
        return "%d-%02d-%02dT%02d:%02d:%02dZ" % (y, mo, d, h, mi, s)
    return "%d-%02d-%02dT%02d:%02d:%02d.123-05:00" % (y, mo, d, h, mi, s)


def rss(r, index, entries, body_size):
    items = []
    for k in range(entries):
        content = paragraph_html(r, body_size)
        cdata = k % 2 == 0
        desc = "<![CDATA[%s]]>" % content if cdata else html.escape(content, quote=False)
        items.append(
            "<item><title>%s</title><link>https://blog%d.example.org/post/%d</link>"
            "<guid isPermaLink=\"false\">blog%d-%d</guid><pubDate>%s</pubDate>"
            "<dc:creator>%s</dc:creator><category>%s</category><description>%s</description></item>"
            % (html.escape(sentence(r, 6)), index, k, index, k, date_string(r, k * 3 + index, k % 2),
               sentence(r, 2), r.choice(WORDS), desc))
    return ('<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0" '
            'xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>Blog %d</title>'
            "<link>https://blog%d.example.org/</link><description>%s</description>\n%s\n</channel></rss>\n"
            % (index, index, sentence(r, 8), "\n".join(items)))


def atom(r, index, entries, body_size):
    out = []
    for k in range(entries):
        content = paragraph_html(r, body_size)
        body = "<![CDATA[%s]]>" % content if k % 2 else html.escape(content, quote=False)
        out.append(
            "<entry><title>%s</title><link href=\"https://site%d.example.org/%d.html\"/>"
            "<id>tag:site%d.example.org,2020:%d</id><updated>%s</updated><published>%s</published>"
            "<author><name>%s</name></author><category term=\"%s\"/>"
            "<summary>%s</summary><content type=\"html\">%s</content></entry>"
            % (html.escape(sentence(r, 6)), index, k, index, k, date_string(r, k * 3 + index, 2 + k % 2),
               date_string(r, k * 3 + index, 2), sentence(r, 2), r.choice(WORDS), sentence(r, 12), body))
    return ('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
            "<title>Site %d</title><id>tag:site%d.example.org,2020:feed</id>"
            "<updated>2024-01-01T00:00:00Z</updated><link href=\"https://site%d.example.org/\"/>\n%s\n</feed>\n"
            % (index, index, index, "\n".join(out)))


def jsonfeed(r, index):
    items = [{"id": "j%d-%d" % (index, k), "url": "https://json%d.example.org/%d" % (index, k),
              "title": sentence(r, 6), "content_html": paragraph_html(r, 800),
              "date_published": date_string(r, k + index, 2)} for k in range(r.randint(20, 60))]
    return json.dumps({"version": "https://jsonfeed.org/version/1.1", "title": "JSON %d" % index,
                       "home_page_url": "https://json%d.example.org/" % index, "items": items})


def write_feed(r, out, i):
    entries = r.randint(20, 100)
    # 8-230 KB per file, ~60 KB on average: the body size per entry follows the entry count.
    target = 8_000 + int(222_000 * r.random() ** 3)  # skewed: most feeds are small
    body = max(60, int((target // entries - 420) * 0.72))  # paragraphs overshoot their target
    text = rss(r, i, entries, body) if i % 2 == 0 else atom(r, i, entries, body)
    with open(os.path.join(out, "feeds", "%04d.xml" % i), "w") as f:
        f.write(text)


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    r = random.Random(20261130)
    for sub in ("feeds", "json", "big"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    for i in range(min(count, 1000)):
        write_feed(r, out, i)
    for i in range(100):
        with open(os.path.join(out, "json", "%02d.json" % i), "w") as f:
            f.write(jsonfeed(r, i))
    for i in range(3):
        text = (rss if i % 2 == 0 else atom)(r, 5000 + i, 5200, 3400)
        with open(os.path.join(out, "big", "big%d.xml" % i), "w") as f:
            f.write(text)
    for i in range(1000, count):
        write_feed(r, out, i)


if __name__ == "__main__":
    main()
