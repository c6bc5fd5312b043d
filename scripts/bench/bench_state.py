#!/usr/bin/env python3
"""State benchmark: the 1,000-feed corpus served by nginx (ETag and
Last-Modified on every file). A first run with an empty state, then a second
where nothing changed: wall time and bytes sent by the server, side by side.
Then 30 runs where 5% of the feeds change before each, and the size of the
state file after them.

    bench_state.py CORPUS_DIR FEEDMERGE_BINARY [--runs N]
"""
import argparse
import glob
import os
import random
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_fetch import run, start_nginx  # noqa: E402
from timing import fetch_all_flags, loopback_flags  # noqa: E402


def served_bytes(log):
    total = 0
    count = {}
    for line in open(log):
        status, size = line.split()
        total += int(size)
        count[status] = count.get(status, 0) + 1
    open(log, "w").close()
    return total, count


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("feedmerge")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="bench-state-")
    folder = os.path.join(work, "feeds")
    shutil.copytree(os.path.join(args.corpus, "feeds"), folder)
    log = os.path.join(work, "access.log")
    nginx, port = start_nginx(folder, work, access_log=log)
    names = sorted(os.path.basename(f) for f in glob.glob(os.path.join(folder, "*.xml")))
    urls = ["http://127.0.0.1:%d/%s" % (port, n) for n in names]
    out = os.path.join(work, "out.atom")
    try:
        firsts, seconds = [], []
        for _ in range(args.runs):
            state = os.path.join(work, "state.sqlite")
            for f in glob.glob(state + "*"):
                os.remove(f)
            command = [args.feedmerge] + urls + ["-o", out, "--state", state, "-q", "--jobs", "16", "--per-host", "16",
                                                 "--now", "2030-01-01T00:00:00Z"] + loopback_flags(args.feedmerge)
            served_bytes(log)
            firsts.append((run(command)[0],) + served_bytes(log))
            # The second run asks every feed again: it is timed for its conditional GETs.
            seconds.append((run(command + fetch_all_flags(args.feedmerge))[0],) + served_bytes(log))
        first_wall = statistics.median(r[0] for r in firsts)
        second_wall = statistics.median(r[0] for r in seconds)
        first_bytes = statistics.median(r[1] for r in firsts)
        second_bytes = statistics.median(r[1] for r in seconds)
        print("state: %d feeds on 127.0.0.1 (nginx, ETag + Last-Modified), median of %d pairs of runs" % (len(urls), args.runs))
        print("  %-34s %8s %14s  %s" % ("run", "wall s", "bytes served", "statuses"))
        print("  %-34s %8.2f %14d  %s" % ("first (empty state)", first_wall, first_bytes, firsts[-1][2]))
        print("  %-34s %8.2f %14d  %s" % ("second (nothing changed)", second_wall, second_bytes, seconds[-1][2]))
        print("  second / first: %.1f%% of the wall time, %.2f%% of the bytes" %
              (100 * second_wall / first_wall, 100 * second_bytes / first_bytes))
        # 30 runs, 5% of the feeds changing before each.
        rng = random.Random(30)
        for i in range(30):
            for name in rng.sample(names, len(names) // 20):
                path = os.path.join(folder, name)
                text = open(path).read()
                marker = "<!-- run %d -->" % i
                open(path, "w").write(text.replace("</channel>", marker + "</channel>", 1)
                                      if "</channel>" in text else text.replace("</feed>", marker + "</feed>", 1))
            run(command)
        size = sum(os.path.getsize(f) for f in glob.glob(state + "*"))
        print("  state after 30 more runs with 5%% of the feeds changing: %.1f MB (%s)" %
              (size / 1e6, ", ".join(os.path.basename(f) for f in glob.glob(state + "*"))))
    finally:
        nginx.terminate()
        shutil.rmtree(work, True)


if __name__ == "__main__":
    main()
