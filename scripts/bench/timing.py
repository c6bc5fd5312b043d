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
