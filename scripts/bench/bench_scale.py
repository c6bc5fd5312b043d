#!/usr/bin/env python3
"""The main command as users run it, at 1,000 and 10,000 feeds: default
settings (state on, --limit 1000, the default jobs) but --per-host 4
--host-spacing 0 for the benchmark's own loopback hosts, and one row at the
true defaults (one request per host at a time, a second apart): the cost of
politeness,
a fresh state for every first run, three outputs (each synced to disk, as
feedmerge always does), the feeds spread over 250 hosts (nginx listens on
every loopback address; the URLs are on 127.0.0.1 ... 127.0.0.250). Rows:

  first run at the defaults         wall, CPU, peak RSS; / the first run below
  first run                         wall, CPU, peak RSS, state file size
  the same with --no-state
  unchanged second run (all 304)
  every entry kept (--limit 1000000), state on and --no-state,
  beside the Python + feedparser-rs peer (at 1,000 feeds)
  libcurl alone: the second run's conditional GETs and nothing else
  (conditional_gets.c, built with the system C compiler; skipped, with a
  note, when there is none), the floor an unchanged run stands on
  the first and the unchanged second run with the state in PostgreSQL
  (a server on this machine, over a Unix socket, fsync on:
  scripts/lib/postgres_server.py --durable; a new database per first
  run), the database's size (its two tables), each beside SQLite's
  (--no-postgresql leaves them out; a --baseline build gets none)

Every row is the median of RUNS, the tools interleaved within each round.
The 1,000-feed row uses the first 1,000 feeds of the 10,000-feed corpus,
which are the 1,000-feed benchmark corpus. --baseline OLD_BINARY runs every
feedmerge row with that build too, interleaved with BINARY in each round,
and prints both (before and after a change, on the same machine state).

    bench_scale.py CORPUS_DIR BINARY [--runs N] [--sizes 1000,10000] [--no-peer] [--no-postgresql]
                   [--baseline OLD_BINARY]
"""
import argparse
import glob
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_fetch import start_nginx  # noqa: E402
from timing import fetch_all_flags, loopback_flags, timed  # noqa: E402

HOSTS = 250


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("binary")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--baseline", help="an older build, measured interleaved with BINARY")
    ap.add_argument("--no-postgresql", action="store_true", help="no rows with the state in PostgreSQL")
    args = ap.parse_args()
    builds = [("", args.binary)] + ([("baseline ", args.baseline)] if args.baseline else [])
    folder = os.path.abspath(os.path.join(args.corpus, "feeds"))
    names = sorted(os.path.basename(f) for f in glob.glob(folder + "/*.xml"))
    sizes = [int(s) for s in args.sizes.split(",")]
    if len(names) < max(sizes):
        sys.exit("the corpus has %d feeds; %d wanted" % (len(names), max(sizes)))
    work = tempfile.mkdtemp(prefix="bench-scale-")
    nginx, port = start_nginx(folder, work, every_loopback=True)
    # The subscription list as users keep it (OPML), and the same URLs one per line for the peer.
    url_files, opml_files = {}, {}
    for n in sizes:
        urls = ["http://127.0.0.%d:%d/%s" % (1 + i % HOSTS, port, name) for i, name in enumerate(names[:n])]
        url_files[n] = os.path.join(work, "urls-%d.txt" % n)
        with open(url_files[n], "w") as f:
            f.write("".join(u + "\n" for u in urls))
        opml_files[n] = os.path.join(work, "feeds-%d.opml" % n)
        with open(opml_files[n], "w") as f:
            f.write('<?xml version="1.0"?>\n<opml version="2.0"><head><title>bench</title></head><body>\n')
            f.write("".join('<outline type="rss" text="%s" xmlUrl="%s"/>\n' % (u, u) for u in urls))
            f.write("</body></opml>\n")
    out = os.path.join(work, "out")
    outputs = [out + ".atom", out + ".rss", out + ".json"]
    results = {}
    floor = build_floor(work)
    postgresql = None if args.no_postgresql else PostgreSQL()

    def record(row, n, value):
        results.setdefault((row, n), []).append(value)

    def feedmerge(n, *flags, state=None, binary=args.binary, polite=False):
        # The loopback servers are the benchmark's own: no spacing between requests, 4 at once per
        # host (docs/politeness.md); `polite`: the defaults, one request per host at a time, 1 s apart.
        cmd = [binary, opml_files[n], "-o", outputs[0], "-o", outputs[1], "-o", outputs[2], "-q",
               "--link", "http://bench.example/"] \
            + ([] if polite else ["--per-host", "4"] + loopback_flags(binary)) + list(flags)
        return cmd + (["--state", state] if state else ["--no-state"])

    def fresh_state(n):
        state = os.path.join(work, "state-%d.sqlite" % n)
        for suffix in ("", "-wal", "-shm", ".lock"):
            if os.path.exists(state + suffix):
                os.unlink(state + suffix)
        return state

    try:
        for round_ in range(args.runs):
            for n in sizes:
                for tag, binary in builds:
                    state = fresh_state(n)
                    w, c, m = timed(feedmerge(n, state=state, binary=binary), outputs)
                    record(tag + "first", n, (w, c, m, os.path.getsize(state) / 1e6))
                    # The unchanged run asks every feed again (conditionally), as it is timed for.
                    w, c, m = timed(feedmerge(n, *fetch_all_flags(binary), state=state, binary=binary), outputs)
                    record(tag + "second", n, (w, c, m, os.path.getsize(state) / 1e6))
                    if floor and not tag:
                        record("floor", n, timed(floor_command(floor, state, work), []) + (0,))
                    w, c, m = timed(feedmerge(n, binary=binary), outputs)
                    record(tag + "nostate", n, (w, c, m, 0))
                    if not tag:
                        w, c, m = timed(feedmerge(n, state=fresh_state(n), polite=True), outputs)
                        record("polite", n, (w, c, m, 0))
                    if postgresql and not tag:
                        database = postgresql.fresh_database()
                        w, c, m = timed(feedmerge(n, state=database), outputs)
                        record("pg-first", n, (w, c, m, postgresql.size() / 1e6))
                        w, c, m = timed(feedmerge(n, *fetch_all_flags(args.binary), state=database), outputs)
                        record("pg-second", n, (w, c, m, 0))
                        postgresql.retire()
            n = sizes[0]
            for tag, binary in builds:
                state = fresh_state(n)
                w, c, m = timed(feedmerge(n, "--limit", "1000000", state=state, binary=binary), outputs)
                record(tag + "all", n, (w, c, m, os.path.getsize(state) / 1e6))
                w, c, m = timed(feedmerge(n, "--limit", "1000000", binary=binary), outputs)
                record(tag + "all-nostate", n, (w, c, m, 0))
            if not args.no_peer:
                peer = [sys.executable, os.path.join(HERE, "reference_aggregator.py"), url_files[n],
                        out + ".py.atom", "--jobs", "16", "--parser", "feedparser_rs"]
                w, c, m = timed(peer, [out + ".py.atom"])
                record("peer", n, (w, c, m, 0))
            print("round %d of %d done" % (round_ + 1, args.runs), file=sys.stderr)
    finally:
        nginx.terminate()
        if postgresql:
            postgresql.stop()
        shutil.rmtree(work, ignore_errors=True)

    def median(row, n, field):
        return statistics.median(v[field] for v in results[(row, n)])

    if not floor:
        print("no C compiler (cc) or libcurl headers: the libcurl-alone floor is not measured")

    def report(tag, binary):
        report_rows(args, sizes, results, median, tag, binary)

    for tag, binary in builds:
        report(tag, binary)
    if postgresql:
        report_postgresql(args, sizes, median)
    if not args.no_peer:
        peer = median("peer", sizes[0], 0)
        print("python: urllib + feedparser-rs (16 threads), every entry, %d feeds: %.2f s, %.0f MB" % (
            sizes[0], peer, median("peer", sizes[0], 2)))


def report_rows(args, sizes, results, median, tag, binary):
    print("%sfeedmerge (%s) at default settings but --per-host 4 --host-spacing 0 (the loopback hosts are "
          "the benchmark's own), feeds on %d loopback hosts via nginx, three outputs, median of %d, interleaved"
          % (tag, binary, HOSTS, args.runs))
    print("%-58s" % "run" + "".join("%30s" % ("%d feeds" % n) for n in sizes))
    if not tag and ("polite", sizes[0]) in results:
        print("%-58s" % "first run at the defaults (1 per host, 1 s apart)" + "".join(
            "%30s" % ("%.2f s, %.2f CPU, %.0f MB" % (median("polite", n, 0), median("polite", n, 1),
                                                     median("polite", n, 2))) for n in sizes))
        print("%-58s" % "the politeness cost: defaults / --per-host 4, no spacing" + "".join(
            "%30s" % ("%.1fx" % (median("polite", n, 0) / median("first", n, 0))) for n in sizes))
    for row, label in (("first", "first run (state on, --limit 1000)"),
                       ("nostate", "the same with --no-state"),
                       ("second", "unchanged second run (all 304)")):
        cells = []
        for n in sizes:
            cells.append("%.2f s, %.2f CPU, %.0f MB" % (
                median(tag + row, n, 0), median(tag + row, n, 1), median(tag + row, n, 2)))
        print("%-58s" % label + "".join("%30s" % c for c in cells))
    if not tag and ("floor", sizes[0]) in results:
        print("%-58s" % "libcurl alone, the same conditional GETs (C)" + "".join(
            "%30s" % ("%.2f s, %.2f CPU" % (median("floor", n, 0), median("floor", n, 1))) for n in sizes))
    print("%-58s" % "state file after the first run"
          + "".join("%30s" % ("%.1f MB" % median(tag + "first", n, 3)) for n in sizes))
    first = {n: median(tag + "first", n, 0) for n in sizes}
    nostate = {n: median(tag + "nostate", n, 0) for n in sizes}
    print("%-58s" % "first run / --no-state" + "".join("%30s" % ("%.2fx" % (first[n] / nostate[n])) for n in sizes))
    print("%-58s" % "unchanged second run / first run"
          + "".join("%30s" % ("%.1f%%" % (100 * median(tag + "second", n, 0) / first[n])) for n in sizes))
    if not tag and ("floor", sizes[0]) in results:
        print("%-58s" % "libcurl alone / first run"
              + "".join("%30s" % ("%.1f%%" % (100 * median("floor", n, 0) / first[n])) for n in sizes))
    if len(sizes) > 1:
        big, small = sizes[-1], sizes[0]
        print("%d feeds / %d feeds: first run %.2fx, --no-state %.2fx" % (
            big, small, first[big] / first[small], nostate[big] / nostate[small]))
    n = sizes[0]
    print("every entry kept (--limit 1000000), %d feeds:" % n)
    print("    feedmerge, state on:   %.2f s, %.0f MB, state %.1f MB" % (
        median(tag + "all", n, 0), median(tag + "all", n, 2), median(tag + "all", n, 3)))
    print("    feedmerge, --no-state: %.2f s, %.0f MB" % (median(tag + "all-nostate", n, 0),
                                                         median(tag + "all-nostate", n, 2)))
    if not args.no_peer:
        peer = median("peer", n, 0)
        print("    feedmerge is %.1fx faster than the Python peer with state, %.1fx with --no-state" % (
            peer / median(tag + "all", n, 0), peer / median(tag + "all-nostate", n, 0)))
    print()

def report_postgresql(args, sizes, median):
    print("feedmerge (%s), the state in PostgreSQL (server on this machine, Unix socket, fsync on), "
          "median of %d, interleaved with the rows above" % (args.binary, args.runs))
    print("%-58s" % "run" + "".join("%30s" % ("%d feeds" % n) for n in sizes))
    for row, label in (("pg-first", "first run, default settings, PostgreSQL"),
                       ("pg-second", "unchanged second run (all 304), PostgreSQL")):
        print("%-58s" % label + "".join("%30s" % ("%.2f s, %.2f CPU, %.0f MB" % (
            median(row, n, 0), median(row, n, 1), median(row, n, 2))) for n in sizes))
    print("%-58s" % "database (feeds and feed_entries) after the first run"
          + "".join("%30s" % ("%.1f MB" % median("pg-first", n, 3)) for n in sizes))
    for label, ours, theirs, field in (("first run: PostgreSQL / SQLite", "pg-first", "first", 0),
                                       ("unchanged second run: PostgreSQL / SQLite", "pg-second", "second", 0),
                                       ("peak memory, first run: PostgreSQL / SQLite", "pg-first", "first", 2),
                                       ("size after the first run: PostgreSQL / SQLite", "pg-first", "first", 3)):
        print("%-58s" % label + "".join(
            "%30s" % ("%.2fx" % (median(ours, n, field) / median(theirs, n, field))) for n in sizes))
    print()


class PostgreSQL:
    """A throwaway server for the PostgreSQL rows (scripts/lib/postgres_server.py --durable)."""

    def __init__(self):
        script = os.path.join(HERE, "..", "lib", "postgres_server.py")
        self.server = subprocess.Popen([sys.executable, script, "--durable"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True)
        self.socket = self.server.stdout.readline().strip()
        if not self.socket.startswith("/"):
            sys.exit("bench-scale: the PostgreSQL server did not start (--no-postgresql to go without)")
        self.databases = 0
        psqls = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))
        self.psql = psqls[-1] if psqls else "psql"

    def fresh_database(self):
        self.databases += 1
        self.name = "bench%d" % self.databases
        self.server.stdin.write("createdb %s\n" % self.name)
        self.server.stdin.flush()
        answer = self.server.stdout.readline().strip()
        assert answer == "ok " + self.name, answer
        return "host=%s user=postgres dbname=%s" % (self.socket, self.name)

    def retire(self):
        """Drops the last database and checkpoints: the server's background writing and vacuuming of it
        must not run beside the rows that follow."""
        for sql in ("DROP DATABASE %s" % self.name, "CHECKPOINT"):
            subprocess.run([self.psql, "-X", "-q", "-h", self.socket, "-U", "postgres", "-d", "postgres", "-c", sql],
                           check=True, capture_output=True)

    def size(self):
        """The bytes of the last database's two tables, their TOAST and indexes."""
        sql = "SELECT pg_total_relation_size('feeds') + pg_total_relation_size('feed_entries')"
        out = subprocess.run([self.psql, "-X", "-At", "-h", self.socket, "-U", "postgres", "-d", self.name, "-c", sql],
                             check=True, capture_output=True, text=True).stdout
        return int(out.strip())

    def stop(self):
        self.server.stdin.close()
        self.server.wait()


def build_floor(work):
    """conditional_gets.c built in WORK; None when it cannot be."""
    binary = os.path.join(work, "conditional_gets")
    for compiler in ("cc", "clang", "gcc"):
        if shutil.which(compiler):
            made = subprocess.run([compiler, "-O2", "-o", binary, os.path.join(HERE, "conditional_gets.c"), "-lcurl"],
                                  capture_output=True)
            if made.returncode == 0:
                return binary
    return None


def floor_command(floor, state, work):
    """The floor's command: the URLs with the validators the state holds, on its standard input."""
    lines = os.path.join(work, "validators.txt")
    database = sqlite3.connect("file:%s?mode=ro" % state, uri=True)
    with open(lines, "w") as f:
        for url, etag, modified in database.execute("SELECT url, etag, last_modified FROM feeds ORDER BY id"):
            f.write("%s\t%s\t%s\n" % (url, etag or "", modified or ""))
    database.close()
    return ["sh", "-c", 'exec "$0" < "$1"', floor, lines]


if __name__ == "__main__":
    main()
