#!/usr/bin/env python3
"""Makes the seed corpus of each fuzz target from the repository's own test
documents, plus ../shared/corpora when it is there.

    python3 Fuzz/seeds.py OUT_DIR [SHARED_CORPORA]

Writes OUT_DIR/<target>/<n>: one input per file, in the format the target's
LLVMFuzzerTestOneInput reads (see each target's opening comment). The state
target's stored forms are made afterwards by scripts/fuzz, by running
fuzz-state over its feed seeds with FEEDMERGE_FUZZ_EMIT.
"""
import hashlib
import html
import json
import os
import re
import sys
import xml.etree.ElementTree as ElementTree

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LARGEST = 256 * 1024  # larger documents slow every mutation; the small ones cover the same code

DATES = [
    "2004-01-01T19:48:21Z", "2004-01-01T19:48:21.123+05:30", "2004-01-01", "2004-01", "2004", "20040101T194821Z",
    "Thu, 01 Jan 2004 19:48:21 GMT", "Thu, 1 Jan 04 19:48 EST", "01 Jan 2004 19:48:21 +0100 (CET)",
    "Thu Jan  1 19:48:21 2004", "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
    "2003-12-31T10:14:55-08:00", "2003-12-31 10:14:55", "2004-02-29T24:00:00Z", "1999-12-31T23:59:60Z",
    "Mi, 21 Okt 2009 12:00:00 +0200", "2004년 1월 1일 오후 7:48:21", "星期四, 01 一月 2004", "  2004-01-01T00:00:00Z  ",
    "Tue, 30 Nov 2004 03:19:37 -0800", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00+14:00", "",
]

LINKS = [
    ("http://example.com/blog/post.html", "../other/./a.html?x=1#top"),
    ("https://Example.COM:443/a/b/c", "//cdn.example.com/img.png"),
    ("http://a.example/b #x", "http://a.example/b?utm_source=x&y=2"),
    ("http://a/b/c/d;p?q", "g;x?y#s"), ("http://a/b/c/d;p?q", "../../../g"), ("http://a/b/c/d;p?q", "?y"),
    ("urn:isbn:0451450523", "relative"), ("", "http://[::1]:80/x/../y/"), ("mailto:a@example.com", "#frag"),
    ("http://xn--bcher-kva.example/", "%7Euser/%2e%2E/x"), ("tag:example.com,2004:1", "/abs"),
    ("HTTP://EXAMPLE.COM", "  javascript:alert(1)  "), ("http://a.example", "data:image/png;base64,AAAA"),
    ("http://a.example/path/", "\tspaced path/ with\nnewline"), ("file:///etc/passwd", "x"),
]

TEMPLATES = [
    '<a title="<TMPL_VAR title>" href=<TMPL_VAR link>><TMPL_VAR name></a><!-- <TMPL_VAR name> -->',
    "<TMPL_LOOP Items><p title='<TMPL_VAR name ESCAPE=\"HTML\">'><TMPL_VAR title></p></TMPL_LOOP>",
    "<script>var a = '<TMPL_VAR author_name>';</script><style><TMPL_VAR name></style>",
    "<TMPL_IF count><TMPL_INCLUDE x.tmpl><TMPL_ELSE><TMPL_UNLESS name>n</TMPL_UNLESS></TMPL_IF>",
    "<!-- TMPL_VAR NAME=\"name\" ESCAPE=\"URL\" --> ### comment\n<TMPL_VAR __PASS__>",
]

OPML = [
    b'<?xml version="1.0" encoding="UTF-8"?>\n<opml version="2.0"><head><title>Blogs</title><ownerName>A</ownerName>'
    b'<ownerEmail>a@example.com</ownerEmail><ownerId>http://example.com/</ownerId></head><body>'
    b'<outline text="Tech"><outline type="rss" text="One" xmlUrl="http://one.example/feed" htmlUrl="http://one.example/"/>'
    b'<outline text="Nested"><outline type="atom" title="Two &amp; more" xmlUrl="http://two.example/atom.xml?a=1&amp;b=2"/>'
    b'</outline></outline><outline text="Three" xmlurl="  http://three.example/rss  "/>'
    b'<outline text="folder feed" xmlUrl="http://four.example/f"><outline text="inner" xmlUrl="http://five.example/f"/></outline>'
    b'<outline text="no url"/><outline type="link" text="L" url="http://x.example"/></body></opml>\n',
    '<?xml version="1.0" encoding="ISO-8859-1"?><opml version="1.0"><head><title>Caf\xe9</title></head><body>'
    '<outline title="Caf\xe9" xmlUrl="http://caf\xe9.example/feed"/><!-- <outline xmlUrl="http://commented.example/"/> -->'
    '<outline text="x" xmlUrl="http://dup.example/feed"/><outline text="y" xmlUrl="HTTP://DUP.example/feed"/></body></opml>'
    .encode("latin-1"),
    '<?xml version="1.0" encoding="UTF-16"?><opml version="2.0"><body><outline text="\u00e9t\u00e9" '
    'xmlUrl="http://utf16.example/feed"/></body></opml>'.encode("utf-16"),
    b'<opml><body><outline text="a" xmlUrl="http://a.example/&#x41;&#66;"/><outline text="b" '
    b"xmlUrl='http://b.example/\"q\"'/></body></opml>",
]

HTML = [
    "<p>Hello <b>world</b> <a href=\"/x\" onclick=\"evil()\">link</a></p><script>alert(1)</script>",
    "<img src=x onerror=alert(1)><img srcset=\"a.png 1x, javascript:alert(1) 2x\">",
    "<table><tr><td>a<td>b</table><svg><script>x</script></svg><math><mi>x</mi></math>",
    "<a href=\"java&#x09;script:alert(1)\">x</a><a href=\"  http://ok.example/\">ok</a>",
    "<div style=\"color:red; background:url(javascript:x)\">styled</div><p style=\"width: 10px\">ok</p>",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></noscript>",
    "<form><input name=x><button formaction=javascript:x>b</button></form>text<template><b>t</b></template>",
    "<pre>\nfirst line</pre><textarea><b>raw</b></textarea><xmp><i>raw</i></xmp><plaintext>rest",
    "<a href=a><a href=b>nested</a></a><p><div>foster</div></p><li>x<li>y",
    "<object data=x><p>fallback</p></object><iframe src=x>gone</iframe><embed src=x>",
    "<img src=\"data:image/png;base64,iVBORw0KGgo=\"><img src=\"data:text/html,<script>\">",
    "<!-- comment --><![CDATA[ x ]]><?php echo 1 ?>&lt;not a tag&gt; &amp;amp; &nbsp; &#0; &#x110000;",
]


def write(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def files_under(*folders):
    for folder in folders:
        for base, _, names in os.walk(folder):
            for name in sorted(names):
                path = os.path.join(base, name)
                if name in ("LICENSE", "MANIFEST.tsv", "expectations.json", "feedparser_reference.json"):
                    continue
                if os.path.getsize(path) <= LARGEST:
                    yield path


def html_values(paths, limit):
    """The escaped-HTML values of feed documents (content, description, summary)."""
    found = []
    for path in paths:
        try:
            tree = ElementTree.parse(path)
        except (ElementTree.ParseError, ValueError, LookupError):
            continue  # not XML to Python, or an encoding it does not know (fuzz findings kept as fixtures)
        for element in tree.iter():
            if element.text and "<" in element.text and len(element.text) < 20000:
                found.append(element.text)
        if len(found) >= limit:
            break
    return found[:limit]


def links_in(paths, limit):
    found = []
    for path in paths:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        for match in re.finditer(r'(?:href|url|xmlUrl)="([^"]{1,300})"|<link>([^<]{1,300})</link>', text):
            found.append(html.unescape(match.group(1) or match.group(2)))
        if len(found) >= limit:
            break
    return found[:limit]


def main():
    out = sys.argv[1]
    shared = sys.argv[2] if len(sys.argv) > 2 and os.path.isdir(sys.argv[2]) else None
    tests = os.path.join(ROOT, "Tests")
    own_feeds = list(files_under(
        os.path.join(tests, "FeedParseTests", "Fixtures"), os.path.join(tests, "AggregatorTests", "Fixtures"),
        os.path.join(tests, "FeedEmitTests", "Golden")))
    shared_feeds = list(files_under(os.path.join(shared, "feedparser"), os.path.join(shared, "realworld"))) if shared else []
    feeds = own_feeds + shared_feeds
    counts = {}

    def add(target, data):
        counts[target] = counts.get(target, 0) + 1
        data = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        write(os.path.join(out, target), hashlib.sha1(data).hexdigest(), data)

    for path in feeds:
        with open(path, "rb") as f:
            data = f.read()
        add("parse", data)
        if len(data) <= 64 * 1024:
            add("state", b"\x00" + data)
        if b"<opml" in data[:4096].lower():
            add("opml", data)  # the subscription lists among the documents (and the OPML findings kept as tests)

    dates = list(DATES)
    if shared and os.path.exists(os.path.join(shared, "dates.json")):
        with open(os.path.join(shared, "dates.json")) as f:
            document = json.load(f)
        cases = document.get("cases", document) if isinstance(document, dict) else document
        for case in cases if isinstance(cases, list) else []:
            if isinstance(case, dict):
                value = case.get("input", case.get("date", case.get("string")))
                if isinstance(value, str):
                    dates.append(value)
    for date in dates:
        add("dates", date)

    opml = list(OPML)
    with open(os.path.join(ROOT, "feeds.opml"), "rb") as f:
        opml.append(f.read())
    for document in opml:
        add("opml", document)

    links = list(LINKS)
    for link in links_in(feeds, 600):
        links.append(("http://feed.example/blog/", link))
    for base, reference in links:
        add("links", base + "\n" + reference)

    values = list(HTML) + html_values(feeds, 1500)
    for index, value in enumerate(values):
        add("sanitize", ("http://feed.example/blog/post.html\n" if index % 2 else "") + value)

    # Templates: the repository's own test templates, and Planet 2.0's and Venus's when present.
    template_folders = [tests] + ([os.path.join(shared, "venus", "themes"), os.path.join(shared, "planet2")] if shared else [])
    for path in files_under(*template_folders):
        if path.endswith(".tmpl"):
            with open(path, "rb") as f:
                add("template", f.read()[:16384])
    for template in TEMPLATES:
        add("template", template)

    print("seeds: " + ", ".join(f"{target} {count}" for target, count in sorted(counts.items()))
          + ("" if shared else " (../shared/corpora not present: the repository's own documents only)"))


if __name__ == "__main__":
    main()
