#!/usr/bin/env python3
"""What a reader sees in one planet output, as JSON, for the differential test.

    view.py FILE     prints {"kind": ..., "entries": [...], "subscriptions": [...]}

Pages (*.html) are read as a browser would (html.parser, character references
decoded, whitespace collapsed): each entry in order with the day heading and
channel it sits under, its title, link and the date line as shown; the
sidebar's subscriptions with their links and marks (the class and title
Planet's themes put on a name: "no activity in N days", an HTTP status).
Feeds (Atom, RSS 2.0, RSS 1.0) are read as XML: each entry's title, link, the
instant its date means, author and source name. OPML and FOAF lists give
their subscriptions in order. Content bodies are not compared.
"""
import email.utils
import html.parser
import json
import re
import sys
import xml.etree.ElementTree as ET
from datetime import datetime, timezone

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}


def clean(text):
    return re.sub(r"\s+", " ", text or "").strip()


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def walk(self):
        for c in self.children:
            if isinstance(c, Node):
                yield c
                yield from c.walk()

    def classes(self):
        return (self.attrs.get("class") or "").split()


class Tree(html.parser.HTMLParser):
    """A forgiving tree: an end tag closes up to its matching open element."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.open = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.open)
        self.open.children.append(node)
        if tag not in VOID:
            self.open = node

    def handle_startendtag(self, tag, attrs):
        self.open.children.append(Node(tag, attrs, self.open))

    def handle_endtag(self, tag):
        node = self.open
        while node is not self.root and node.tag != tag:
            node = node.parent
        if node is not self.root:
            self.open = node.parent

    def handle_data(self, data):
        self.open.children.append(data)


def is_entry(node):
    return node.tag == "div" and ("entrygroup" in node.classes() or "news" in node.classes())


def page(source):
    tree = Tree()
    tree.feed(source)
    tree.close()
    entries, subscriptions = [], []
    day, channel = None, None
    inside = set()
    for node in tree.root.walk():
        if id(node) in inside:
            continue
        if node.tag == "h2" and not any(a.tag == "div" and "sidebar" in a.classes() for a in ancestors(node)):
            day = clean(node.text())
        elif node.tag == "h3":
            channel = clean(node.text())
        elif is_entry(node):
            inside.update(id(n) for n in node.walk())
            entries.append(entry_of(node, day, channel))
        elif node.tag == "li":
            anchors = [a for a in node.children if isinstance(a, Node) and a.tag == "a"]
            if anchors and anchors[0].attrs.get("title") == "subscribe":
                name = anchors[1] if len(anchors) > 1 else None
                subscriptions.append({
                    "feed": anchors[0].attrs.get("href"),
                    "name": clean(name.text()) if name else None,
                    "link": name.attrs.get("href") if name else None,
                    "mark": clean(" ".join(filter(None, [name.attrs.get("class"), name.attrs.get("title")])))
                    if name else None,
                })
    title = next((clean(n.text()) for n in tree.root.walk() if n.tag == "title"), None)
    return {"kind": "page", "title": title, "entries": entries, "subscriptions": subscriptions}


def ancestors(node):
    while node.parent is not None:
        node = node.parent
        yield node


def entry_of(node, day, channel):
    heading = next((n for n in node.walk() if n.tag in ("h3", "h4")), None)
    anchors = [n for n in heading.walk() if n.tag == "a"] if heading else []
    if len(anchors) >= 2:  # asf, musings, mobile: the channel's name, then the entry's title
        channel = clean(anchors[0].text())
    title_anchor = anchors[-1] if anchors and (len(anchors) >= 2 or heading.tag == "h4") else None
    shown = next((n for n in node.walk() if "permalink" in n.classes() or (n.tag == "p" and "date" in n.classes())),
                 None)
    return {
        "day": day,
        "channel": channel,
        "title": clean(title_anchor.text()) if title_anchor else None,
        "link": title_anchor.attrs.get("href") if title_anchor else None,
        "shown": clean(shown.text()) if shown else None,
    }


NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "planet": "http://planet.intertwingly.net/",
    "rss1": "http://purl.org/rss/1.0/",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "dc": "http://purl.org/dc/elements/1.1/",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
}


def instant(text):
    """The UTC instant a feed's date means, or the text itself when unreadable."""
    text = clean(text)
    if not text:
        return None
    try:
        moment = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return "unreadable: " + text
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def find(element, path):
    found = element.find(path, NS)
    return clean("".join(found.itertext())) if found is not None else None


def feed(root):
    entries = []
    if root.tag == "{%s}feed" % NS["atom"]:
        for e in root.findall("atom:entry", NS):
            link = next((l.get("href") for l in e.findall("atom:link", NS) if l.get("rel", "alternate") == "alternate"),
                        None)
            entries.append({"title": find(e, "atom:title"), "link": link,
                            "date": instant(find(e, "atom:updated") or find(e, "atom:published")),
                            "author": find(e, "atom:author/atom:name"),
                            "source": find(e, "atom:source/planet:name") or find(e, "atom:source/atom:title")})
        return {"kind": "atom", "title": find(root, "atom:title"), "entries": entries}
    if root.tag == "rss":
        for e in root.findall("channel/item"):
            entries.append({"title": find(e, "title"), "link": find(e, "link"), "date": instant(find(e, "pubDate")),
                            "author": find(e, "dc:creator") or find(e, "author"), "id": find(e, "guid")})
        return {"kind": "rss20", "title": find(root, "channel/title"), "entries": entries}
    for e in root.findall("rss1:item", NS):
        entries.append({"title": find(e, "rss1:title"), "link": find(e, "rss1:link"),
                        "date": instant(find(e, "dc:date")), "author": find(e, "dc:creator"),
                        "id": e.get("{%s}about" % NS["rdf"])})
    return {"kind": "rss10", "title": find(root, "rss1:channel/rss1:title"), "entries": entries}


def opml(root):
    subscriptions = [{"name": o.get("text"), "title": o.get("title"), "feed": o.get("xmlUrl"), "link": o.get("htmlUrl")}
                     for o in root.iter("outline") if o.get("xmlUrl")]
    return {"kind": "opml", "title": find(root, "head/title"), "subscriptions": subscriptions}


def foaf(root):
    subscriptions = []
    for agent in root.iter("{%s}Agent" % NS["foaf"]):
        document = agent.find("foaf:weblog/foaf:Document", NS)
        channel = agent.find(".//rss1:channel", NS)
        if channel is None:
            channel = agent.find(".//{http://purl.org/rss/1.0/}channel")
        subscriptions.append({
            "name": find(agent, "foaf:name"),
            "link": document.get("{%s}about" % NS["rdf"]) if document is not None else None,
            "title": find(document, "dc:title") if document is not None else None,
            "feed": channel.get("{%s}about" % NS["rdf"]) if channel is not None else None,
        })
    return {"kind": "foaf", "subscriptions": subscriptions}


def view(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".html"):
        return page(data.decode("utf-8", "replace"))
    try:
        root = ET.fromstring(data)
    except ET.ParseError as error:
        return {"kind": "malformed", "error": "not well-formed XML: %s" % error}
    if root.tag == "opml":
        return opml(root)
    if root.find("foaf:Group", NS) is not None or root.tag == "{%s}Group" % NS["foaf"]:
        return foaf(root)
    return feed(root)


if __name__ == "__main__":
    json.dump(view(sys.argv[1]), sys.stdout, ensure_ascii=False, indent=1)
