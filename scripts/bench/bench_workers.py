#!/usr/bin/env python3
"""Worker benchmark: 1, 2 and 4 `feedmerge worker` processes sharing one
PostgreSQL state, fetching 100,000 small feeds from 250 slow hosts.

    bench_workers.py FEEDMERGE_BINARY [--feeds 100000] [--hosts 250] [--workers 1,2,4]
                     [--runs 1] [--per-host 4] [--jobs N] [--timeout 3600] [--corpus DIR] [--keep]

The feeds: FEEDS RSS 2.0 documents of about 5 KB each (8 items with title,
link, guid, pubDate and description; each feed its own text), made once into
.build/bench-workers-corpus-FEEDS (--corpus to put them elsewhere), served by
nginx from 127.0.0.1 on HOSTS ports: a host is a (127.0.0.1, port) pair, as
feedmerge's per-host limit counts host:port, and feed N is
http://127.0.0.1:PORT/f/N.xml, the feeds dealt round-robin over the ports.
Every response is held 100 ms before it is sent (the nginx echo module,
`echo_sleep 0.1`, then the static file with its ETag and Last-Modified), so
the run is bound by latency as real fetching is; the benchmark checks that
one response takes 100 ms and carries its feed before it starts. One OPML
file lists every feed; every worker is given the same one.

For each worker count W (--workers), --runs times, on a fresh database of a
throwaway PostgreSQL server (scripts/lib/postgres_server.py --durable: fsync
on, a Unix socket), W processes of

    feedmerge worker OPML --state 'host=SOCKETDIR dbname=DB user=postgres'
                     --drain --name wK --per-host L [--jobs N]

start at once. Measured:
  wall s        from the start until the last worker exits (every due feed
                fetched once: --drain ends a worker once nothing it may
                claim is due); feeds/s = FEEDS / wall
  speedup vs 1  the 1-worker wall time over this one's
  requests, duplicates, max per-host in flight
                from nginx's access log of that run (port, URI, end time and
                duration of every request, to the millisecond): requests
                beyond the first for one URI are duplicates; a request is in
                flight from its start (end - duration) until its end, and the
                most requests in flight at any moment on one port is that
                host's concurrency; the column is the largest over the ports
  peak RSS      the largest of the W workers' peak resident sets (wait4)
  PostgreSQL CPU s
                user + system CPU of the server's processes during the run
                (the postmaster and its children from /proc, the children that
                ended included through the postmaster's cutime and cstime)
Each worker's summary line (`feedmerge worker wK: N fetched, ...`) is shown.
With several runs, wall, feeds/s, requests and CPU are medians; duplicates,
per-host concurrency and peak RSS the worst run's.

Checked, as PASS/FAIL lines: no duplicates; per-host concurrency at most
--per-host; every feed requested; peak RSS per worker at most 150 MB;
2 workers at least 1.8x the throughput of 1, 4 workers at least 3.2x. The exit
status is 1 when a duplicate, a host over its limit or a feed never requested
was seen (the fetching is wrong); RSS and speedup are measurements, reported
only. A worker that fails, or outlives --timeout, stops the benchmark.

For a quick check: --feeds 2000 --hosts 50. --keep leaves the work folder
(nginx's logs per run, each worker's output, the OPML) and prints its path.
"""
import argparse
import collections
import email.utils
import html
import math
import os
import random
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import loopback_flags  # noqa: E402
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DELAY = 0.1  # seconds nginx holds every response
FIRST_PORT = 20000  # below the kernel's ephemeral ports, which clients' connections take
RSS_LIMIT_MB = 150
SPEEDUPS = {2: 1.8, 4: 3.2}
ECHO_MODULE = "/usr/lib/nginx/modules/ngx_http_echo_module.so"

WORDS = ("feed merge worker lease claim host socket latency queue due fetch parse entry channel item "
         "server client request response header body cache etag modified planet river news post blog "
         "update release note community open source linux kernel compiler test bench memory thread").split()


class Stop(Exception):
    """The benchmark cannot go on; the message says why."""


# The corpus

def words(r, n):
    return " ".join(r.choices(WORDS, k=n))


def feed_text(i):
    """Feed i: RSS 2.0, 8 items, about 5 KB; the same i gives the same bytes."""
    r = random.Random(i)
    newest = 1767225600 - i * 3600  # 2026-01-01, an hour earlier per feed
    items = []
    for k in range(8):
        when = email.utils.formatdate(newest - k * 86400 - r.randrange(86400), usegmt=True)
        body = '<p>%s <a href="https://blog%d.example.org/%d/%d">%s</a>.</p><p>%s.</p>' % (
            words(r, 22).capitalize(), i, k, i, words(r, 2), words(r, 18).capitalize())
        items.append('<item><title>%s</title><link>https://blog%d.example.org/%d/%d</link>'
                     '<guid isPermaLink="false">feed%d-item%d</guid><pubDate>%s</pubDate>'
                     "<description>%s</description></item>"
                     % (html.escape(words(r, 6).capitalize()), i, k, i, i, k, when,
                        html.escape(body, quote=False)))
    return ('<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>Feed %d</title>'
            "<link>https://blog%d.example.org/</link><description>%s</description>\n%s\n</channel></rss>\n"
            % (i, i, words(r, 8).capitalize(), "\n".join(items)))


def make_corpus(folder, feeds):
    """FOLDER/f/0.xml ... (feeds - 1).xml, written once: a folder that exists is complete
    (the feeds are written beside it and renamed into place at the end)."""
    if os.path.isdir(os.path.join(folder, "f")):
        return
    print("bench-workers: writing %d feeds into %s" % (feeds, folder), file=sys.stderr, flush=True)
    partial = folder + ".partial"
    shutil.rmtree(partial, True)
    os.makedirs(os.path.join(partial, "f"))
    for i in range(feeds):
        with open(os.path.join(partial, "f", "%d.xml" % i), "w") as f:
            f.write(feed_text(i))
    os.rename(partial, folder)


def write_opml(path, urls):
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n<opml version="2.0"><head><title>bench-workers'
                "</title></head><body>\n")
        for i, url in enumerate(urls):
            f.write('<outline type="rss" text="Feed %d" xmlUrl="%s"/>\n' % (i, html.escape(url)))
        f.write("</body></opml>\n")


# nginx

def free_ports(count):
    """`count` ports of 127.0.0.1 that nothing listens on, from FIRST_PORT up."""
    ports, port = [], FIRST_PORT
    while len(ports) < count:
        if port > 65535:
            raise Stop("fewer than %d free ports on 127.0.0.1 above %d" % (count, FIRST_PORT))
        probe = socket.socket()
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as nginx binds
        try:
            probe.bind(("127.0.0.1", port))
            ports.append(port)
        except OSError:
            pass
        finally:
            probe.close()
        port += 1
    return ports


class Nginx:
    """nginx serving CORPUS/f/ on every port, each response held DELAY seconds;
    the access log (one line a request: port, URI, end time, duration, status,
    bytes) is taken out and begun anew by take_log()."""

    FORMAT = "$server_port $request_uri $msec $request_time $status $bytes_sent"

    def __init__(self, corpus, ports, work):
        if not os.path.exists(ECHO_MODULE):
            raise Stop("the nginx echo module is missing (%s): apt-get install libnginx-mod-http-echo"
                       % ECHO_MODULE)
        self.work = work
        self.log = os.path.join(work, "access.log")
        conf = os.path.join(work, "nginx.conf")
        listen = "".join("       listen 127.0.0.1:%d;\n" % p for p in ports)
        with open(conf, "w") as f:
            f.write("""load_module %(module)s;
daemon off; worker_processes 2;
pid %(w)s/nginx.pid; error_log %(w)s/error.log;
events { worker_connections 8192; }
http { log_format timed '%(format)s'; access_log %(log)s timed;
       client_body_temp_path %(w)s; proxy_temp_path %(w)s; fastcgi_temp_path %(w)s;
       uwsgi_temp_path %(w)s; scgi_temp_path %(w)s;
       keepalive_requests 1000000; types { application/rss+xml xml; }
       server {
%(listen)s       root "%(root)s";
       # The delay, then the static file (ETag, Last-Modified, conditional GETs) as nginx serves it.
       location /f/ { echo_sleep %(delay)s; echo_exec @file; }
       location @file { }
       } }
""" % {"module": ECHO_MODULE, "w": work, "format": self.FORMAT, "log": self.log, "listen": listen,
       "root": os.path.abspath(corpus), "delay": DELAY})
        with open(os.path.join(work, "nginx.stderr"), "w") as err:  # what it says before its error log opens
            self.proc = subprocess.Popen(["nginx", "-c", conf, "-p", work], stderr=err)
        for port in (ports[0], ports[-1]):
            for _ in range(100):
                if self.proc.poll() is not None:
                    raise Stop("nginx did not start:\n" + self.errors())
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.05)
            else:
                self.stop()
                raise Stop("nginx does not answer on 127.0.0.1:%d:\n%s" % (port, self.errors()))

    def errors(self):
        text = ""
        for name in ("nginx.stderr", "error.log"):
            try:
                with open(os.path.join(self.work, name)) as f:
                    text += f.read()
            except OSError:
                pass
        return text[-2000:]

    def take_log(self, name):
        """Renames the access log to `name` and has nginx begin a new one (its
        workers reopen it on SIGUSR1). Returns the renamed log's path."""
        time.sleep(0.3)  # a request's line is written just after its response is sent
        taken = os.path.join(self.work, name)
        if os.path.exists(self.log):
            os.rename(self.log, taken)
        else:
            open(taken, "w").close()
        os.kill(self.proc.pid, signal.SIGUSR1)
        for _ in range(100):
            if os.path.exists(self.log):
                break
            time.sleep(0.02)
        time.sleep(0.3)  # the workers reopen it after the master
        return taken

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def check_delay(corpus, urls, indices):
    """Fetches a few feeds once: each must take at least the delay and carry its file."""
    lines = []
    for i in indices:
        start = time.monotonic()
        with urllib.request.urlopen(urls[i], timeout=10) as response:
            body = response.read()
            etag = response.headers.get("ETag")
        took = time.monotonic() - start
        with open(os.path.join(corpus, "f", "%d.xml" % i), "rb") as f:
            expected = f.read()
        if body != expected:
            raise Stop("%s did not serve feed %d's file (%d bytes instead of %d)"
                       % (urls[i], i, len(body), len(expected)))
        if not DELAY * 0.95 <= took < DELAY + 0.5:
            raise Stop("%s took %.3f s, not the %.0f ms delay" % (urls[i], took, DELAY * 1000))
        lines.append("%s: %.0f ms, %d bytes, ETag %s" % (urls[i], took * 1000, len(body), etag))
    return lines


# The access log

def max_in_flight(intervals):
    """The most intervals [start, end) that overlap at one moment. A request that
    starts in the millisecond another ends does not overlap it."""
    events = [(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals]
    events.sort()  # at one time, the ends (-1) before the starts
    now = most = 0
    at = None
    for t, step in events:
        now += step
        if now > most:
            most, at = now, t
    return most, at


def read_log(path, feeds):
    """Requests, duplicates, the statuses, the feeds never requested and the most
    requests in flight on one port (and which port, when) from one run's log."""
    per_uri = collections.Counter()
    per_port = collections.defaultdict(list)
    statuses = collections.Counter()
    with open(path) as f:
        for line in f:
            port, uri, end, took, status, _ = line.split()
            # $msec and $request_time come from the same clock reading, in ms:
            # end - duration is the request's start exactly.
            end_ms = int(end.replace(".", ""))
            start_ms = end_ms - int(took.replace(".", ""))
            per_uri[uri] += 1
            per_port[int(port)].append((start_ms, end_ms))
            statuses[status] += 1
    requests = sum(per_uri.values())
    duplicates = requests - len(per_uri)
    missing = sum(1 for i in range(feeds) if "/f/%d.xml" % i not in per_uri)
    most, where, when = 0, None, None
    for port, intervals in per_port.items():
        n, at = max_in_flight(intervals)
        if n > most:
            most, where, when = n, port, at
    return {"requests": requests, "duplicates": duplicates, "duplicated": sum(1 for c in per_uri.values() if c > 1),
            "statuses": statuses, "missing": missing, "per_host": most, "busiest": (where, when)}


# PostgreSQL

class Postgres:
    """A throwaway server (scripts/lib/postgres_server.py --durable) and the CPU time of its processes."""

    def __init__(self):
        script = os.path.join(REPO, "scripts", "lib", "postgres_server.py")
        self.server = subprocess.Popen([sys.executable, script, "--durable"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True)
        self.socket = self.server.stdout.readline().strip()
        if not self.socket.startswith("/"):
            raise Stop("the PostgreSQL server did not start (scripts/setup --test installs it)")
        with open(os.path.join(self.socket, "data", "postmaster.pid")) as f:
            self.postmaster = int(f.readline())
        self.tick = os.sysconf("SC_CLK_TCK")

    def createdb(self, name):
        self.server.stdin.write("createdb %s\n" % name)
        self.server.stdin.flush()
        answer = self.server.stdout.readline().strip()
        if answer != "ok " + name:
            raise Stop("createdb %s: %s" % (name, answer or "the server ended"))
        return "host=%s dbname=%s user=postgres" % (self.socket, name)

    @staticmethod
    def stat(pid):
        """/proc/PID/stat's fields from the state on (field 3 is [0]), or None."""
        try:
            with open("/proc/%d/stat" % pid) as f:
                return f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None

    def children(self):
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                fields = self.stat(int(entry))
                if fields and int(fields[1]) == self.postmaster:
                    found.append(int(entry))
        return found

    def cpu(self):
        """User + system seconds of the postmaster, its children alive and those
        it has reaped (utime, stime, cutime, cstime: fields 14-17)."""
        total = 0
        for pid in [self.postmaster] + self.children():
            fields = self.stat(pid)
            if fields:
                total += sum(int(v) for v in fields[11:15])
        return total / self.tick

    def quiet(self, seconds=10):
        """Waits until no client's backend is left (their CPU then counts in the
        postmaster's cutime and cstime)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            backends = 0
            for pid in self.children():
                try:
                    with open("/proc/%d/cmdline" % pid, "rb") as f:
                        backends += b"[local]" in f.read()
                except OSError:
                    pass
            if not backends:
                return
            time.sleep(0.05)

    def stop(self):
        if self.server.poll() is None:
            self.server.stdin.close()  # the server stops and its folder goes
            self.server.wait()


# The workers

class TimedOut(Exception):
    pass


def alarm(*_):
    raise TimedOut()


def summary_line(path, name):
    with open(path, errors="replace") as f:
        text = f.read()
    # The summary is the worker's last line: `TIME feedmerge worker NAME: N fetched, ...`.
    speaker = "feedmerge worker %s: " % name
    for line in reversed(text.splitlines()):
        if speaker in line and " fetched, " in line:
            return line.split(speaker, 1)[1], text
    return None, text


def fetched(line):
    """N from the summary's `N fetched`."""
    try:
        return int(line.split("fetched")[0].strip())
    except (ValueError, IndexError):
        return None


def run_workers(args, count, opml, dsn, work, tag, others):
    """Starts `count` workers at once and waits for them all. Returns the wall
    time and, per worker, its name, exit time, peak RSS (MB) and summary line."""
    procs = {}
    start = time.monotonic()
    try:
        for k in range(1, count + 1):
            name = "w%d" % k
            cmd = [args.feedmerge, "worker", opml, "--state", dsn, "--drain", "--name", name]
            if not args.defaults:
                # The loopback hosts are the benchmark's own: no spacing between requests (docs/politeness.md).
                cmd += ["--per-host", str(args.per_host)] + loopback_flags(args.feedmerge)
            cmd += ["--jobs", str(args.jobs)] if args.jobs else []
            out = os.path.join(work, "%s-%s.out" % (tag, name))
            with open(out, "w") as f:
                proc = subprocess.Popen(cmd, stdout=f, stderr=f)
            procs[proc.pid] = (name, proc, out, cmd)
        ended = {}
        signal.signal(signal.SIGALRM, alarm)
        signal.alarm(args.timeout)
        try:
            while len(ended) < count:
                pid, status, usage = os.wait4(-1, 0)
                if pid not in procs:
                    raise Stop("%s ended during the run" % others.get(pid, "process %d" % pid))
                name, proc, out, cmd = procs[pid]
                proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
                ended[pid] = time.monotonic() - start
                if proc.returncode != 0:
                    how = ("exit status %d" % proc.returncode if proc.returncode > 0
                           else "signal %d" % -proc.returncode)
                    raise Stop("worker %s failed (%s): %s\n%s" % (name, how, shlex.join(cmd),
                                                                 summary_line(out, name)[1][-3000:]))
                # ru_maxrss is in KiB; MB here is 10^6 bytes.
                procs[pid] = (name, proc, out, usage.ru_maxrss * 1024 / 1e6)
        except TimedOut:
            raise Stop("%d of %d workers still running after %d s (does --drain end them?)"
                       % (count - len(ended), count, args.timeout))
        finally:
            signal.alarm(0)
        wall = max(ended.values())
        rows = []
        for pid, (name, _, out, rss) in procs.items():
            line, _ = summary_line(out, name)
            rows.append((name, ended[pid], rss, line))
        return wall, sorted(rows, key=lambda row: int(row[0][1:]))
    finally:
        end_workers([entry[1] for entry in procs.values()])


def end_workers(procs):
    """Ends the workers still running (an interrupted or stopped run)."""
    running = [p for p in procs if p.returncode is None and p.poll() is None]
    for p in running:
        p.terminate()
    deadline = time.monotonic() + 5
    for p in running:
        try:
            p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def check_worker_command(binary):
    """The release build must have the worker command: `feedmerge worker --help`
    must succeed and describe --drain (a build without it reads `worker` as a
    SOURCE and prints the main command's help)."""
    try:
        out = subprocess.run([binary, "worker", "--help"], capture_output=True, text=True, timeout=30)
    except OSError as error:
        raise Stop("cannot run %s: %s" % (binary, error))
    if out.returncode != 0 or "--drain" not in out.stdout + out.stderr:
        raise Stop("%s has no worker command (`feedmerge worker --help` %s); build one that does"
                   % (binary, "exited with status %d" % out.returncode if out.returncode
                      else "does not describe --drain"))


# The benchmark

def main():
    ap = argparse.ArgumentParser(description="feedmerge worker processes sharing a PostgreSQL state")
    ap.add_argument("feedmerge")
    ap.add_argument("--feeds", type=int, default=100000)
    ap.add_argument("--hosts", type=int, default=250)
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--per-host", type=int, default=4, help="passed to every worker; the limit checked")
    ap.add_argument("--jobs", type=int, help="passed to every worker (default: the worker's own)")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds a run may take")
    ap.add_argument("--corpus", help="default: .build/bench-workers-corpus-FEEDS")
    ap.add_argument("--keep", action="store_true", help="keep the work folder (logs, worker output)")
    ap.add_argument("--defaults", action="store_true",
                    help="the workers at their polite defaults (one request at a time per host, a second "
                         "apart): no --per-host, no --host-spacing; the limit checked is 1")
    args = ap.parse_args()
    if args.defaults:
        args.per_host = 1  # the limit a worker keeps by default, checked in nginx's log
    counts = [int(w) for w in args.workers.split(",")]
    corpus = args.corpus or os.path.join(REPO, ".build", "bench-workers-corpus-%d" % args.feeds)

    check_worker_command(args.feedmerge)
    make_corpus(corpus, args.feeds)
    work = tempfile.mkdtemp(prefix="bench-workers-")
    os.chmod(work, 0o755)  # nginx's workers (nobody) reopen the access log in it
    nginx = postgres = None
    failed = False
    try:
        ports = free_ports(args.hosts)
        nginx = Nginx(corpus, ports, work)
        urls = ["http://127.0.0.1:%d/f/%d.xml" % (ports[i % len(ports)], i) for i in range(args.feeds)]
        opml = os.path.join(work, "feeds.opml")
        write_opml(opml, urls)
        for line in check_delay(corpus, urls, sorted({0, args.feeds - 1})):
            print("delay check: " + line)
        nginx.take_log("access-check.log")
        postgres = Postgres()
        others = {nginx.proc.pid: "nginx", postgres.server.pid: "the PostgreSQL server"}

        print("%d feeds (%.1f KB on average) on %d hosts (127.0.0.1 ports %d-%d), every response held %d ms; "
              "%s%s; PostgreSQL on a Unix socket, fsync on"
              % (args.feeds, sum(os.path.getsize(os.path.join(corpus, "f", "%d.xml" % i))
                                 for i in range(min(args.feeds, 1000))) / min(args.feeds, 1000) / 1000,
                 len(ports), ports[0], ports[-1], DELAY * 1000,
                 "the worker's defaults (--per-host 1, --host-spacing 1)" if args.defaults
                 else "--per-host %d --host-spacing 0" % args.per_host,
                 ", --jobs %d" % args.jobs if args.jobs else ", the worker's default --jobs"), flush=True)
        results = collections.defaultdict(list)
        for run in range(1, args.runs + 1):
            for count in counts:
                tag = "w%d-r%d" % (count, run)
                dsn = postgres.createdb("bench_" + tag.replace("-", "_"))
                postgres.quiet()
                cpu_before = postgres.cpu()
                wall, workers = run_workers(args, count, opml, dsn, work, tag, others)
                postgres.quiet()
                cpu = postgres.cpu() - cpu_before
                log = read_log(nginx.take_log("access-%s.log" % tag), args.feeds)
                rss = max(w[2] for w in workers)
                results[count].append({"wall": wall, "cpu": cpu, "rss": rss, **log})
                print("\n%d worker%s, run %d: %.2f s, %d requests (%s), %d duplicates, at most %d in flight "
                      "on one host, PostgreSQL CPU %.2f s"
                      % (count, "s" if count > 1 else "", run, wall, log["requests"],
                         ", ".join("%s: %d" % kv for kv in sorted(log["statuses"].items())),
                         log["duplicates"], log["per_host"], cpu))
                for name, ended, peak, line in workers:
                    print("  %-4s exited at %7.2f s, peak RSS %4.0f MB: %s"
                          % (name, ended, peak, line or "(no summary line on stderr)"))
                counted = [fetched(line) if line else None for _, _, _, line in workers]
                if None not in counted:
                    print("  fetched in all, by the summaries: %d of %d feeds" % (sum(counted), args.feeds))
                if log["missing"]:
                    print("  %d feeds never requested" % log["missing"])
                if log["per_host"] > args.per_host:
                    port, at = log["busiest"]
                    print("  %d in flight on 127.0.0.1:%d at %s" % (log["per_host"], port,
                          time.strftime("%H:%M:%S", time.localtime(at / 1000)) + ".%03d" % (at % 1000)))
                sys.stdout.flush()
        failed = report(args, counts, results)
    finally:
        if nginx:
            nginx.stop()
        if postgres:
            postgres.stop()
        if args.keep:
            print("work folder kept: %s" % work)
        else:
            shutil.rmtree(work, True)
    return 1 if failed else 0


def report(args, counts, results):
    """The table and the checks. True when the fetching was wrong (a duplicate,
    a host over its limit, a feed never requested)."""
    def median(count, key):
        return statistics.median(r[key] for r in results[count])

    def worst(count, key):
        return max(r[key] for r in results[count])

    base = median(1, "wall") if 1 in results else None
    print("\n%d feeds, %d hosts, %d ms per response%s"
          % (args.feeds, args.hosts, DELAY * 1000, ", median of %d runs" % args.runs if args.runs > 1 else ""))
    header = ("workers", "wall s", "feeds/s", "speedup vs 1", "requests", "duplicates",
              "max per-host in flight", "peak RSS per worker (max) MB", "PostgreSQL CPU s")
    print("  ".join(header))
    widths = [len(h) for h in header]
    for count in counts:
        wall = median(count, "wall")
        cells = [str(count), "%.2f" % wall, "%.0f" % (args.feeds / wall),
                 "%.2fx" % (base / wall) if base else "-", "%.0f" % median(count, "requests"),
                 str(worst(count, "duplicates")), str(worst(count, "per_host")), "%.0f" % worst(count, "rss"),
                 "%.2f" % median(count, "cpu")]
        print("  ".join(c.rjust(w) for c, w in zip(cells, widths)))
    if args.jobs:
        print("floor (every worker's %d transfers always busy, at most %d per host): %s"
              % (args.jobs, args.per_host, ", ".join(
                  "%d: %.1f s" % (c, math.ceil(args.feeds / min(c * args.jobs, args.hosts * args.per_host)) * DELAY)
                  for c in counts)))

    def check(ok, text):
        print("%s  %s" % ("PASS" if ok else "FAIL", text))
        return ok

    print()
    duplicates = max(worst(c, "duplicates") for c in counts)
    per_host = max(worst(c, "per_host") for c in counts)
    missing = max(worst(c, "missing") for c in counts)
    rss = max(worst(c, "rss") for c in counts)
    wrong = not check(duplicates == 0, "duplicates: %d (none allowed)" % duplicates)
    wrong |= not check(per_host <= args.per_host, "per-host in flight: at most %d (limit %d)"
                       % (per_host, args.per_host))
    wrong |= not check(missing == 0, "every feed requested: %d never requested in the worst run" % missing)
    check(rss <= RSS_LIMIT_MB, "peak RSS per worker: %.0f MB (at most %d MB)" % (rss, RSS_LIMIT_MB))
    for count, least in SPEEDUPS.items():
        if count in results and base:
            check(base / median(count, "wall") >= least, "%d workers: %.2fx the throughput of 1 (at least %.1fx)"
                  % (count, base / median(count, "wall"), least))
    return wrong


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the finally blocks end nginx and PostgreSQL
    try:
        sys.exit(main())
    except Stop as error:
        sys.exit("bench-workers stopped: %s" % error)
    except KeyboardInterrupt:
        sys.exit("bench-workers: interrupted")
