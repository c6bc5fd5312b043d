#!/usr/bin/env python3
"""The main command at its default settings (state on, --limit 1000, the
default jobs), as users run it: the 1,000-feed corpus served by nginx on
127.0.0.1, three outputs, a first run with a fresh state and an unchanged
second run (all 304). Several binaries are interleaved, median of 3.

    bench_default.py CORPUS_DIR BINARY [BINARY...]
"""
import sys, os, glob, tempfile, statistics, subprocess
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_fetch import start_nginx
from timing import timed
folder=os.path.join(sys.argv[1], 'feeds')
names=sorted(os.path.basename(f) for f in glob.glob(folder+'/*.xml'))
work=tempfile.mkdtemp()
nginx, port = start_nginx(folder, work)
urls=['http://127.0.0.1:%d/%s'%(port,n) for n in names]
bins={b: b for b in sys.argv[2:]}
res={k:{'first':[], 'second':[], 'rss':[]} for k in bins}
try:
    for r in range(3):
        for k,b in bins.items():
            st=os.path.join(work,'state-%d-%d.sqlite'%(list(bins).index(k),r))
            o=os.path.join(work,'o')
            cmd=[b]+urls+['-o',o+'.atom','-o',o+'.rss','-o',o+'.json','--state',st,'-q','--link','http://bench.example/']
            outs=[o+'.atom',o+'.rss',o+'.json']
            w,c,m=timed(cmd,outs); res[k]['first'].append((w,c)); res[k]['rss'].append(m)
            w2,c2,_=timed(cmd,outs); res[k]['second'].append((w2,c2))
finally:
    nginx.terminate()
print('default settings (state on, --limit 1000, default jobs), 1000 feeds via nginx on 127.0.0.1, median of 3, interleaved')
for k in bins:
    f=res[k]['first']; s=res[k]['second']
    print('%s\n    first run %.2f s wall / %.2f s CPU, peak %.0f MB; unchanged second run %.2f s wall' % (k, statistics.median(x[0] for x in f), statistics.median(x[1] for x in f), statistics.median(res[k]['rss']), statistics.median(x[0] for x in s)))
