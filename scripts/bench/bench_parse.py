#!/usr/bin/env python3
"""Parse benchmark: feedmerge's parse stage against the libxml2 floor and peers.

    bench_parse.py CORPUS_DIR FEEDMERGE_BINARY [--runs N] [--feedparser-share K]

Every tool parses the same files (CORPUS_DIR/feeds/*.xml, json/*.json) in one
child process; CPU time (user+sys) and peak RSS come from wait4(). Each tool
runs N times (median reported). MB/s is corpus megabytes per CPU second.
Python's feedparser is ~50x slower than the rest, so by default it parses
every K-th file only (its MB/s is computed on the bytes it parsed).
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_fetch import check_status  # noqa: E402

PY_PEER = """
import sys
name = sys.argv[1]
files = sys.argv[2:]
if name == "feedparser":
    import feedparser
    parse = feedparser.parse
elif name == "fastfeedparser":
    import fastfeedparser
    parse = fastfeedparser.parse
else:
    import feedparser_rs
    parse = feedparser_rs.parse
n = 0
for f in files:
    data = open(f, "rb").read()
    try:
        n += len(parse(data).entries)
    except Exception as e:
        try:
            n += len(parse(data)["entries"])
        except Exception:
            pass
print(n, file=sys.stderr)
"""


def run(cmd, stdin_files=None, expect_output=False):
    """CPU seconds and peak RSS (MB) of one child (and what it waited for).
    Stops the benchmark when the child fails, or prints nothing although
    `expect_output` says it must."""
    with open(os.devnull, "wb") as null, tempfile.TemporaryFile() as captured:
        stdout = captured if expect_output else null
        if stdin_files:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=stdout, stderr=null)
            for f in stdin_files:
                with open(f, "rb") as fh:
                    proc.stdin.write(fh.read())
            proc.stdin.close()
        else:
            proc = subprocess.Popen(cmd, stdout=stdout, stderr=null)
        _, status, usage = os.wait4(proc.pid, 0)
        check_status(cmd, status)
        if expect_output and captured.seek(0, os.SEEK_END) == 0:
            sys.exit("benchmark stopped: %s printed nothing" % " ".join(cmd[:3]))
    # ru_maxrss is in KiB; MB here is 10^6 bytes, as the file sizes beside it are.
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024 / 1e6


def have_python_module(name):
    return subprocess.run([sys.executable, "-c", "import " + name], capture_output=True).returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("feedmerge")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--feedparser-share", type=int, default=10)
    args = ap.parse_args()

    xml = sorted(glob.glob(os.path.join(args.corpus, "feeds", "*.xml")))
    js = sorted(glob.glob(os.path.join(args.corpus, "json", "*.json")))
    xml_mb = sum(os.path.getsize(f) for f in xml) / 1e6
    all_mb = xml_mb + sum(os.path.getsize(f) for f in js) / 1e6
    peer = tempfile.NamedTemporaryFile("w", suffix=".py", delete=False)
    peer.write(PY_PEER)
    peer.close()
    some = xml[:: args.feedparser_share]
    some_mb = sum(os.path.getsize(f) for f in some) / 1e6

    tools = [
        ("libxml2 floor (xmllint --noout)", ["xmllint", "--noout"] + xml, None, xml_mb),
        ("feedmerge parse stage", [args.feedmerge, "parse", "--summary"] + xml, None, xml_mb),
        ("feedmerge parse stage, + JSON Feeds", [args.feedmerge, "parse", "--summary"] + xml + js, None, all_mb),
    ]
    if have_python_module("fastfeedparser"):
        tools.append(("fastfeedparser", [sys.executable, peer.name, "fastfeedparser"] + xml, None, xml_mb))
    if have_python_module("feedparser_rs"):
        tools.append(("feedparser-rs", [sys.executable, peer.name, "feedparser_rs"] + xml, None, xml_mb))
    if have_python_module("feedparser"):
        tools.append(("feedparser (every %dth file)" % args.feedparser_share,
                      [sys.executable, peer.name, "feedparser"] + some, None, some_mb))
    if subprocess.run(["sh", "-c", "command -v sfeed"], capture_output=True).returncode == 0:
        tools.append(("sfeed (files piped to one sfeed)", ["sfeed"], xml, xml_mb))

    results = {}
    for _ in range(args.runs):  # interleaved, so machine noise hits every tool alike
        for name, cmd, stdin_files, mb in tools:
            results.setdefault(name, []).append(run(cmd, stdin_files, expect_output=cmd[0] == args.feedmerge))
    floor_cpu = statistics.median(c for c, _ in results[tools[0][0]])
    print("corpus: %d XML files, %.1f MB; %d JSON Feeds; median of %d runs" % (len(xml), xml_mb, len(js), args.runs))
    print("%-40s %9s %8s %10s %9s" % ("tool", "CPU s", "MB/s", "vs floor", "peak MB"))
    for name, _, _, mb in tools:
        cpu = statistics.median(c for c, _ in results[name])
        rss = statistics.median(r for _, r in results[name])
        ratio = (cpu / mb) / (floor_cpu / xml_mb)
        print("%-40s %9.2f %8.1f %9.2fx %9.0f" % (name, cpu, mb / cpu, ratio, rss))

    print("\npeak RSS of `feedmerge parse` on one big feed:")
    for f in sorted(glob.glob(os.path.join(args.corpus, "big", "*.xml"))):
        size = os.path.getsize(f) / 1e6
        rss = statistics.median(run([args.feedmerge, "parse", "--summary", f], expect_output=True)[1]
                                for _ in range(args.runs))
        print("  %-12s %6.1f MB file  %6.0f MB peak  %4.1fx the file" % (os.path.basename(f), size, rss, rss / size))
    os.unlink(peer.name)


if __name__ == "__main__":
    main()
