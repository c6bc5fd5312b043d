#!/usr/bin/env python3
"""Sanitizer benchmark: feedmerge's HTML sanitizer against gumbo's bare parse
(the floor), nh3 (ammonia on html5ever) and bleach.

    bench_sanitize.py CORPUS_DIR FEEDMERGE_BINARY SANITIZE_BENCH_BINARY [--runs N]

The values are the HTML contents and summaries of every entry of the corpus
(CORPUS_DIR/feeds/*.xml and json/*.json), extracted once with `feedmerge
parse` into a NUL-separated file cached in the temp directory. Each tool
processes every value in one child process and reports the CPU seconds of
that loop alone (reading the file is not timed); N runs, interleaved, median
reported.
"""
import argparse
import glob
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile

PY_PEER = r"""
import sys, time
name, path = sys.argv[1], sys.argv[2]
values = open(path, "rb").read().decode("utf-8").split("\0")
if name == "nh3":
    import nh3
    clean = nh3.clean          # ammonia's default allowlist
else:
    import bleach
    # bleach's defaults are a tiny inline set; give it a feed-sized allowlist
    # (the one ammonia uses by default), as a planet would.
    import nh3
    tags = set(nh3.ALLOWED_TAGS)
    attributes = {tag: sorted(attrs) for tag, attrs in nh3.ALLOWED_ATTRIBUTES.items()}
    cleaner = bleach.Cleaner(tags=tags, attributes=attributes, strip=True, strip_comments=True)
    clean = cleaner.clean
start = time.process_time()
out = 0
for v in values:
    out += len(clean(v))
seconds = time.process_time() - start
print(len(values), sum(len(v.encode()) for v in values), seconds, out)
"""


def extract(corpus, feedmerge):
    files = sorted(glob.glob(os.path.join(corpus, "feeds", "*.xml"))) + sorted(
        glob.glob(os.path.join(corpus, "json", "*.json")))
    key = hashlib.sha256(("\n".join(files) + feedmerge).encode()).hexdigest()[:12]
    path = os.path.join(tempfile.gettempdir(), "feedmerge-sanitize-values-%s.bin" % key)
    if os.path.exists(path):
        return path
    values = []
    for start in range(0, len(files), 200):
        proc = subprocess.run([feedmerge, "parse"] + files[start:start + 200], capture_output=True)
        if proc.returncode not in (0, 1):
            sys.exit("benchmark stopped: feedmerge parse exited %d" % proc.returncode)
        for line in proc.stdout.decode("utf-8").splitlines():
            doc = json.loads(line)
            for entry in doc.get("entries") or []:
                if entry.get("summary") and entry.get("summary_type") in ("html", "xhtml"):
                    values.append(entry["summary"])
                for content in entry.get("content") or []:
                    if content.get("value") and content.get("type") in ("html", "xhtml"):
                        values.append(content["value"])
    with open(path + ".tmp", "wb") as out:
        out.write("\0".join(v.replace("\0", "") for v in values).encode("utf-8"))
    os.rename(path + ".tmp", path)
    return path


def run(cmd):
    """The child's own report: values, bytes, CPU seconds of the loop, output size."""
    proc = subprocess.run(cmd, capture_output=True)
    if proc.returncode != 0:
        sys.exit("benchmark stopped: %s exited %d: %s" % (" ".join(cmd[:3]), proc.returncode,
                                                          proc.stderr.decode()[-500:]))
    fields = proc.stdout.split()
    if len(fields) != 4:
        sys.exit("benchmark stopped: %s printed %r" % (" ".join(cmd[:3]), proc.stdout[:200]))
    return int(fields[0]), int(fields[1]), float(fields[2])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("feedmerge")
    ap.add_argument("bench")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--compare", metavar="BENCH", help="another build's sanitize-bench, timed in the same runs")
    args = ap.parse_args()
    values = extract(args.corpus, args.feedmerge)
    peer = tempfile.NamedTemporaryFile("w", suffix=".py", delete=False)
    peer.write(PY_PEER)
    peer.close()
    tools = [
        ("gumbo fragment parse (floor)", [args.bench, "--parse-only", values]),
        ("feedmerge sanitize (HTML)", [args.bench, values]),
        ("feedmerge sanitizeToXHTML", [args.bench, "--xhtml", values]),
        ("nh3 (ammonia, html5ever)", [sys.executable, peer.name, "nh3", values]),
        ("bleach", [sys.executable, peer.name, "bleach", values]),
    ]
    if args.compare:
        tools += [
            ("compared build sanitize (HTML)", [args.compare, values]),
            ("compared build sanitizeToXHTML", [args.compare, "--xhtml", values]),
        ]
    results = {}
    for _ in range(args.runs):  # interleaved, so machine noise hits every tool alike
        for name, cmd in tools:
            results.setdefault(name, []).append(run(cmd))
    count, size, _ = results[tools[0][0]][0]
    floor = statistics.median(r[2] for r in results[tools[0][0]])
    bleach = statistics.median(r[2] for r in results["bleach"])
    print("values: %d HTML contents and summaries, %.1f MB; median of %d runs" % (count, size / 1e6, args.runs))
    print("%-32s %9s %8s %10s %12s" % ("tool", "CPU s", "MB/s", "vs floor", "bleach / it"))
    for name, _ in tools:
        cpu = statistics.median(r[2] for r in results[name])
        print("%-32s %9.2f %8.1f %9.2fx %11.1fx" % (name, cpu, size / 1e6 / cpu, cpu / floor, bleach / cpu))
    os.unlink(peer.name)


if __name__ == "__main__":
    main()
