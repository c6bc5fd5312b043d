#!/usr/bin/env python3
"""Crash safety: runs of feedmerge over local feeds killed with SIGKILL at a
random moment. After every kill:
  - PRAGMA integrity_check of the state says ok;
  - every feed's entry_dates (what bounds its entries' dates) agrees with
    its document: the same count, latest date and last first-seen time;
  - every output is the previous complete version or the new complete one
    (well-formed, and byte-identical to one of the two);
  - the next run, left to finish, succeeds and loses no entry that a
    finished run had stored.

With --postgresql the state is a database on a throwaway PostgreSQL server
(scripts/lib/postgres_server.py, fsync on), every document is read back
whole instead of SQLite's integrity check, and every third iteration
restarts the server mid-run (an immediate shutdown, as a crash would stop
it) instead of killing feedmerge: that run may fail (exit 74) but must
still write whole outputs, and the next run must lose nothing.

    crash_test.py FEEDMERGE_BINARY [ITERATIONS] [SEED] [--postgresql]
"""
import json
import os
import glob
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import xml.dom.minidom


def write_feeds(folder, generation, count=60):
    for n in range(count):
        items = []
        for k in range(generation % 7 + 20):
            items.append("<item><title>feed %d entry %d gen %d</title><guid>urn:c:%d:%d</guid>"
                         "<link>http://crash.example/%d/%d</link><pubDate>Mon, %02d Jan 2024 %02d:00:00 GMT</pubDate>"
                         "<description>%s</description></item>"
                         % (n, k, generation, n, k + generation, n, k + generation, 1 + (k + generation) % 28,
                            k % 24, "text " * 200))
        path = os.path.join(folder, "feed%02d.xml" % n)
        with open(path + ".new", "w") as f:
            f.write('<?xml version="1.0"?><rss version="2.0"><channel><title>feed %d</title>'
                    "<link>http://crash.example/%d/</link><description>d</description>%s</channel></rss>"
                    % (n, n, "".join(items)))
        os.replace(path + ".new", path)


def varint(data, i):
    value, shift = 0, 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7


def lz4_block(src, length):
    """An LZ4 block decompressed (the format's sequences: literals, then a
    match copied from what was already written)."""
    out, i = bytearray(), 0

    def extended(n, i):
        if n == 15:
            while True:
                b = src[i]
                i += 1
                n += b
                if b != 255:
                    break
        return n, i

    while i < len(src):
        token = src[i]
        i += 1
        n, i = extended(token >> 4, i)
        out += src[i:i + n]
        i += n
        if i >= len(src):
            break
        offset = src[i] | src[i + 1] << 8
        i += 2
        n, i = extended(token & 15, i)
        for _ in range(n + 4):
            out.append(out[-offset])
    assert len(out) == length, "an LZ4 block of the wrong length"
    return bytes(out)


def signed(value):
    return value - (1 << 64) if value >= 1 << 63 else value


def optional_integers(data, i, count):
    """COUNT integers, each a presence byte and, if present, a varint
    (EntryCodec.Writer.integer); the values (None where absent) and the index after."""
    values = []
    for _ in range(count):
        present = data[i]
        i += 1
        value = None
        if present:
            value, i = varint(data, i)
            value = signed(value)
        values.append(value)
    return values, i


def document_rows(data):
    """The entries of one feed's document (FeedEntries: a version byte;
    version 2 then the marker 0xF1, the plain length, a checksum and the rest
    as one LZ4 block; then a count, and per entry its key, seven optional
    integers and its stored form), each as its key and its integers (first
    and last seen, first date, date, latest date, place, first place)."""
    if data[0] == 2:
        assert data[1] == 0xF1
        length, i = varint(data, 2)
        data = b"\x01" + lz4_block(data[i + 4:], length)
    assert data[0] == 1, "a document of an unknown version"
    rows, (count, i) = [], varint(data, 1)
    for _ in range(count):
        assert data[i] == 1
        n, i = varint(data, i + 1)
        key = data[i:i + n].decode()
        integers, i = optional_integers(data, i + n, 7)
        n, i = varint(data, i)
        i += n
        rows.append((key, integers))
    assert i == len(data), "a document with bytes after its entries"
    return rows


def document_keys(data):
    return [key for key, _ in document_rows(data)]


class PostgreSQL:
    """The state's database on a throwaway server, read with psql."""

    def __init__(self):
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib", "postgres_server.py")
        self.server = subprocess.Popen([sys.executable, script, "--durable"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True)
        self.socket = self.server.stdout.readline().strip()
        if not self.socket.startswith("/"):
            sys.exit("crash test: the PostgreSQL server did not start")
        self.ask("createdb crash")
        self.conninfo = "host=%s user=postgres dbname=crash" % self.socket
        psqls = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))
        self.psql = psqls[-1] if psqls else "psql"

    def ask(self, line):
        self.server.stdin.write(line + "\n")
        self.server.stdin.flush()
        answer = self.server.stdout.readline().strip()
        assert answer.startswith("ok"), answer

    def rows(self, sql):
        """Each row's columns; bytea columns come as hex (encode(..., 'hex'))."""
        out = subprocess.run([self.psql, "-X", "-At", "-F", "\t", "-c", sql, self.conninfo], check=True,
                             capture_output=True, text=True).stdout
        return [line.split("\t") for line in out.splitlines() if line]

    def stop(self):
        self.server.stdin.close()
        self.server.wait()


def blob(hex_text):
    return bytes.fromhex(hex_text) if hex_text else None


def state_rows(state):
    """Each feed's URL, entry_dates and document (None where absent)."""
    if isinstance(state, PostgreSQL):
        return [(url, blob(dates), blob(document)) for url, dates, document in state.rows(
            "SELECT f.url, encode(f.entry_dates, 'hex'), encode(e.document, 'hex') "
            "FROM feeds f LEFT JOIN feed_entries e ON f.id = e.feed")]
    if not os.path.exists(state):
        return []
    with sqlite3.connect(state) as db:
        return list(db.execute(
            "SELECT f.url, f.entry_dates, e.document FROM feeds f LEFT JOIN feed_entries e ON f.id = e.feed"))


def dates_disagreements(state):
    """Feeds whose entry_dates (StoredDates: a version byte, a count, then
    five optional integers: newest past, earliest future, latest, last first
    seen, last first seen of the undated) do not match their document."""
    wrong = []
    for url, dates, document in state_rows(state):
        if dates is None:
            if document is not None:
                wrong.append(url + " (no entry_dates)")
            continue
        assert dates[0] == 1, "entry_dates of an unknown version"
        count, i = varint(dates, 1)
        facts, _ = optional_integers(dates, i, 5)
        entries = document_rows(document) if document is not None else []
        latest = max((r[4] for _, r in entries), default=None)
        first_seen = max((r[0] for _, r in entries), default=None)
        if (count, facts[2], facts[3]) != (len(entries), latest, first_seen):
            wrong.append(url)
    return wrong


def stored_keys(state):
    return set("%s %s" % (url, key) for url, _, document in state_rows(state) if document is not None
               for key in document_keys(document))


def integrity(state):
    """SQLite's integrity check; for PostgreSQL, every document read back whole."""
    if isinstance(state, PostgreSQL):
        try:
            for _, _, document in state_rows(state):
                if document is not None:
                    document_rows(document)
        except Exception as error:
            return "a document does not read back: %s" % error
        return "ok"
    if not os.path.exists(state):
        return "ok"
    with sqlite3.connect(state) as db:
        return db.execute("PRAGMA integrity_check").fetchone()[0]


def complete(path):
    data = open(path, "rb").read()
    if path.endswith(".json"):
        json.loads(data)
    else:
        xml.dom.minidom.parseString(data)
    return data


def main():
    arguments = [a for a in sys.argv[1:] if a != "--postgresql"]
    binary = os.path.abspath(arguments[0])
    iterations = int(arguments[1]) if len(arguments) > 1 else 20
    work = tempfile.mkdtemp(prefix="feedmerge-crash-")
    feeds = os.path.join(work, "feeds")
    os.makedirs(feeds)
    postgresql = PostgreSQL() if "--postgresql" in sys.argv else None
    state = postgresql or os.path.join(work, "state.sqlite")
    outputs = [os.path.join(work, "out." + ext) for ext in ("atom", "rss", "json")]
    args = [binary] + sorted(os.path.join(feeds, f) for f in ["feed%02d.xml" % n for n in range(60)])
    for out in outputs:
        args += ["-o", out]
    args += ["--state", postgresql.conninfo if postgresql else state, "--limit", "0", "-q", "--now", "2024-06-01T00:00:00Z", "--link", "http://crash.example/"]
    rng = random.Random(int(arguments[2]) if len(arguments) > 2 else None)
    failures = 0
    try:
        write_feeds(feeds, 0)
        started = time.monotonic()
        subprocess.run(args, check=True)
        duration = time.monotonic() - started  # kills land anywhere in a run this long
        finished_keys = stored_keys(state)
        previous = {out: complete(out) for out in outputs}
        kills = restarts = 0
        for i in range(1, iterations + 1):
            write_feeds(feeds, i)
            proc = subprocess.Popen(args)
            time.sleep(rng.uniform(0.0, duration * 0.9))
            restarted = postgresql is not None and i % 3 == 0
            if restarted:
                if proc.poll() is None:
                    restarts += 1
                postgresql.ask("restart")  # the run goes on, or fails with exit 74, with whole outputs
                if proc.wait() not in (0, 1, 74):
                    print("iteration %d: a run whose server restarted exited %d" % (i, proc.returncode))
                    failures += 1
            elif proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                kills += 1
            proc.wait()
            check = integrity(state)
            if check != "ok":
                print("iteration %d: integrity_check: %s" % (i, check))
                failures += 1
            disagreeing = dates_disagreements(state)
            if disagreeing:
                print("iteration %d: entry_dates disagree with the documents of %s" % (i, disagreeing[:3]))
                failures += 1
            current = {}
            for out in outputs:
                try:
                    data = complete(out)
                except Exception as error:
                    print("iteration %d: %s is not complete: %s" % (i, out, error))
                    failures += 1
                    continue
                current[out] = data
            # Finish a run: it must succeed and keep every entry finished runs stored.
            done = subprocess.run(args)
            if done.returncode not in (0, 1):
                print("iteration %d: the run after the kill exited %d" % (i, done.returncode))
                failures += 1
            keys = stored_keys(state)
            lost = finished_keys - keys
            if lost:
                print("iteration %d: %d stored entries lost, e.g. %s" % (i, len(lost), sorted(lost)[:2]))
                failures += 1
            finished_keys = keys
            for out in outputs:
                new = complete(out)
                # (A run whose server restarted finished: what it wrote is whole, and its own.)
                if out in current and not restarted and current[out] not in (previous[out], new):
                    print("iteration %d: %s after the kill was neither the old nor the new version" % (i, out))
                    failures += 1
                previous[out] = new
            leftovers = [f for f in os.listdir(work) if ".tmp-" in f]
            if leftovers:
                print("iteration %d: temporary files left after a finished run: %s" % (i, leftovers))
                failures += 1
        store = "PostgreSQL, %d server restarts mid-run, " % restarts if postgresql else "SQLite, "
        print("crash test (%s%d killed mid-run): %d iterations, %d problems" % (store, kills, iterations, failures))
    finally:
        if postgresql:
            postgresql.stop()
        shutil.rmtree(work, True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
