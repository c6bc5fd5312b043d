/// The theme built into feedmerge: the page a planet gets without
/// `--theme`. It reads the planet document (`PlanetDocument`) and the
/// parameters every theme gets (`PlanetPage.parameterNames`):
/// - entries grouped by day, newest first, each with its title linked, its
///   feed (linked to the feed's site), author, time and content (summaries
///   with `--summary-only`), already sanitized;
/// - the subscriptions with their status and feed links; links to the
///   merged feeds and the OPML;
/// - no script at all, and a Content-Security-Policy that allows none;
///   landmarks (header, nav, main, aside, footer), one `h1`, days as `h2`,
///   entries as `h3`; colours with at least 7:1 contrast, light and dark;
///   one column on a phone, two on a wide screen; long code lines and wide
///   tables wrap instead of scrolling in a box (a scrolling box that takes no
///   keyboard focus fails axe's `scrollable-region-focusable`).
enum DefaultTheme {
    static let stylesheet = #"""
        <?xml version="1.0" encoding="utf-8"?>
        <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
            xmlns:atom="http://www.w3.org/2005/Atom" xmlns:xhtml="http://www.w3.org/1999/xhtml"
            xmlns:planet="http://planet.intertwingly.net/" xmlns:feedmerge="urn:feedmerge:page"
            xmlns="http://www.w3.org/1999/xhtml" exclude-result-prefixes="atom xhtml planet feedmerge">
          <xsl:output method="xml" encoding="utf-8"/>
          <xsl:param name="name"/>
          <xsl:param name="generated"/>
          <xsl:param name="generated-text"/>
          <xsl:param name="atom"/>
          <xsl:param name="rss"/>
          <xsl:param name="json"/>
          <xsl:param name="opml"/>
          <xsl:key name="day" match="atom:entry" use="substring(atom:updated, 1, 10)"/>

          <xsl:template match="/atom:feed">
            <html lang="en">
              <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <meta http-equiv="Content-Security-Policy"
                  content="default-src 'none'; img-src http: https: data:; media-src http: https:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"/>
                <meta name="referrer" content="strict-origin-when-cross-origin"/>
                <meta name="generator" content="{atom:generator}"/>
                <title><xsl:value-of select="atom:title"/></title>
                <xsl:call-template name="alternate">
                  <xsl:with-param name="href" select="$atom"/>
                  <xsl:with-param name="type">application/atom+xml</xsl:with-param>
                  <xsl:with-param name="label">Atom</xsl:with-param>
                </xsl:call-template>
                <xsl:call-template name="alternate">
                  <xsl:with-param name="href" select="$rss"/>
                  <xsl:with-param name="type">application/rss+xml</xsl:with-param>
                  <xsl:with-param name="label">RSS</xsl:with-param>
                </xsl:call-template>
                <xsl:call-template name="alternate">
                  <xsl:with-param name="href" select="$json"/>
                  <xsl:with-param name="type">application/feed+json</xsl:with-param>
                  <xsl:with-param name="label">JSON Feed</xsl:with-param>
                </xsl:call-template>
                <style>
        :root { color-scheme: light dark; --fg: #1b1b1b; --bg: #ffffff; --muted: #454545; --link: #0a4fb8;
          --line: #d0d0d0; --panel: #f4f4f2; --bad: #9b0019; --warn: #6b4200; }
        @media (prefers-color-scheme: dark) {
          :root { --fg: #ececec; --bg: #141617; --muted: #c4c4c4; --link: #9cc2ff; --line: #3b3f42;
            --panel: #1e2123; --bad: #ffa8a8; --warn: #f5cf85; } }
        * { box-sizing: border-box; }
        body { margin: 0; color: var(--fg); background: var(--bg);
          font: 1.0625rem/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        a[href] { color: var(--link); }
        a:not([href]) { color: inherit; text-decoration: none; }
        a:focus-visible { outline: 3px solid var(--link); outline-offset: 2px; }
        .skip { position: absolute; left: -10000px; }
        .skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: .5rem; }
        header.site, footer.site, .layout { max-width: 75rem; margin: 0 auto; padding: 0 1rem; }
        header.site { padding-top: 1.5rem; padding-bottom: 1rem; border-bottom: 1px solid var(--line); }
        header.site h1 { margin: 0 0 .25rem; font-size: 1.9rem; line-height: 1.2; overflow-wrap: anywhere; }
        nav ul, .subscriptions ul { list-style: none; margin: 0; padding: 0; }
        nav li { display: inline-block; margin-right: 1rem; }
        .layout { display: grid; grid-template-columns: minmax(0, 1fr); gap: 2.5rem; padding-top: 1rem; }
        .layout > * { min-width: 0; }
        @media (min-width: 62rem) { .layout { grid-template-columns: minmax(0, 1fr) 19rem; } }
        main section > h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; padding-bottom: .25rem;
          border-bottom: 2px solid var(--line); }
        .content h1, .content h2, .content h3, .content h4, .content h5, .content h6 { font-size: 1.05rem; margin: 1rem 0 .5rem; }
        article { margin: 0 0 2.25rem; }
        article h3 { font-size: 1.35rem; line-height: 1.3; margin: .75rem 0 .25rem; overflow-wrap: anywhere; }
        .meta { color: var(--muted); font-size: .95rem; margin: 0 0 .75rem; overflow-wrap: anywhere; }
        .meta .face { width: 1.5rem; height: 1.5rem; border-radius: 50%; object-fit: cover; vertical-align: middle;
          margin-right: .4rem; }
        .content { overflow-wrap: anywhere; }
        .content * { max-width: 100%; }
        .content img, .content video, .content picture, .content iframe { max-width: 100%; height: auto; }
        .content pre { white-space: pre-wrap; padding: .75rem; background: var(--panel); }
        .content table { max-width: 100%; border-collapse: collapse; }
        .content th, .content td { border: 1px solid var(--line); padding: .25rem .5rem; vertical-align: top; }
        .content blockquote { margin: 1rem 0; padding-left: 1rem; border-left: 3px solid var(--line); }
        .content.text { white-space: pre-line; }
        .enclosures { list-style: none; padding: 0; margin: .75rem 0 0; }
        .enclosures li { margin: 0 0 .5rem; overflow-wrap: anywhere; }
        .enclosures audio, .enclosures video { display: block; width: 100%; max-width: 100%; margin: 0 0 .25rem; }
        .enclosures .details { color: var(--muted); }
        aside { font-size: .95rem; }
        aside h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; }
        .subscriptions li { padding: .4rem 0; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
        .subscriptions .status { display: block; color: var(--muted); font-size: .9rem; }
        .subscriptions .failing .status, .subscriptions .gone .status { color: var(--bad); }
        .subscriptions .stale .status, .subscriptions .partial .status { color: var(--warn); }
        footer.site { border-top: 1px solid var(--line); margin-top: 2rem; padding-top: 1rem; padding-bottom: 2rem;
          color: var(--muted); font-size: .95rem; }
                </style>
              </head>
              <body>
                <a class="skip" href="#entries">Skip to the entries</a>
                <header class="site">
                  <h1><xsl:value-of select="atom:title"/></h1>
                  <xsl:if test="$atom != '' or $rss != '' or $json != '' or $opml != ''">
                    <nav aria-label="Subscribe to this planet">
                      <ul>
                        <xsl:if test="$atom != ''"><li><a href="{$atom}" type="application/atom+xml">Atom feed</a></li></xsl:if>
                        <xsl:if test="$rss != ''"><li><a href="{$rss}" type="application/rss+xml">RSS feed</a></li></xsl:if>
                        <xsl:if test="$json != ''"><li><a href="{$json}" type="application/feed+json">JSON Feed</a></li></xsl:if>
                        <xsl:if test="$opml != ''"><li><a href="{$opml}" type="text/x-opml">Subscriptions (OPML)</a></li></xsl:if>
                      </ul>
                    </nav>
                  </xsl:if>
                </header>
                <div class="layout">
                  <main id="entries">
                    <!-- The first entry of each day (Muenchian grouping: a key lookup, not a walk back). -->
                    <xsl:for-each select="atom:entry[generate-id()
                        = generate-id(key('day', substring(atom:updated, 1, 10))[1])]">
                      <section aria-labelledby="day-{position()}">
                        <h2 id="day-{position()}">
                          <time datetime="{substring(atom:updated, 1, 10)}"><xsl:value-of select="atom:updated/@feedmerge:day"/></time>
                        </h2>
                        <xsl:apply-templates select="key('day', substring(atom:updated, 1, 10))"/>
                      </section>
                    </xsl:for-each>
                    <xsl:if test="not(atom:entry)">
                      <p>No entries yet.</p>
                    </xsl:if>
                  </main>
                  <aside aria-labelledby="subscriptions">
                    <h2 id="subscriptions">Subscriptions</h2>
                    <div class="subscriptions">
                      <ul>
                        <xsl:apply-templates select="planet:source">
                          <xsl:sort select="translate(planet:name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"/>
                        </xsl:apply-templates>
                      </ul>
                    </div>
                  </aside>
                </div>
                <footer class="site">
                  <p>
                    <xsl:text>Last updated </xsl:text>
                    <time datetime="{$generated}"><xsl:value-of select="atom:updated/@feedmerge:day"/>
                      <xsl:text> at </xsl:text><xsl:value-of select="atom:updated/@feedmerge:time"/></time>
                    <xsl:text> UTC by </xsl:text>
                    <xsl:value-of select="atom:generator"/>
                    <xsl:text>.</xsl:text>
                  </p>
                </footer>
              </body>
            </html>
          </xsl:template>

          <!-- The subscriptions alone, each as the page lists it, in the order given: feedmerge makes a
               long list with this a part at a time, and sorts the items as the page's xsl:sort does. -->
          <xsl:template match="/feedmerge:subscriptions">
            <ul><xsl:apply-templates select="planet:source"/></ul>
          </xsl:template>

          <xsl:template name="alternate">
            <xsl:param name="href"/>
            <xsl:param name="type"/>
            <xsl:param name="label"/>
            <xsl:if test="$href != ''">
              <link rel="alternate" type="{$type}" href="{$href}" title="{/atom:feed/atom:title} ({$label})"/>
            </xsl:if>
          </xsl:template>

          <!-- The text, linked when there is an address (a feed may give none). -->
          <xsl:template name="linked">
            <xsl:param name="href"/>
            <xsl:param name="text"/>
            <xsl:choose>
              <xsl:when test="string($href) != ''"><a href="{$href}"><xsl:value-of select="$text"/></a></xsl:when>
              <xsl:otherwise><xsl:value-of select="$text"/></xsl:otherwise>
            </xsl:choose>
          </xsl:template>

          <xsl:template match="atom:entry">
            <article>
              <xsl:if test="@xml:lang"><xsl:attribute name="lang"><xsl:value-of select="@xml:lang"/></xsl:attribute></xsl:if>
              <h3>
                <xsl:variable name="title">
                  <xsl:choose>
                    <xsl:when test="normalize-space(atom:title) != ''"><xsl:value-of select="atom:title"/></xsl:when>
                    <xsl:otherwise>(untitled)</xsl:otherwise>
                  </xsl:choose>
                </xsl:variable>
                <xsl:call-template name="linked">
                  <xsl:with-param name="href" select="atom:link[@rel='alternate']/@href"/>
                  <xsl:with-param name="text" select="$title"/>
                </xsl:call-template>
              </h3>
              <p class="meta">
                <xsl:variable name="face" select="atom:source/planet:face"/>
                <xsl:if test="starts-with($face, 'https://') or starts-with($face, 'http://')">
                  <img class="face" src="{$face}" alt="" width="24" height="24" loading="lazy"/>
                </xsl:if>
                <xsl:call-template name="linked">
                  <xsl:with-param name="href" select="atom:source/atom:link[@rel='alternate']/@href"/>
                  <xsl:with-param name="text" select="atom:source/planet:name"/>
                </xsl:call-template>
                <xsl:choose>
                  <xsl:when test="atom:author/atom:name">
                    <xsl:text> · by </xsl:text>
                    <xsl:for-each select="atom:author/atom:name">
                      <xsl:if test="position() > 1"><xsl:text>, </xsl:text></xsl:if>
                      <xsl:value-of select="."/>
                    </xsl:for-each>
                  </xsl:when>
                  <xsl:when test="atom:source/atom:author/atom:name">
                    <xsl:text> · by </xsl:text>
                    <xsl:value-of select="atom:source/atom:author[1]/atom:name"/>
                  </xsl:when>
                </xsl:choose>
                <xsl:text> · </xsl:text>
                <time datetime="{atom:updated}"><xsl:value-of select="atom:updated/@feedmerge:time"/> UTC</time>
              </p>
              <xsl:choose>
                <xsl:when test="atom:content"><xsl:apply-templates select="atom:content"/></xsl:when>
                <xsl:otherwise><xsl:apply-templates select="atom:summary"/></xsl:otherwise>
              </xsl:choose>
              <xsl:if test="atom:link[@rel='enclosure']">
                <ul class="enclosures">
                  <xsl:apply-templates select="atom:link[@rel='enclosure']"/>
                </ul>
              </xsl:if>
            </article>
          </xsl:template>

          <!-- An enclosure: a player for audio and video (nothing loads before it is played),
               and always a link to the file, with its type, size and duration. -->
          <xsl:template match="atom:link[@rel='enclosure']">
            <xsl:variable name="kind" select="substring-before(@type, '/')"/>
            <li>
              <xsl:if test="$kind = 'audio'">
                <audio controls="" preload="none" src="{@href}"/>
              </xsl:if>
              <xsl:if test="$kind = 'video'">
                <video controls="" preload="none" src="{@href}"/>
              </xsl:if>
              <a href="{@href}">
                <xsl:choose>
                  <xsl:when test="$kind = 'audio'">Download the audio</xsl:when>
                  <xsl:when test="$kind = 'video'">Download the video</xsl:when>
                  <xsl:otherwise>Download the attached file</xsl:otherwise>
                </xsl:choose>
              </a>
              <xsl:variable name="details">
                <xsl:if test="@type"><xsl:value-of select="@type"/></xsl:if>
                <xsl:if test="@length &gt; 0">
                  <xsl:if test="@type">, </xsl:if>
                  <xsl:choose>
                    <xsl:when test="@length &gt;= 1048576"><xsl:value-of select="format-number(@length div 1048576, '0.0')"/> MB</xsl:when>
                    <xsl:otherwise><xsl:value-of select="format-number(@length div 1024, '0')"/> KB</xsl:otherwise>
                  </xsl:choose>
                </xsl:if>
                <xsl:if test="@feedmerge:duration &gt; 0">
                  <xsl:if test="@type or @length &gt; 0">, </xsl:if>
                  <xsl:call-template name="duration"><xsl:with-param name="seconds" select="@feedmerge:duration"/></xsl:call-template>
                </xsl:if>
              </xsl:variable>
              <xsl:if test="string($details) != ''">
                <span class="details"> (<xsl:value-of select="$details"/>)</span>
              </xsl:if>
            </li>
          </xsl:template>

          <!-- 3723 seconds as 1:02:03, 125 as 2:05. -->
          <xsl:template name="duration">
            <xsl:param name="seconds"/>
            <xsl:variable name="hours" select="floor($seconds div 3600)"/>
            <xsl:variable name="minutes" select="floor(($seconds mod 3600) div 60)"/>
            <xsl:if test="$hours &gt; 0"><xsl:value-of select="$hours"/>:</xsl:if>
            <xsl:value-of select="format-number($minutes, substring('00', 1, 1 + ($hours &gt; 0)))"/>
            <xsl:text>:</xsl:text>
            <xsl:value-of select="format-number($seconds mod 60, '00')"/>
          </xsl:template>

          <xsl:template match="atom:content | atom:summary">
            <xsl:choose>
              <xsl:when test="xhtml:div">
                <div class="content"><xsl:copy-of select="xhtml:div/node()"/></div>
              </xsl:when>
              <xsl:when test="normalize-space(.) != ''">
                <div class="content text"><xsl:value-of select="."/></div>
              </xsl:when>
            </xsl:choose>
          </xsl:template>

          <xsl:template match="planet:source">
            <li class="{feedmerge:status}">
              <xsl:call-template name="linked">
                <xsl:with-param name="href" select="atom:link[@rel='alternate']/@href"/>
                <xsl:with-param name="text" select="planet:name"/>
              </xsl:call-template>
              <xsl:text> (</xsl:text>
              <a href="{atom:link[@rel='self']/@href}" type="application/xml" aria-label="{planet:name}: feed">feed</a>
              <xsl:text>)</xsl:text>
              <span class="status">
                <xsl:choose>
                  <xsl:when test="feedmerge:status = 'failing'">
                    <xsl:text>Failing</xsl:text>
                    <xsl:if test="feedmerge:failing-since">
                      <xsl:text> since </xsl:text>
                      <xsl:value-of select="feedmerge:failing-since/@feedmerge:day"/>
                    </xsl:if>
                    <xsl:if test="planet:message">
                      <xsl:text>: </xsl:text><xsl:value-of select="planet:message"/>
                    </xsl:if>
                  </xsl:when>
                  <xsl:when test="feedmerge:status = 'gone'">
                    <xsl:text>Gone: the server says the feed was removed</xsl:text>
                  </xsl:when>
                  <xsl:when test="feedmerge:status = 'partial'">
                    <xsl:text>Read in part</xsl:text>
                    <xsl:if test="feedmerge:partial">
                      <xsl:text>: </xsl:text><xsl:value-of select="feedmerge:partial"/>
                    </xsl:if>
                  </xsl:when>
                  <xsl:when test="feedmerge:status = 'stale'">
                    <xsl:text>Stale: nothing new since </xsl:text>
                    <xsl:value-of select="atom:updated/@feedmerge:day"/>
                  </xsl:when>
                  <xsl:when test="feedmerge:status = 'deferred'">
                    <xsl:text>OK (not asked this time: not due yet, or the server asked to wait)</xsl:text>
                  </xsl:when>
                  <xsl:otherwise><xsl:text>OK</xsl:text></xsl:otherwise>
                </xsl:choose>
              </span>
            </li>
          </xsl:template>
        </xsl:stylesheet>
        """#
}
