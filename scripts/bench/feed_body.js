// bench-workers' feeds made by nginx (njs) from their number: /f/N.xml is
// feed N, the same bytes as feed_text(N) in bench_workers.py (one algorithm,
// kept in step by the benchmark's check, which compares the two), with an
// ETag and a Last-Modified of its own and 304 to a conditional GET that
// names them.

var WORDS = ('feed merge worker lease claim host socket latency queue due fetch parse entry channel item '
    + 'server client request response header body cache etag modified planet river news post blog '
    + 'update release note community open source linux kernel compiler test bench memory thread').split(' ');
var NEWEST = 1767225600; // 2026-01-01: feed N's newest item is (N mod 100,000) hours earlier
var SPAN = 100000;
// Each feed asks to be polled at most daily (RSS ttl, minutes): a run is one pass over the feeds,
// even one that takes longer than the hour a feed would otherwise be due again after.
var TTL = 1440;

// A 32-bit linear congruential generator seeded by the feed's number; next(n)
// is an integer in [0, n) from the state's high 16 bits.
function Draw(i) {
    this.s = Math.imul(i, 0x9E3779B1) >>> 0;
}
Draw.prototype.next = function (n) {
    this.s = (Math.imul(this.s, 1664525) + 1013904223) >>> 0;
    return Math.floor((this.s >>> 16) * n / 65536);
};
// n words, one space between two (next(WORDS.length) each, inlined: most of the work is here).
Draw.prototype.words = function (n) {
    var s = this.s;
    var count = WORDS.length;
    var text = '';
    for (var k = 0; k < n; k++) {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        text += (k ? ' ' : '') + WORDS[((s >>> 16) * count) >>> 16];
    }
    this.s = s;
    return text;
};
Draw.prototype.sentence = function (n) {
    var text = this.words(n);
    return text.charAt(0).toUpperCase() + text.slice(1);
};

// "Thu, 01 Jan 2026 00:00:00 GMT" (RFC 1123, as HTTP and RSS write dates)
var DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
var MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
function two(n) {
    return n < 10 ? '0' + n : '' + n;
}
function httpDate(seconds) {
    var d = new Date(seconds * 1000);
    return DAYS[d.getUTCDay()] + ', ' + two(d.getUTCDate()) + ' ' + MONTHS[d.getUTCMonth()] + ' '
        + d.getUTCFullYear() + ' ' + two(d.getUTCHours()) + ':' + two(d.getUTCMinutes()) + ':'
        + two(d.getUTCSeconds()) + ' GMT';
}

// Feed i: RSS 2.0, 8 items, about 5 KB. Returns the body and its newest date (Unix seconds).
function feed(i) {
    var r = new Draw(i);
    var newest = NEWEST - (i % SPAN) * 3600;
    var first = 0;
    var items = [];
    for (var k = 0; k < 8; k++) {
        var when = newest - k * 86400 - r.next(86400);
        if (k == 0) {
            first = when;
        }
        var link = 'https://blog' + i + '.example.org/' + k + '/' + i;
        var title = r.sentence(6);
        var description = '&lt;p&gt;' + r.sentence(22) + ' &lt;a href="' + link + '"&gt;' + r.words(2)
            + '&lt;/a&gt;.&lt;/p&gt;&lt;p&gt;' + r.sentence(18) + '.&lt;/p&gt;';
        items.push('<item><title>' + title + '</title><link>' + link + '</link>'
            + '<guid isPermaLink="false">feed' + i + '-item' + k + '</guid><pubDate>' + httpDate(when)
            + '</pubDate><description>' + description + '</description></item>');
    }
    var body = '<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>Feed ' + i
        + '</title><link>https://blog' + i + '.example.org/</link><description>' + r.sentence(8)
        + '</description><ttl>' + TTL + '</ttl>\n' + items.join('\n') + '\n</channel></rss>\n';
    return {body: body, modified: first};
}

// Whether the request's validators match: If-None-Match (a list, or *) when
// sent, else If-Modified-Since (an HTTP date) at or after Last-Modified.
function notModified(r, etag, modified) {
    var match = r.headersIn['If-None-Match'];
    if (match !== undefined) {
        return match.split(',').some(function (tag) {
            tag = tag.trim();
            return tag == '*' || tag == etag || tag == 'W/' + etag;
        });
    }
    var since = r.headersIn['If-Modified-Since'];
    if (since !== undefined) {
        var when = Date.parse(since);
        return !isNaN(when) && when >= modified * 1000;
    }
    return false;
}

function serve(r) {
    var m = /^\/f\/(\d{1,9})\.xml$/.exec(r.uri);
    if (!m) {
        r.return(404);
        return;
    }
    var made = feed(parseInt(m[1], 10));
    var etag = '"' + made.modified.toString(16) + '-' + made.body.length.toString(16) + '"';
    r.headersOut['ETag'] = etag;
    r.headersOut['Last-Modified'] = httpDate(made.modified);
    if (notModified(r, etag, made.modified)) {
        r.return(304);
        return;
    }
    r.headersOut['Content-Type'] = 'application/rss+xml';
    r.return(200, made.body);
}

export default {serve};
