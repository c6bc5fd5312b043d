import HTMLSanitizer

/// The addresses the page may link to outside the sanitized content
/// (entry, feed and site links, authors' pages, enclosures): those the
/// sanitizer allows in an `href` (http, https, mailto), so that a feed's
/// `javascript:` link never becomes a link on the page.
enum PageLink {
    static func safe(_ url: String) -> String? { HTMLSanitizer.webLink(url) }
}
