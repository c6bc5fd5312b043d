#!/usr/bin/env python3
"""Feeds whose entries share ids and links across sites, on 127.0.0.1, for
the test that one feed can never erase another's entries
(EntryOwnershipEndToEndTests). Each feed names its own site in its channel
link (they are all served from 127.0.0.1):

  /victim.xml      two posts of victim.example (permalink guids)
  /mallory.xml     mallory.example: one entry with the victim's first guid,
                   one with the victim's second link, each dated one second
                   before the victim's post, with Mallory's own text
  /aggregator.xml  news.aggregator.example re-publishing the victim's first
                   post (its original link) an hour later
  /person.xml      alice.example.com: one post
  /category.xml    www.example.com's category feed with the same post

Prints the port; exits when its stdin closes.
"""
import http.server

from loopback import serve


def item(guid, link, title, date, author):
    return ("<item><guid>%s</guid><link>%s</link><title>%s</title><pubDate>%s</pubDate>"
            "<dc:creator>%s</dc:creator><description>%s</description></item>" % (guid, link, title, date, author,
                                                                                  title))


def rss(title, link, items):
    return ('<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0" '
            'xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>%s</title><link>%s</link>'
            '<description>%s</description>%s</channel></rss>' % (title, link, title, "".join(items)))


FEEDS = {
    "/victim.xml": rss("Victim", "https://victim.example/", [
        item("https://victim.example/?p=1", "https://victim.example/2024/05/first/", "Victim first post",
             "Wed, 01 May 2024 10:00:00 GMT", "Vic Tim"),
        item("https://victim.example/?p=2", "https://victim.example/2024/05/second/", "Victim second post",
             "Thu, 02 May 2024 10:00:00 GMT", "Vic Tim"),
    ]),
    "/mallory.xml": rss("Mallory", "https://mallory.example/", [
        item("https://victim.example/?p=1", "https://mallory.example/a", "Mallory text by id",
             "Wed, 01 May 2024 09:59:59 GMT", "Mallory"),
        item("tag:mallory.example,2024:b", "http://victim.example/2024/05/second?utm_source=x",
             "Mallory text by link", "Thu, 02 May 2024 09:59:59 GMT", "Mallory"),
    ]),
    "/aggregator.xml": rss("Aggregator", "https://news.aggregator.example/", [
        item("https://news.aggregator.example/item/1", "https://victim.example/2024/05/first/",
             "Victim first post via aggregator", "Wed, 01 May 2024 11:00:00 GMT", "Aggregator"),
    ]),
    "/person.xml": rss("Alice", "https://alice.example.com/", [
        item("https://alice.example.com/?p=42", "https://alice.example.com/2024/05/post/", "Alice post",
             "Fri, 03 May 2024 10:00:00 GMT", "Alice"),
    ]),
    "/category.xml": rss("Swift category", "https://www.example.com/category/swift/", [
        item("https://alice.example.com/?p=42", "https://alice.example.com/2024/05/post/", "Alice post in category",
             "Fri, 03 May 2024 09:59:59 GMT", "Alice"),
    ]),
}


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        body = FEEDS.get(self.path.split("?")[0])
        if body is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = body.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


serve(Handler)
