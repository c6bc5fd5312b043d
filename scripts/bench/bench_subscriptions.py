#!/usr/bin/env python3
"""What a page of every subscription costs a render: N small local feeds
(two items each; every 97th missing, so that it fails) listed in OPML files
of at most 100,000 feeds (a list file is read within --max-bytes), stored
in a SQLite state by one run of BINARY, then, for each binary (BINARY and
each --compare), `feedmerge render LISTS --state S` writing the page
(`-o page.html`, the default theme) and, apart, the JSON Feed alone
(`-o all.json`, the render without a page), each under /usr/bin/time:
wall time, CPU and peak RSS; the commands interleaved, median of --runs.
The pages of every binary must be byte for byte the same.

    bench_subscriptions.py BINARY [--feeds 100000[,300000...]] [--runs 3] [--compare BINARY]...
"""
import argparse, os, shutil, statistics, subprocess, tempfile

NOW = "2024-02-01T00:00:00Z"
NAMES = ["beta", "Alpha", "alpha", "Émile", "zeta", "Zoë", "Same", "_x", "日本", "Ω"]


def make(folder, feeds):
    """The feeds and their lists; returns the lists' paths."""
    os.makedirs(os.path.join(folder, "f"))
    outlines = []
    for i in range(feeds):
        path = os.path.join(folder, "f", "%d.xml" % i)
        if i % 97:
            with open(path, "w") as out:
                out.write(
                    '<rss version="2.0"><channel><title>Feed %d</title><link>https://example.org/%d/</link>'
                    '<item><title>Entry %d a</title><link>https://example.org/%d/1</link><guid>urn:f:%d:1</guid>'
                    '<pubDate>Mon, 01 Jan 2024 %02d:%02d:00 GMT</pubDate><description>One line.</description></item>'
                    '<item><title>Entry %d b</title><link>https://example.org/%d/2</link><guid>urn:f:%d:2</guid>'
                    '<pubDate>Sun, 31 Dec 2023 %02d:00:00 GMT</pubDate></item></channel></rss>'
                    % (i, i, i, i, i, i % 24, i % 60, i, i, i, i % 24))
        outlines.append('<outline type="rss" text="%s %d" xmlUrl="%s"/>' % (NAMES[i % 10], i * 7919 % feeds, path))
    lists = []
    for start in range(0, feeds, 100000):
        path = os.path.join(folder, "list-%d.opml" % start)
        with open(path, "w") as out:
            out.write('<?xml version="1.0" encoding="utf-8"?><opml version="2.0"><head><title>subscriptions</title>'
                      '</head><body>\n%s\n</body></opml>\n' % "\n".join(outlines[start:start + 100000]))
        lists.append(path)
    return lists


def timed(cmd):
    """(wall s, CPU s, peak MB) of one command under /usr/bin/time."""
    result = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M"] + cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    wall, user, system, kib = result.stderr.strip().splitlines()[-1].split()
    if result.returncode not in (0, 1):  # 1: the missing feeds failed
        raise SystemExit("%s: exit %d\n%s" % (" ".join(cmd), result.returncode, result.stderr[-2000:]))
    return float(wall), float(user) + float(system), int(kib) * 1024 / 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--feeds", default="100000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--compare", action="append", default=[])
    args = ap.parse_args()
    binaries = [os.path.abspath(args.binary)] + [os.path.abspath(b) for b in args.compare]
    for feeds in [int(n) for n in args.feeds.split(",")]:
        work = tempfile.mkdtemp(prefix="bench-subscriptions-")
        try:
            lists = make(work, feeds)
            state = os.path.join(work, "state.sqlite")
            stored = timed([binaries[0]] + lists + ["--state", state, "-o", os.path.join(work, "first.json"),
                                                    "--now", NOW, "-q"])
            rows = {}
            for _ in range(args.runs):
                for number, binary in enumerate(binaries):
                    for output in ("page.html", "all.json"):
                        out = os.path.join(work, "%d-%s" % (number, output))
                        measured = timed([binary, "render"] + lists + ["--state", state, "--now", NOW, "-q",
                                                                       "-o", out])
                        rows.setdefault((binary, output), []).append(measured)
            pages = {open(os.path.join(work, "%d-page.html" % n), "rb").read() for n in range(len(binaries))}
            print("%d feeds (%d lists), stored in %.1f s; render, median of %d, interleaved; the pages %s"
                  % (feeds, len(lists), stored[0], args.runs,
                     "byte for byte the same" if len(pages) == 1 else "DIFFER"))
            print("| binary | output | wall s | CPU s | peak RSS MB |")
            print("| --- | --- | --- | --- | --- |")
            for (binary, output), measured in rows.items():
                wall, cpu, peak = (statistics.median(m[k] for m in measured) for k in range(3))
                print("| %s | %s | %.2f | %.2f | %.0f |" % (os.path.basename(binary), output, wall, cpu, peak))
            print("page: %.1f MB" % (os.path.getsize(os.path.join(work, "0-page.html")) / 1e6))
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
