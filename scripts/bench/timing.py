"""Timing one whole run of a command, as the benchmarks that compare
feedmerge's default settings do."""
import os
import subprocess
import sys


def timed(cmd, outputs):
    """Wall seconds, CPU seconds and peak RSS (MB) of one run. A run that fails
    (non-zero exit, or an output missing or empty) stops the benchmark: timed,
    it would look fast."""
    for o in outputs:
        if os.path.exists(o):
            os.unlink(o)
    out = subprocess.run(['/usr/bin/time', '-f', '%e %U %S %M'] + cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit('benchmark stopped: %s exited with status %d:\n%s' % (cmd[0], out.returncode, out.stderr[-2000:]))
    for o in outputs:
        if not os.path.isfile(o) or os.path.getsize(o) == 0:
            sys.exit('benchmark stopped: %s left %s missing or empty' % (cmd[0], o))
    e, u, s, m = out.stderr.strip().splitlines()[-1].split()
    return float(e), float(u) + float(s), int(m) / 1000


def loopback_flags(binary):
    """What a benchmark passes so that feedmerge asks the loopback servers it
    owns as fast as they answer: no spacing between two requests to one host
    (the default is a second, docs/politeness.md). Empty for a binary that has
    no such option (it had no spacing). Each benchmark names its `--per-host`."""
    help_text = subprocess.run([binary, '--help'], capture_output=True, text=True).stdout
    return ['--host-spacing', '0'] if '--host-spacing' in help_text else []


def fetch_all_flags(binary):
    """A run with a state that must ask every feed again (a second run timed
    for its conditional GETs): `--fetch-all`, where the binary knows it (one
    that does not asked every feed on every run)."""
    help_text = subprocess.run([binary, '--help'], capture_output=True, text=True).stdout
    return ['--fetch-all'] if '--fetch-all' in help_text else []
