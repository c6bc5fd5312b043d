#!/usr/bin/env python3
"""What the planet page costs: the main command at its default settings
(state on, --limit 1000, default jobs) on the 1,000-feed corpus served by
nginx on 127.0.0.1, writing the three feeds, then the same run with
`-o index.html` added: the default theme at its default cap (60 entries),
then 1,000 entries on the page (`--page-items 0`) with the default XSLT
theme and with an htmltmpl theme (scripts/bench/planet.html.tmpl, shaped as
Planet 2.0's fancy index). A first run with a fresh state and an unchanged
second run (all 304) each; the commands interleaved, median of N (default 5).
With `--compare BINARY`, that binary's run with `-o index.html` (its own
defaults) is a row too.

    bench_page.py CORPUS_DIR BINARY [--runs N] [--compare BINARY]
"""
import sys, os, glob, tempfile, statistics, subprocess
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_fetch import start_nginx
from timing import timed

corpus, binary = sys.argv[1], sys.argv[2]
runs = int(sys.argv[sys.argv.index('--runs') + 1]) if '--runs' in sys.argv else 5
folder = os.path.abspath(os.path.join(corpus, 'feeds'))  # nginx reads a relative root from its prefix
names = sorted(os.path.basename(f) for f in glob.glob(folder + '/*.xml'))
work = tempfile.mkdtemp()
nginx, port = start_nginx(folder, work)
urls = ['http://127.0.0.1:%d/%s' % (port, n) for n in names]


compare = sys.argv[sys.argv.index('--compare') + 1] if '--compare' in sys.argv else None
template = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'planet.html.tmpl')
# label: (binary, page options; None: no page)
setups = {
    'feeds only': (binary, None),
    'feeds + index.html': (binary, []),
    '1,000 entries, XSLT': (binary, ['--page-items', '0']),
    '1,000 entries, tmpl': (binary, ['--page-items', '0', '--theme', template]),
}
if compare:
    setups['compared binary + page'] = (compare, [])
rows = {label: [] for label in setups}
try:
    for r in range(runs):
        for label, (program, page) in setups.items():
            o = os.path.join(work, 'o')
            outs = [o + '.atom', o + '.rss', o + '.json']
            extra = []
            if page is not None:
                outs.append(os.path.join(work, 'index.html'))
                extra = ['-o', outs[-1]] + page
            state = os.path.join(work, 'state-%d-%d.sqlite' % (list(rows).index(label), r))
            cmd = [program] + urls + ['-o', outs[0], '-o', outs[1], '-o', outs[2]] + extra + [
                '--state', state, '-q', '--link', 'http://bench.example/']
            first = timed(cmd, outs)
            second = timed(cmd, outs)
            rows[label].append((first, second))
finally:
    nginx.terminate()

print('the planet page at the default settings (state on, --limit 1000), %d feeds via nginx on 127.0.0.1, '
      'median of %d, interleaved' % (len(urls), runs))
print('%-24s %22s %12s %10s %20s' % ('', 'first run wall / CPU', 'peak RSS', '', 'unchanged 2nd run'))
base = None
for label, samples in rows.items():
    wall = statistics.median(s[0][0] for s in samples)
    cpu = statistics.median(s[0][1] for s in samples)
    rss = statistics.median(s[0][2] for s in samples)
    second = statistics.median(s[1][0] for s in samples)
    base = base or (wall, cpu, second)
    print('%-24s %9.2f s / %6.2f s %9.0f MB %9.2fx %12.2f s (%.2fx)' % (
        label, wall, cpu, rss, wall / base[0], second, second / base[2]))

# What the page itself costs on the unchanged run (its feeds all 304): the run minus the feeds-only run.
second = {label: statistics.median(s[1][0] for s in samples) for label, samples in rows.items()}
xslt = second['1,000 entries, XSLT'] - second['feeds only']
tmpl = second['1,000 entries, tmpl'] - second['feeds only']
print('a 1,000-entry page on the unchanged run: XSLT %.2f s, htmltmpl %.2f s (%.2fx)' % (xslt, tmpl, tmpl / xslt))
