#!/usr/bin/env python3
"""Fetch benchmark: feedmerge's fetch stage beside curl --parallel and sfeed_update.

    bench_fetch.py CORPUS_DIR FEEDMERGE_BINARY [--runs N] [--jobs 16,64]

Serves CORPUS_DIR/feeds/*.xml (1,000 files) from 127.0.0.1 twice: with
nginx (no delay) and with a server that holds every response 100 ms. For
each job count N it runs, interleaved and N times each (median reported):
  feedmerge fetch --jobs N --per-host N   (every URL on one host)
  curl --parallel --parallel-max N        (the floor: fetching only)
  sfeed_update with maxjobs=N             (fetches with curl and parses)
Wall time from the parent, CPU time and peak RSS from wait4().
"""
import argparse
import glob
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import loopback_flags  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def start_nginx(folder, work, access_log=None, every_loopback=False):
    """nginx serving `folder` on a free 127.0.0.1 port (with ETag and
    Last-Modified, as nginx serves static files); `access_log` logs the bytes
    sent per request. `every_loopback`: the port on every address, so that
    URLs on 127.0.0.N are that many hosts (per-host limits apply as to real ones)."""
    conf = os.path.join(work, "nginx.conf")
    log = "log_format bytes '$status $bytes_sent'; access_log %s bytes;" % access_log if access_log else "access_log off;"
    with open(conf, "w") as f:
        f.write("""daemon off; worker_processes 2; pid %(w)s/nginx.pid; error_log %(w)s/error.log;
events { worker_connections 1024; }
http { %(log)s client_body_temp_path %(w)s; proxy_temp_path %(w)s; fastcgi_temp_path %(w)s;
       uwsgi_temp_path %(w)s; scgi_temp_path %(w)s; keepalive_requests 100000;
       server { listen 127.0.0.1:0; root %(root)s; } }
""" % {"w": work, "root": folder, "log": log})
    # nginx cannot listen on port 0: pick a free port first.
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    text = open(conf).read().replace("127.0.0.1:0", str(port) if every_loopback else "127.0.0.1:%d" % port)
    open(conf, "w").write(text)
    proc = subprocess.Popen(["nginx", "-c", conf, "-p", work], stderr=subprocess.DEVNULL)
    for _ in range(50):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    return proc, port


def start_delay_server(folder, delay_ms):
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "delay_server.py"), folder, str(delay_ms)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    port = int(proc.stdout.readline())
    return proc, port


def check_status(cmd, status):
    """Stops the benchmark when a timed command failed: a command that errors
    out early would otherwise be reported as fast."""
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return
    how = ("exit status %d" % os.WEXITSTATUS(status) if os.WIFEXITED(status)
           else "signal %d" % os.WTERMSIG(status))
    sys.exit("benchmark stopped: %s failed (%s): %s" % (os.path.basename(cmd[0]), how, " ".join(cmd[:12])
                                                         + (" ..." if len(cmd) > 12 else "")))


def check_outputs(paths):
    """Stops the benchmark when a timed command left an output missing or empty."""
    for path in paths:
        if not os.path.isfile(path) or os.path.getsize(path) == 0:
            sys.exit("benchmark stopped: output %s is missing or empty" % path)


def remove(paths):
    for path in paths:
        if os.path.exists(path):
            os.unlink(path)


def run(cmd, cwd=None):
    start = time.monotonic()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(cmd, stdout=null, stderr=null, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    check_status(cmd, status)
    # ru_maxrss is in KiB; MB here is 10^6 bytes, as the file sizes beside it are.
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024 / 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("feedmerge")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", default="16,64")
    args = ap.parse_args()
    folder = os.path.abspath(os.path.join(args.corpus, "feeds"))
    names = sorted(os.path.basename(f) for f in glob.glob(os.path.join(folder, "*.xml")))
    work = tempfile.mkdtemp(prefix="bench-fetch-")
    nginx, nginx_port = start_nginx(folder, work)
    slow, slow_port = start_delay_server(folder, 100)
    try:
        for label, port in (("no delay (nginx)", nginx_port), ("100 ms delay", slow_port)):
            urls = ["http://127.0.0.1:%d/%s" % (port, n) for n in names]
            url_file = os.path.join(work, "urls-%d.txt" % port)
            open(url_file, "w").write("\n".join(urls) + "\n")
            curl_config = os.path.join(work, "curl-%d.cfg" % port)
            with open(curl_config, "w") as f:
                for i, u in enumerate(urls):
                    f.write('url = "%s"\noutput = "%s/out/%d.xml"\n' % (u, work, i))
            os.makedirs(os.path.join(work, "out"), exist_ok=True)
            for n in [int(j) for j in args.jobs.split(",")]:
                rc = os.path.join(work, "sfeedrc-%d-%d" % (port, n))
                with open(rc, "w") as f:
                    f.write('sfeedpath="%s/sfeed-%d-%d"\nmaxjobs=%d\nfeeds() {\n' % (work, port, n, n))
                    for i, u in enumerate(urls):
                        f.write('\tfeed "f%04d" "%s"\n' % (i, u))
                    f.write("}\n")
                tools = [
                    # The loopback server is the benchmark's own: no spacing (docs/politeness.md).
                    ("feedmerge fetch", lambda: run([args.feedmerge, "fetch", "--jobs", str(n), "--per-host", str(n)]
                                                    + loopback_flags(args.feedmerge) + urls)),
                    ("curl --parallel", lambda: run(["curl", "--parallel", "--parallel-max", str(n), "-s",
                                                     "-K", curl_config])),
                    ("sfeed_update", lambda: (shutil.rmtree("%s/sfeed-%d-%d" % (work, port, n), True),
                                              run(["sfeed_update", rc]))[1]),
                ]
                results = {}
                for _ in range(args.runs):
                    for name, fn in tools:
                        results.setdefault(name, []).append(fn())
                floor = math.ceil(len(urls) / n) * 0.1
                print("\n%s, %d files, %d at once%s" % (label, len(urls), n,
                      ", ideal ceil(%d/%d) x 100 ms = %.1f s" % (len(urls), n, floor) if port == slow_port else ""))
                print("  %-18s %8s %8s %9s" % ("tool", "wall s", "CPU s", "peak MB"))
                for name, _ in tools:
                    wall = statistics.median(r[0] for r in results[name])
                    cpu = statistics.median(r[1] for r in results[name])
                    rss = statistics.median(r[2] for r in results[name])
                    extra = ""
                    if port == slow_port:
                        extra = "  %.2fx the ideal" % (wall / floor)
                    print("  %-18s %8.2f %8.2f %9.0f%s" % (name, wall, cpu, rss, extra))
    finally:
        nginx.terminate()
        slow.stdin.close()
        slow.wait()
        shutil.rmtree(work, True)


if __name__ == "__main__":
    main()
