#!/usr/bin/env python3
"""End-to-end benchmark: the 1,000-feed corpus on 127.0.0.1 (nginx); a full
feedmerge run writing Atom, RSS and JSON with every entry kept (and again
with --limit 100), beside sfeed_update + sfeed_atom and the Python
reference aggregator (thread pool + urllib + feedparser-rs, or feedparser
with --with-feedparser). Same job count for all. Median of N runs.

    bench_e2e.py CORPUS_DIR FEEDMERGE_BINARY [--runs N] [--jobs 16] [--with-feedparser] [--compare BINARY]

--compare adds the same feedmerge rows for another build (say, the code
before a change), interleaved with the others in every run.
"""
import argparse
import glob
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_fetch import check_outputs, remove, run, start_nginx  # noqa: E402
from timing import loopback_flags  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("feedmerge")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=16)
    ap.add_argument("--with-feedparser", action="store_true")
    ap.add_argument("--compare", metavar="BINARY", help="another feedmerge build, timed in the same runs")
    args = ap.parse_args()
    folder = os.path.abspath(os.path.join(args.corpus, "feeds"))
    names = sorted(os.path.basename(f) for f in glob.glob(os.path.join(folder, "*.xml")))
    work = tempfile.mkdtemp(prefix="bench-e2e-")
    nginx, port = start_nginx(folder, work)
    n = args.jobs
    try:
        urls = ["http://127.0.0.1:%d/%s" % (port, name) for name in names]
        url_file = os.path.join(work, "urls.txt")
        open(url_file, "w").write("\n".join(urls) + "\n")
        opml = os.path.join(work, "planet.opml")
        with open(opml, "w") as f:
            f.write('<?xml version="1.0"?><opml version="2.0"><head><title>bench</title></head><body>\n')
            for i, u in enumerate(urls):
                f.write('<outline text="feed %d" xmlUrl="%s"/>\n' % (i, u))
            f.write("</body></opml>\n")
        sfeedpath = os.path.join(work, "sfeed")
        rc = os.path.join(work, "sfeedrc")
        with open(rc, "w") as f:
            f.write('sfeedpath="%s"\nmaxjobs=%d\nfeeds() {\n' % (sfeedpath, n))
            for i, u in enumerate(urls):
                f.write('\tfeed "f%04d" "%s"\n' % (i, u))
            f.write("}\n")
        out = os.path.join(work, "out")
        common = ["--jobs", str(n), "--per-host", str(n), "--now", "2030-01-01T00:00:00Z", "-q", "--no-state",
                  "--link", "http://bench.example/"]
        def checked(cmd, outputs):
            # Every timed command must exit 0 (run() stops otherwise) and leave
            # non-empty outputs: a run that failed early must not time as fast.
            remove(outputs)
            result = run(cmd)
            check_outputs(outputs)
            return result

        feedmerge_outputs = [out + ".atom", out + ".rss", out + ".json"]
        tools = [
            ("feedmerge, 3 outputs, all entries",
             lambda: checked([args.feedmerge, opml, "-o", out + ".atom", "-o", out + ".rss", "-o", out + ".json",
                              "--limit", "0"] + common + loopback_flags(args.feedmerge), feedmerge_outputs)),
            ("feedmerge, 3 outputs, --limit 100",
             lambda: checked([args.feedmerge, opml, "-o", out + ".atom", "-o", out + ".rss", "-o", out + ".json",
                              "--limit", "100"] + common + loopback_flags(args.feedmerge), feedmerge_outputs)),
            ("sfeed_update + sfeed_atom",
             lambda: (shutil.rmtree(sfeedpath, True),
                      checked(["sh", "-c", 'sfeed_update "$0" >/dev/null 2>&1; sfeed_atom "$1"/* > "$2"', rc,
                               sfeedpath, out + ".sfeed.atom"], [out + ".sfeed.atom"]))[1]),
            ("python: urllib + feedparser-rs",
             lambda: checked([sys.executable, os.path.join(HERE, "reference_aggregator.py"), url_file,
                              out + ".py.atom", "--jobs", str(n), "--parser", "feedparser_rs"], [out + ".py.atom"])),
        ]
        if args.compare:
            other = os.path.abspath(args.compare)
            for label, limit in (("all entries", "0"), ("--limit 100", "100")):
                tools.append(("compared build, %s" % label,
                              lambda limit=limit: checked([other, opml, "-o", out + ".atom", "-o", out + ".rss", "-o",
                                                           out + ".json", "--limit", limit] + common + loopback_flags(other),
                                                   feedmerge_outputs)))
        if args.with_feedparser:
            tools.append(("python: urllib + feedparser",
                          lambda: checked([sys.executable, os.path.join(HERE, "reference_aggregator.py"), url_file,
                                           out + ".fp.atom", "--jobs", str(n), "--parser", "feedparser"],
                                          [out + ".fp.atom"])))
        results = {}
        for _ in range(args.runs):
            for name, fn in tools:
                results.setdefault(name, []).append(fn())
        base = statistics.median(r[0] for r in results[tools[0][0]])
        print("end to end: %d feeds on 127.0.0.1 (nginx), %d at once, median of %d runs" % (len(urls), n, args.runs))
        print("  %-36s %8s %8s %9s %14s" % ("tool", "wall s", "CPU s", "peak MB", "vs feedmerge"))
        for name, _ in tools:
            wall = statistics.median(r[0] for r in results[name])
            cpu = statistics.median(r[1] for r in results[name])
            rss = statistics.median(r[2] for r in results[name])
            print("  %-36s %8.2f %8.2f %9.0f %13.1fx" % (name, wall, cpu, rss, wall / base))
    finally:
        nginx.terminate()
        shutil.rmtree(work, True)


if __name__ == "__main__":
    main()
