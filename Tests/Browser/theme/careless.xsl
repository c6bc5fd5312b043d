<?xml version="1.0"?>
<!-- A theme that puts feed text where a careless theme author would: in comments
     (debugging notes), in script and style, in title, textarea, noscript and iframe
     content, and in attributes inside them. scripts/browser-check loads the page it
     makes from theme/hostile-titles.xml: no canary may fire. -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:atom="http://www.w3.org/2005/Atom">
  <xsl:output method="html"/>
  <xsl:template match="/atom:feed">
    <html><head><title><xsl:value-of select="atom:entry[1]/atom:title"/></title>
      <style>/* <xsl:value-of select="atom:entry[1]/atom:title"/> */</style></head>
    <body>
      <xsl:for-each select="atom:entry">
        <xsl:comment> entry: <xsl:value-of select="atom:title"/> </xsl:comment>
        <xsl:comment><xsl:value-of select="atom:title"/></xsl:comment>
        <script>var title = "<xsl:value-of select="atom:title"/>";</script>
        <textarea><xsl:value-of select="atom:title"/></textarea>
        <noscript><p title="{atom:title}"><xsl:value-of select="atom:title"/></p></noscript>
        <iframe><b title="{atom:title}">frame</b></iframe>
        <h2 class="entry-title"><xsl:value-of select="atom:title"/></h2>
      </xsl:for-each>
    </body></html>
  </xsl:template>
</xsl:stylesheet>
