#!/usr/bin/env python3
"""Worker benchmark: 1, 2 and 4 `feedmerge worker` processes sharing one
PostgreSQL state, fetching 100,000 small feeds from 250 slow hosts; then a
page and the health report rendered from that state. Several sizes
(--feeds 100000,1000000) are compared per feed.

    bench_workers.py FEEDMERGE_BINARY [--feeds 100000[,1000000...]] [--hosts 250] [--workers 1,2,4]
                     [--runs 1] [--per-host 4] [--jobs N] [--lease S] [--timeout 3600] [--bodies generated|files]
                     [--corpus DIR] [--render-memory 8000] [--also BINARY] [--keep]

The feeds: RSS 2.0 documents of about 5 KB each (8 items with title, link,
guid, pubDate and description; each feed its own text and dates, its newest
item (N mod 100,000) hours before 2026-01-01), served by nginx from 127.0.0.1
on HOSTS ports: a host is a (127.0.0.1, port) pair, as feedmerge's per-host
limit counts host:port, and feed N is http://127.0.0.1:PORT/f/N.xml, the
feeds dealt round-robin over the ports. With --bodies generated (the
default) nginx makes feed N from N alone (njs, feed_body.js: nothing is
stored, so a million feeds cost no disk); with --bodies files they are
static files written once into .build/bench-workers-files-ttl-FEEDS (--corpus
to put them elsewhere). Either way a feed has an ETag and a Last-Modified
(its newest item's date) and a conditional GET naming either is answered
304. Every response is held 100 ms before it is sent (the nginx echo
module, `echo_sleep 0.1`), so the run is bound by latency as real fetching
is. Before each size, a few feeds are fetched: each answer must take the
delay, carry the bytes feed() here makes (feed_body.js is the same
algorithm), its ETag and Last-Modified, and 304 to both conditional GETs.
The feeds are listed in OPML files of at most 100,000 feeds (a list file
is read within a worker's --max-bytes, 16 MiB); every worker is given them
all.

For each size, each worker count W (--workers), --runs times, on a fresh
database of a throwaway PostgreSQL server (scripts/lib/postgres_server.py
--durable: fsync on, a Unix socket), W processes of

    feedmerge worker OPML... --state 'host=SOCKETDIR dbname=DB user=postgres'
                     --drain --name wK --per-host L [--jobs N] [--lease S]

start at once (each subscribes the list, claims hosts and fetches). Measured:
  wall s        from the start until the last worker exits (every due feed
                fetched once: --drain ends a worker once nothing it may
                claim is due); feeds/s = FEEDS / wall
  speedup vs 1  the 1-worker wall time over this one's
  requests, duplicates, max per-host in flight
                from nginx's access log of that run (port, URI, end time and
                duration of every request, to the millisecond): requests
                beyond the first for one URI are duplicates, but for one
                made 50 minutes or more after the one before it, which asks
                a feed due again (its line counts them apart; each feed's
                ttl of a day makes none due again in a run); a request is in
                flight from its start (end - duration) until its end, and the
                most requests in flight at any moment on one port is that
                host's concurrency; the column is the largest over the ports
  peak RSS      the largest of the W workers' peak resident sets (wait4;
                it counts what a worker holds of this process until its
                exec, so the logs are read in a child process: this one
                stays at some 30 MB)
  worker CPU    user + system CPU of the W workers, summed (wait4)
  list read     when a worker's start-up line came (its list read) and its
                peak RSS then (VmHWM)
  PostgreSQL CPU s
                user + system CPU of the server's processes during the run
                (the postmaster and its children from /proc, the children that
                ended included through the postmaster's cutime and cstime);
                nginx's the same way
  database      pg_database_size after the run
Each worker's summary line (`feedmerge worker wK: N fetched, ...`) is shown.
With several runs, wall, feeds/s, requests and CPU are medians; duplicates,
per-host concurrency and peak RSS the worst run's.

Then, on the last run's database (wall, CPU and peak RSS from wait4, and
PostgreSQL's CPU), in the work folder:
  render   feedmerge render --state DSN OPML... -o page-FEEDS.html
  health   feedmerge render --state DSN --health health-FEEDS.json -o all-FEEDS.json
           (every feed the state lists; the report must list them all)
With --also BINARY (repeatable), that build renders both after this one,
on the same state. A render whose resident set passes --render-memory MB
(8000) is ended and reported so. Per feed, for each size: worker CPU, PostgreSQL CPU, wall and
nginx CPU in ms, database bytes; the render's and health report's wall, CPU
and PostgreSQL CPU in ms.

Checked, as PASS/FAIL lines: no duplicates; per-host concurrency at most
--per-host; every feed requested; the health report lists every feed;
peak RSS per worker at most 150 MB; 2 workers at least 1.8x the throughput
of 1, 4 workers at least 3.2x; with several sizes, the largest's per-feed
worker CPU, PostgreSQL CPU and wall at most 1.2x the smallest's, and the
workers' and renders' peak RSS within 1.2x (flat, bounded). The exit status
is 1 when a duplicate, a host over its limit or a feed never requested was
seen (the fetching is wrong); the rest are measurements, reported only. A
worker that fails, or outlives --timeout, stops the benchmark.

For a quick check: --feeds 2000 --hosts 50. --keep leaves the work folder
(nginx's logs per run, each worker's output, the OPML files, the outputs)
and prints its path.
"""
import argparse
import collections
import glob
import html
import math
import os
import pickle
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
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DELAY = 0.1  # seconds nginx holds every response
FIRST_PORT = 20000  # below the kernel's ephemeral ports, which clients' connections take
RSS_LIMIT_MB = 150
TICK = os.sysconf("SC_CLK_TCK")
LIST_FEEDS = 100000  # feeds per OPML file
PER_FEED_RATIO = 1.2  # the largest size's per-feed cost over the smallest's, at most
SPEEDUPS = {2: 1.8, 4: 3.2}
ECHO_MODULE = "/usr/lib/nginx/modules/ngx_http_echo_module.so"
JS_MODULE = "/usr/lib/nginx/modules/ngx_http_js_module.so"

NEWEST = 1767225600  # 2026-01-01: feed N's newest item is (N mod SPAN) hours earlier
SPAN = 100000
# Each feed asks to be polled at most daily (RSS ttl, in minutes; feed_body.js says why).
TTL = 1440
WORDS = ("feed merge worker lease claim host socket latency queue due fetch parse entry channel item "
         "server client request response header body cache etag modified planet river news post blog "
         "update release note community open source linux kernel compiler test bench memory thread").split()
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


class Stop(Exception):
    """The benchmark cannot go on; the message says why."""


# The feeds: feed() here and in feed_body.js are one algorithm, kept in step by
# check_server, which compares what nginx serves with what feed() makes.

class Draw:
    """A 32-bit linear congruential generator seeded by the feed's number (as
    feed_body.js's Draw); next(n) is an integer in [0, n) from its high 16 bits."""

    def __init__(self, i):
        self.s = (i * 0x9E3779B1) & 0xFFFFFFFF

    def next(self, n):
        self.s = (self.s * 1664525 + 1013904223) & 0xFFFFFFFF
        return ((self.s >> 16) * n) >> 16

    def words(self, n):
        return " ".join(WORDS[self.next(len(WORDS))] for _ in range(n))

    def sentence(self, n):
        text = self.words(n)
        return text[0].upper() + text[1:]


def http_date(seconds):
    t = time.gmtime(seconds)
    return "%s, %02d %s %d %02d:%02d:%02d GMT" % (DAYS[t.tm_wday], t.tm_mday, MONTHS[t.tm_mon - 1], t.tm_year,
                                                 t.tm_hour, t.tm_min, t.tm_sec)


def feed(i):
    """Feed i: RSS 2.0, 8 items, about 5 KB, and its newest item's date (Unix
    seconds, its Last-Modified); the same i gives the same bytes."""
    r = Draw(i)
    newest = NEWEST - (i % SPAN) * 3600
    items, first = [], None
    for k in range(8):
        when = newest - k * 86400 - r.next(86400)
        first = first or when
        link = "https://blog%d.example.org/%d/%d" % (i, k, i)
        title = r.sentence(6)
        description = ('&lt;p&gt;%s &lt;a href="%s"&gt;%s&lt;/a&gt;.&lt;/p&gt;&lt;p&gt;%s.&lt;/p&gt;'
                       % (r.sentence(22), link, r.words(2), r.sentence(18)))
        items.append('<item><title>%s</title><link>%s</link><guid isPermaLink="false">feed%d-item%d</guid>'
                     "<pubDate>%s</pubDate><description>%s</description></item>"
                     % (title, link, i, k, http_date(when), description))
    body = ('<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>Feed %d</title>'
            "<link>https://blog%d.example.org/</link><description>%s</description><ttl>%d</ttl>\n%s\n</channel></rss>\n"
            % (i, i, r.sentence(8), TTL, "\n".join(items)))
    return body, first


def make_files(folder, feeds):
    """FOLDER/f/0.xml ... (feeds - 1).xml, each dated its Last-Modified, written
    once: a folder that exists is complete (the feeds are written beside it and
    renamed into place at the end)."""
    if os.path.isdir(os.path.join(folder, "f")):
        return
    print("bench-workers: writing %d feeds into %s" % (feeds, folder), file=sys.stderr, flush=True)
    partial = folder + ".partial"
    shutil.rmtree(partial, True)
    os.makedirs(os.path.join(partial, "f"))
    for i in range(feeds):
        path = os.path.join(partial, "f", "%d.xml" % i)
        body, modified = feed(i)
        with open(path, "w") as f:
            f.write(body)
        os.utime(path, (modified, modified))
    os.rename(partial, folder)


def write_opml(path, urls, first=0):
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n<opml version="2.0"><head><title>bench-workers'
                "</title></head><body>\n")
        for i, url in enumerate(urls, first):
            f.write('<outline type="rss" text="Feed %d" xmlUrl="%s"/>\n' % (i, html.escape(url)))
        f.write("</body></opml>\n")


def write_lists(folder, feeds, url):
    """The feeds as OPML files of at most LIST_FEEDS feeds each (FOLDER/feeds-FEEDS-K.opml),
    every one given to every worker: a list file is read within the worker's --max-bytes
    (16 MiB, about 190,000 of these feeds), as any source is."""
    paths = []
    for first in range(0, feeds, LIST_FEEDS):
        paths.append(os.path.join(folder, "feeds-%d-%d.opml" % (feeds, len(paths) + 1)))
        write_opml(paths[-1], (url(i) for i in range(first, min(feeds, first + LIST_FEEDS))), first)
    return paths


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
    """nginx answering /f/N.xml on every port, each response held DELAY seconds:
    feed N made by feed_body.js (njs) from N (bodies "generated"), or the
    static file FILES/f/N.xml (bodies "files"); each with its ETag and
    Last-Modified and 304 to a conditional GET. The access log (one line a
    request: port, URI, end time, duration, status, bytes) is taken out and
    begun anew by take_log()."""

    FORMAT = "$server_port $request_uri $msec $request_time $status $bytes_sent"

    def __init__(self, bodies, files, ports, work):
        modules = [ECHO_MODULE] + ([JS_MODULE] if bodies == "generated" else [])
        for module, package in zip(modules, ("libnginx-mod-http-echo", "libnginx-mod-http-js")):
            if not os.path.exists(module):
                raise Stop("an nginx module is missing (%s): apt-get install %s" % (module, package))
        self.work = work
        self.log = os.path.join(work, "access.log")
        conf = os.path.join(work, "nginx.conf")
        listen = "".join("       listen 127.0.0.1:%d;\n" % p for p in ports)
        if bodies == "generated":
            # The delay, then the body feed_body.js makes from N (with its ETag, Last-Modified and 304s).
            serve = 'js_import feed from "%s";\n       location @feed { js_content feed.serve; }' % os.path.join(
                HERE, "feed_body.js")
        else:
            # The delay, then the static file (ETag, Last-Modified, conditional GETs) as nginx serves it.
            serve = 'root "%s";\n       location @feed { }' % os.path.abspath(files)
        with open(conf, "w") as f:
            f.write("""%(modules)s
daemon off; worker_processes 2;
pid %(w)s/nginx.pid; error_log %(w)s/error.log;
events { worker_connections 8192; }
http { log_format timed '%(format)s'; access_log %(log)s timed;
       client_body_temp_path %(w)s; proxy_temp_path %(w)s; fastcgi_temp_path %(w)s;
       uwsgi_temp_path %(w)s; scgi_temp_path %(w)s;
       keepalive_requests 1000000; types { application/rss+xml xml; }
       server {
%(listen)s       location /f/ { echo_sleep %(delay)s; echo_exec @feed; }
       %(serve)s
       } }
""" % {"modules": "".join("load_module %s;\n" % m for m in modules), "w": work, "format": self.FORMAT,
       "log": self.log, "listen": listen, "serve": serve, "delay": DELAY})
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

    def cpu(self):
        """User + system seconds of nginx's master and workers."""
        return tree_cpu(self.proc.pid)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def etag(i):
    """Feed i's ETag, as nginx makes a static file's: its Last-Modified and length in hex."""
    body, modified = feed(i)
    return '"%x-%x"' % (modified, len(body.encode()))


def get(url, headers):
    """Status, headers, body and seconds of one GET (a 304 is an answer, not an error)."""
    start = time.monotonic()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as response:
            answer = (response.status, response.headers, response.read())
    except urllib.error.HTTPError as error:
        answer = (error.code, error.headers, error.read())
    return answer + (time.monotonic() - start,)


def check_server(urls, indices):
    """Fetches a few feeds (URLS[i] for i in INDICES), each three times: each answer must take at least the
    delay; the first must carry the feed (feed()'s bytes, ETag and
    Last-Modified), and the conditional GETs that name its ETag or its date
    must be answered 304."""
    lines = []
    for i in indices:
        body, modified = feed(i)
        expected = body.encode()
        status, headers, got, took = get(urls[i], {})
        if status != 200 or got != expected:
            raise Stop("%s did not serve feed %d (status %d, %d bytes, %s, instead of feed()'s %d bytes)"
                       % (urls[i], i, status, len(got), "the same" if got == expected else "others", len(expected)))
        if (headers.get("ETag"), headers.get("Last-Modified")) != (etag(i), http_date(modified)):
            raise Stop("%s: ETag %s and Last-Modified %s, not %s and %s" % (
                urls[i], headers.get("ETag"), headers.get("Last-Modified"), etag(i), http_date(modified)))
        times = [took]
        for name, value in (("If-None-Match", etag(i)), ("If-Modified-Since", http_date(modified))):
            status, _, got, took = get(urls[i], {name: value})
            if status != 304 or got:
                raise Stop("%s with %s: %s answered %d (%d bytes), not 304" % (urls[i], name, value, status, len(got)))
            times.append(took)
        for took in times:
            if not DELAY * 0.95 <= took < DELAY + 0.5:
                raise Stop("%s took %.3f s, not the %.0f ms delay" % (urls[i], took, DELAY * 1000))
        lines.append("%s: %s ms, %d bytes, ETag %s, 304 to If-None-Match and to If-Modified-Since"
                     % (urls[i], "/".join("%.0f" % (t * 1000) for t in times), len(expected), etag(i)))
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


def in_child(function, *args):
    """function(*args) in a forked process. What it allocates (a million lines of a
    log read into dicts: some 250 MB) never swells this one: a worker started from
    here holds this process's resident set until its exec, and wait4's ru_maxrss
    counts that as the worker's peak."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        status = 1
        try:
            with os.fdopen(write, "wb") as f:
                pickle.dump(function(*args), f)
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise Stop("%s%r failed in its process" % (function.__name__, args))
    return pickle.loads(data)


# A request for a feed this long after the one before it is the feed asked again
# because it is due again (a fetched feed's next check is at least an hour after
# its claim, a few seconds before its fetch, unless its ttl says later), not a
# duplicate: a run of one worker over 1,000,000 feeds lasts longer than an hour.
REPOLL_MS = 50 * 60 * 1000


def read_log(path, feeds):
    """Requests, duplicates (repolls of feeds due again apart), the statuses, the feeds
    never requested and the most requests in flight on one port (and which port,
    when) from one run's log."""
    per_uri = collections.Counter()
    last_start = {}
    repolls = 0
    per_port = collections.defaultdict(list)
    statuses = collections.Counter()
    with open(path) as f:
        for line in f:
            port, uri, end, took, status, _ = line.split()
            # $msec and $request_time come from the same clock reading, in ms:
            # end - duration is the request's start exactly.
            end_ms = int(end.replace(".", ""))
            start_ms = end_ms - int(took.replace(".", ""))
            if uri in last_start and abs(start_ms - last_start[uri]) >= REPOLL_MS:
                repolls += 1
            last_start[uri] = max(start_ms, last_start.get(uri, start_ms))
            per_uri[uri] += 1
            per_port[int(port)].append((start_ms, end_ms))
            statuses[status] += 1
    requests = sum(per_uri.values())
    duplicates = requests - len(per_uri) - repolls
    missing = sum(1 for i in range(feeds) if "/f/%d.xml" % i not in per_uri)
    most, where, when = 0, None, None
    for port, intervals in per_port.items():
        n, at = max_in_flight(intervals)
        if n > most:
            most, where, when = n, port, at
    return {"requests": requests, "duplicates": duplicates, "repolls": repolls,
            "duplicated": sum(1 for c in per_uri.values() if c > 1),
            "statuses": statuses, "missing": missing, "per_host": most, "busiest": (where, when)}


# Processes' CPU

def stat(pid):
    """/proc/PID/stat's fields from the state on (field 3 is [0]), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def children(parent):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = stat(int(entry))
            if fields and int(fields[1]) == parent:
                found.append(int(entry))
    return found


def tree_cpu(root):
    """User + system seconds of ROOT, its children alive and those it has reaped
    (utime, stime, cutime, cstime: fields 14-17)."""
    total = 0
    for pid in [root] + children(root):
        fields = stat(pid)
        if fields:
            total += sum(int(v) for v in fields[11:15])
    return total / TICK


def peak_rss(pid):
    """VmHWM of a live process in MB (10^6 bytes), or None."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024 / 1e6
    except OSError:
        return None
    return None


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

    def createdb(self, name):
        self.server.stdin.write("createdb %s\n" % name)
        self.server.stdin.flush()
        answer = self.server.stdout.readline().strip()
        if answer != "ok " + name:
            raise Stop("createdb %s: %s" % (name, answer or "the server ended"))
        return "host=%s dbname=%s user=postgres" % (self.socket, name)

    def cpu(self):
        """User + system seconds of the server's processes, those ended included."""
        return tree_cpu(self.postmaster)

    def sql(self, query, database="postgres"):
        """One value: psql's unaligned answer to QUERY."""
        psql = os.path.join(os.path.dirname(glob.glob("/usr/lib/postgresql/*/bin/psql")[-1]), "psql")
        out = subprocess.run([psql, "-X", "-At", "-h", self.socket, "-U", "postgres", "-d", database, "-c", query],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise Stop("psql %s: %s" % (query, out.stderr.strip()))
        return out.stdout.strip()

    def size(self, name):
        """Bytes the database takes on disk (pg_database_size)."""
        return int(self.sql("SELECT pg_database_size('%s')" % name))

    def dropdb(self, name):
        self.sql("DROP DATABASE %s" % name)

    def quiet(self, seconds=10):
        """Waits until no client's backend is left (their CPU then counts in the
        postmaster's cutime and cstime)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            backends = 0
            for pid in children(self.postmaster):
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


class ListProbe(threading.Thread):
    """Watches each worker's output for its start-up line (`... starting: ...,
    N feeds listed`, said once its list is read) and notes the seconds since
    the start and the worker's peak RSS (VmHWM) then, read within 20 ms of
    the line."""

    def __init__(self, start):
        super().__init__(daemon=True)
        self.start_time, self.watched, self.seen = start, {}, {}
        self.done = threading.Event()

    def watch(self, pid, out):
        self.watched[pid] = out

    def run(self):
        while not self.done.wait(0.02) and len(self.seen) < len(self.watched):
            for pid, out in list(self.watched.items()):
                if pid in self.seen:
                    continue
                try:
                    with open(out, errors="replace") as f:
                        started = " starting: " in f.read(4096)
                except OSError:
                    started = False
                if started:
                    self.seen[pid] = (time.monotonic() - self.start_time, peak_rss(pid))

    def stop(self):
        self.done.set()
        self.join()


def run_workers(args, count, lists, dsn, work, tag, others):
    """Starts `count` workers at once and waits for them all. Returns the wall
    time and, per worker, its name, exit time, peak RSS (MB), CPU seconds (user
    + system), summary line, and the seconds and peak RSS at its start-up line
    (its list read)."""
    procs = {}
    start = time.monotonic()
    probe = ListProbe(start)
    try:
        for k in range(1, count + 1):
            name = "w%d" % k
            cmd = [args.feedmerge, "worker"] + lists + ["--state", dsn, "--drain", "--name", name]
            if not args.defaults:
                # The loopback hosts are the benchmark's own: no spacing between requests (docs/politeness.md).
                cmd += ["--per-host", str(args.per_host)] + loopback_flags(args.feedmerge)
            cmd += ["--jobs", str(args.jobs)] if args.jobs else []
            cmd += ["--lease", str(args.lease)] if args.lease else []
            out = os.path.join(work, "%s-%s.out" % (tag, name))
            with open(out, "w") as f:
                proc = subprocess.Popen(cmd, stdout=f, stderr=f)
            procs[proc.pid] = (name, proc, out, cmd)
            probe.watch(proc.pid, out)
        probe.start()
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
                procs[pid] = (name, proc, out, usage.ru_maxrss * 1024 / 1e6, usage.ru_utime + usage.ru_stime)
        except TimedOut:
            raise Stop("%d of %d workers still running after %d s (does --drain end them?)"
                       % (count - len(ended), count, args.timeout))
        finally:
            signal.alarm(0)
            probe.stop()
        wall = max(ended.values())
        rows = []
        for pid, (name, _, out, rss, cpu) in procs.items():
            line, _ = summary_line(out, name)
            listed = probe.seen.get(pid, (None, None))
            rows.append({"name": name, "ended": ended[pid], "rss": rss, "cpu": cpu, "line": line,
                         "list_s": listed[0], "list_rss": listed[1]})
        return wall, sorted(rows, key=lambda row: int(row["name"][1:]))
    finally:
        end_workers([entry[1] for entry in procs.values()])


class MemoryGuard(threading.Thread):
    """Ends a process whose resident set passes LIMIT MB (read every 0.2 s), so
    that a command whose memory grows with the state cannot take the machine."""

    def __init__(self, proc, limit):
        super().__init__(daemon=True)
        self.proc, self.limit, self.ended_at = proc, limit, None
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(0.2):
            try:
                with open("/proc/%d/status" % self.proc.pid) as f:
                    rss = next((int(line.split()[1]) * 1024 / 1e6 for line in f if line.startswith("VmRSS:")), 0)
            except OSError:
                return
            if rss > self.limit:
                self.ended_at = rss
                self.proc.kill()
                return

    def stop(self):
        self.done.set()
        self.join()


def run_timed(cmd, out, timeout, cwd=None, memory_limit=None):
    """Runs one command to its end: its wall seconds, CPU seconds (user +
    system) and peak RSS (MB) from wait4, and None, or the resident set (MB)
    at which it was ended for passing MEMORY_LIMIT. Another failure stops the
    benchmark."""
    start = time.monotonic()
    with open(out, "w") as f:
        proc = subprocess.Popen(cmd, stdout=f, stderr=f, cwd=cwd)
    guard = MemoryGuard(proc, memory_limit or float("inf"))
    guard.start()
    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(timeout)
    try:
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    except TimedOut:
        end_workers([proc])
        raise Stop("%s still running after %d s" % (shlex.join(cmd), timeout))
    finally:
        signal.alarm(0)
        guard.stop()
    wall = time.monotonic() - start
    if proc.returncode != 0 and guard.ended_at is None:
        with open(out, errors="replace") as f:
            raise Stop("%s exited with status %d:\n%s" % (shlex.join(cmd), proc.returncode, f.read()[-3000:]))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024 / 1e6, guard.ended_at


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
    ap.add_argument("--feeds", default="100000", help="how many; several (100000,1000000) compare their per-feed cost")
    ap.add_argument("--hosts", type=int, default=250)
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--per-host", type=int, default=4, help="passed to every worker; the limit checked")
    ap.add_argument("--jobs", type=int, help="passed to every worker (default: the worker's own)")
    ap.add_argument("--lease", type=int, help="seconds, passed to every worker (default: the worker's own)")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds a run (or a render) may take")
    ap.add_argument("--bodies", choices=("generated", "files"), default="generated",
                    help="generated: nginx makes feed N from N (njs); files: static files written once")
    ap.add_argument("--corpus", help="the files of --bodies files (default: .build/bench-workers-files-ttl-FEEDS)")
    ap.add_argument("--render-memory", type=int, default=8000,
                    help="MB of resident memory at which a render is ended (and reported so)")
    ap.add_argument("--also", action="append", default=[], metavar="BINARY",
                    help="another feedmerge whose render and health report run too, on the same state, "
                         "after this one's (a before/after of the renders)")
    ap.add_argument("--keep", action="store_true", help="keep the work folder (logs, worker output, outputs)")
    ap.add_argument("--defaults", action="store_true",
                    help="the workers at their polite defaults (one request at a time per host, a second "
                         "apart): no --per-host, no --host-spacing; the limit checked is 1")
    args = ap.parse_args()
    args.feedmerge = os.path.abspath(args.feedmerge)  # the render runs in the work folder
    args.also = [os.path.abspath(b) for b in args.also]
    if args.defaults:
        args.per_host = 1  # the limit a worker keeps by default, checked in nginx's log
    counts = [int(w) for w in args.workers.split(",")]
    sizes = [int(f) for f in args.feeds.split(",")]
    files = None
    if args.bodies == "files":  # the largest size's files serve every size: feed N is the same file
        files = args.corpus or os.path.join(REPO, ".build", "bench-workers-files-ttl-%d" % max(sizes))
        make_files(files, max(sizes))

    check_worker_command(args.feedmerge)
    work = tempfile.mkdtemp(prefix="bench-workers-")
    os.chmod(work, 0o755)  # nginx's workers (nobody) reopen the access log in it
    nginx = postgres = None
    failed = False
    try:
        ports = free_ports(args.hosts)
        nginx = Nginx(args.bodies, files, ports, work)
        postgres = Postgres()
        others = {nginx.proc.pid: "nginx", postgres.server.pid: "the PostgreSQL server"}
        results, phases = {}, {}
        for feeds in sizes:
            results[feeds], phases[feeds] = bench_size(args, feeds, counts, ports, nginx, postgres, work, others)
        failed = report(args, sizes, counts, results, phases)
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


def bench_size(args, feeds, counts, ports, nginx, postgres, work, others):
    """Every run at one size, then the render and the health report on the
    last run's database. Returns the runs per worker count and the phases."""
    def url(i):
        return "http://127.0.0.1:%d/f/%d.xml" % (ports[i % len(ports)], i)

    lists = write_lists(work, feeds, url)
    for line in check_server({i: url(i) for i in (0, feeds - 1)}, sorted({0, feeds - 1})):
        print("server check: " + line)
    nginx.take_log("access-check-%d.log" % feeds)
    sample = range(0, feeds, max(1, feeds // 1000))
    average = sum(len(feed(i)[0]) for i in sample) / len(sample)
    print("\n%d feeds (%.1f KB on average, %s) on %d hosts (127.0.0.1 ports %d-%d), every response held %d ms; "
          "%s%s; PostgreSQL on a Unix socket, fsync on"
          % (feeds, average / 1000, "made by nginx from their number" if args.bodies == "generated"
             else "static files", len(ports), ports[0], ports[-1], DELAY * 1000,
             "the worker's defaults (--per-host 1, --host-spacing 1)" if args.defaults
             else "--per-host %d --host-spacing 0" % args.per_host,
             ", --jobs %d" % args.jobs if args.jobs else ", the worker's default --jobs"), flush=True)
    results = collections.defaultdict(list)
    last = None
    for run in range(1, args.runs + 1):
        for count in counts:
            tag = "n%d-w%d-r%d" % (feeds, count, run)
            if last:
                postgres.dropdb(last)  # only the last run's database is kept, for the render
            last = "bench_" + tag.replace("-", "_")
            dsn = postgres.createdb(last)
            postgres.quiet()
            cpu_before, nginx_before = postgres.cpu(), nginx.cpu()
            wall, workers = run_workers(args, count, lists, dsn, work, tag, others)
            postgres.quiet()
            cpu, nginx_cpu = postgres.cpu() - cpu_before, nginx.cpu() - nginx_before
            log = in_child(read_log, nginx.take_log("access-%s.log" % tag), feeds)
            size = postgres.size(last)
            listed = [w for w in workers if w["list_s"] is not None]
            results[count].append({"wall": wall, "cpu": cpu, "nginx_cpu": nginx_cpu, "db": size,
                                   "rss": max(w["rss"] for w in workers),
                                   "worker_cpu": sum(w["cpu"] for w in workers),
                                   "list_s": max((w["list_s"] for w in listed), default=None),
                                   "list_rss": max((w["list_rss"] or 0 for w in listed), default=None), **log})
            print("\n%d feeds, %d worker%s, run %d: %.2f s, %d requests (%s), %d duplicates%s, at most %d in flight "
                  "on one host; CPU: workers %.2f s, PostgreSQL %.2f s, nginx %.2f s; database %.1f MB"
                  % (feeds, count, "s" if count > 1 else "", run, wall, log["requests"],
                     ", ".join("%s: %d" % kv for kv in sorted(log["statuses"].items())),
                     log["duplicates"], " (and %d feeds asked again, due again after an hour)" % log["repolls"]
                     if log["repolls"] else "", log["per_host"], results[count][-1]["worker_cpu"], cpu, nginx_cpu,
                     size / 1e6))
            for w in workers:
                print("  %-4s list read at %s, exited at %7.2f s, CPU %6.2f s, peak RSS %4.0f MB: %s"
                      % (w["name"], "%.2f s (%.0f MB)" % (w["list_s"], w["list_rss"] or 0)
                         if w["list_s"] is not None else "-", w["ended"], w["cpu"], w["rss"],
                         w["line"] or "(no summary line on stderr)"))
            counted = [fetched(w["line"]) if w["line"] else None for w in workers]
            if None not in counted:
                print("  fetched in all, by the summaries: %d of %d feeds" % (sum(counted), feeds))
            if log["missing"]:
                print("  %d feeds never requested" % log["missing"])
            if log["per_host"] > args.per_host:
                port, at = log["busiest"]
                print("  %d in flight on 127.0.0.1:%d at %s" % (log["per_host"], port,
                      time.strftime("%H:%M:%S", time.localtime(at / 1000)) + ".%03d" % (at % 1000)))
            sys.stdout.flush()
    dsn = "host=%s dbname=%s user=postgres" % (postgres.socket, last)
    done = {}
    renders = []
    for binary, suffix in [(args.feedmerge, "")] + [(b, " (%s)" % os.path.basename(b)) for b in args.also]:
        renders += [
            ("render" + suffix, binary, ["render", "--state", dsn] + lists + ["-o", "page-%d.html" % feeds],
             ["page-%d.html" % feeds]),
            ("health" + suffix, binary,
             ["render", "--state", dsn, "--health", "health-%d.json" % feeds, "-o", "all-%d.json" % feeds],
             ["health-%d.json" % feeds, "all-%d.json" % feeds])]
    for phase, binary, cmd, outputs in renders:
        postgres.quiet()
        before = postgres.cpu()
        wall, cpu, rss, ended = run_timed([binary] + cmd, os.path.join(work, "%s-%d.out" % (phase, feeds)),
                                          args.timeout, cwd=work, memory_limit=args.render_memory)
        postgres.quiet()
        if ended:
            done[phase] = {"wall": wall, "cpu": cpu, "rss": rss, "pg_cpu": postgres.cpu() - before, "bytes": 0,
                           "feeds": 0, "ended": ended}
            print("%s: feedmerge %s\n  ended at %.0f MB resident (--render-memory %d) after %.2f s, CPU %.2f s"
                  % (phase, shlex.join(cmd), ended, args.render_memory, wall, cpu))
            continue
        lengths = [os.path.getsize(os.path.join(work, o)) for o in outputs]
        done[phase] = {"wall": wall, "cpu": cpu, "rss": rss, "pg_cpu": postgres.cpu() - before, "bytes": lengths[0]}
        if phase.startswith("health"):
            done[phase]["feeds"] = count_feeds(os.path.join(work, outputs[0]))
        print("%s: feedmerge %s\n  %.2f s, CPU %.2f s, peak RSS %.0f MB, PostgreSQL CPU %.2f s; %s"
              % (phase, shlex.join(cmd), wall, cpu, rss, done[phase]["pg_cpu"],
                 ", ".join("%s %.1f MB" % (o, n / 1e6) for o, n in zip(outputs, lengths))
                 + ("; %d feeds reported" % done[phase]["feeds"] if phase.startswith("health") else "")))
        for o in outputs:
            if not args.keep:
                os.unlink(os.path.join(work, o))
    postgres.dropdb(last)
    return results, done


def count_feeds(path):
    """How many feeds a health report lists (its `"url":` keys), read in pieces."""
    count, tail = 0, b""
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                return count
            text = tail + chunk
            count += text.count(b'"url":')
            tail = text[-5:]  # a key cut in two is counted once, in the next piece


def report(args, sizes, counts, results, phases):
    """The tables and the checks. True when the fetching was wrong (a duplicate,
    a host over its limit, a feed never requested)."""
    def median(feeds, count, key):
        return statistics.median(r[key] for r in results[feeds][count])

    def worst(feeds, count, key):
        return max(r[key] for r in results[feeds][count])

    def table(header, rows):
        print("  ".join(header))
        widths = [len(h) for h in header]
        for cells in rows:
            print("  ".join(c.rjust(w) for c, w in zip(cells, widths)))

    for feeds in sizes:
        base = median(feeds, 1, "wall") if 1 in counts else None
        print("\n%d feeds, %d hosts, %d ms per response%s"
              % (feeds, args.hosts, DELAY * 1000, ", median of %d runs" % args.runs if args.runs > 1 else ""))
        table(("workers", "wall s", "feeds/s", "speedup vs 1", "requests", "duplicates",
               "max per-host in flight", "peak RSS per worker (max) MB", "PostgreSQL CPU s", "database MB"),
              [[str(c), "%.2f" % median(feeds, c, "wall"), "%.0f" % (feeds / median(feeds, c, "wall")),
                "%.2fx" % (base / median(feeds, c, "wall")) if base else "-", "%.0f" % median(feeds, c, "requests"),
                str(worst(feeds, c, "duplicates")), str(worst(feeds, c, "per_host")),
                "%.0f" % worst(feeds, c, "rss"), "%.2f" % median(feeds, c, "cpu"), "%.0f" % (median(feeds, c, "db") / 1e6)]
               for c in counts])
        if args.jobs:
            print("floor (every worker's %d transfers always busy, at most %d per host): %s"
                  % (args.jobs, args.per_host, ", ".join(
                      "%d: %.1f s" % (c, math.ceil(feeds / min(c * args.jobs, args.hosts * args.per_host)) * DELAY)
                      for c in counts)))

    # Per feed: what two sizes compare.
    def per_feed(feeds, count):
        return {"worker CPU": median(feeds, count, "worker_cpu"), "PostgreSQL CPU": median(feeds, count, "cpu"),
                "wall": median(feeds, count, "wall")}

    print("\nper feed (ms; worker CPU summed over the workers; the render's and health report's on the last run's "
          "state)")
    rows = []
    for feeds in sizes:
        for c in counts:
            cost = per_feed(feeds, c)
            rows.append([str(feeds), str(c)] + ["%.3f" % (v * 1000 / feeds) for v in cost.values()]
                        + ["%.3f" % (median(feeds, c, "nginx_cpu") * 1000 / feeds),
                           "%.0f" % (median(feeds, c, "db") / feeds), "%.0f" % worst(feeds, c, "rss"),
                           "%.2f" % worst(feeds, c, "list_s") if results[feeds][c][0]["list_s"] is not None else "-"])
    table(("feeds", "workers", "worker CPU", "PostgreSQL CPU", "wall", "nginx CPU", "database bytes",
           "worker peak RSS MB", "list read s"), rows)
    table(("feeds", "phase", "wall ms", "CPU ms", "PostgreSQL CPU ms", "peak RSS MB", "output MB"),
          [[str(feeds), phase, "%.3f" % (p["wall"] * 1000 / feeds), "%.3f" % (p["cpu"] * 1000 / feeds),
            "%.3f" % (p["pg_cpu"] * 1000 / feeds), "%.0f" % p["rss"],
            "ended" if "ended" in p else "%.1f" % (p["bytes"] / 1e6)]
           for feeds in sizes for phase, p in phases[feeds].items()])

    def check(ok, text):
        print("%s  %s" % ("PASS" if ok else "FAIL", text))
        return ok

    print()
    wrong = False
    for feeds in sizes:
        duplicates = max(worst(feeds, c, "duplicates") for c in counts)
        per_host = max(worst(feeds, c, "per_host") for c in counts)
        missing = max(worst(feeds, c, "missing") for c in counts)
        rss = max(worst(feeds, c, "rss") for c in counts)
        wrong |= not check(duplicates == 0, "%d feeds: duplicates: %d (none allowed)" % (feeds, duplicates))
        wrong |= not check(per_host <= args.per_host, "%d feeds: per-host in flight: at most %d (limit %d)"
                           % (feeds, per_host, args.per_host))
        wrong |= not check(missing == 0, "%d feeds: every feed requested: %d never requested in the worst run"
                           % (feeds, missing))
        reported = phases[feeds]["health"]["feeds"]
        check(reported == feeds, "%d feeds: the health report lists %d feeds" % (feeds, reported))
        for phase, p in phases[feeds].items():
            check("ended" not in p, "%d feeds: %s %s" % (feeds, phase, "ended at %.0f MB resident" % p["ended"]
                                                         if "ended" in p else "within %d MB" % args.render_memory))
        check(rss <= RSS_LIMIT_MB, "%d feeds: peak RSS per worker: %.0f MB (at most %d MB)" % (feeds, rss, RSS_LIMIT_MB))
        base = median(feeds, 1, "wall") if 1 in counts else None
        for count, least in SPEEDUPS.items():
            if count in counts and base:
                speedup = base / median(feeds, count, "wall")
                check(speedup >= least, "%d feeds: %d workers: %.2fx the throughput of 1 (at least %.1fx)"
                      % (feeds, count, speedup, least))
    if len(sizes) > 1:
        small, large = sizes[0], sizes[-1]
        print("\n%d feeds over %d, per feed (at most %.1fx; memory: peak RSS, flat or bounded within %.1fx)"
              % (large, small, PER_FEED_RATIO, PER_FEED_RATIO))
        for c in counts:
            a, b = per_feed(small, c), per_feed(large, c)
            for key in a:
                ratio = (b[key] / large) / (a[key] / small)
                check(ratio <= PER_FEED_RATIO, "%d workers: %s per feed %.2fx (%.3f ms, %.3f ms)"
                      % (c, key, ratio, a[key] * 1000 / small, b[key] * 1000 / large))
            ratio = worst(large, c, "rss") / worst(small, c, "rss")
            check(ratio <= PER_FEED_RATIO, "%d workers: worker peak RSS %.2fx (%.0f MB, %.0f MB): flat"
                  % (c, ratio, worst(small, c, "rss"), worst(large, c, "rss")))
        for phase in ("render", "health"):
            a, b = phases[small][phase], phases[large][phase]
            check(b["rss"] / a["rss"] <= PER_FEED_RATIO, "%s: peak RSS %.2fx (%.0f MB, %.0f MB): bounded"
                  % (phase, b["rss"] / a["rss"], a["rss"], b["rss"]))
            print("      %s: wall per feed %.2fx, CPU per feed %.2fx, PostgreSQL CPU per feed %.2fx"
                  % (phase, (b["wall"] / large) / (a["wall"] / small), (b["cpu"] / large) / (a["cpu"] / small),
                     (b["pg_cpu"] / large) / max(a["pg_cpu"] / small, 1e-9)))
    return wrong


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the finally blocks end nginx and PostgreSQL
    try:
        sys.exit(main())
    except Stop as error:
        sys.exit("bench-workers stopped: %s" % error)
    except KeyboardInterrupt:
        sys.exit("bench-workers: interrupted")
