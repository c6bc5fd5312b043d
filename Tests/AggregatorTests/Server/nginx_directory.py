#!/usr/bin/env python3
"""nginx on 127.0.0.1 serving a key directory as an operator would, for
SignedRequestTests: the folder SITE as its root, and the directives
`feedmerge key directory --headers-format nginx` wrote (INCLUDE) in the
directory's location.

  nginx_directory.py SITE INCLUDE WORK

WORK holds nginx's configuration, pid and logs. Prints the port; stops
nginx and exits when its stdin closes.
"""
import os
import socket
import subprocess
import sys
import time

site, include, work = sys.argv[1:4]
probe = socket.socket()
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()
conf = os.path.join(work, "nginx.conf")
with open(conf, "w") as f:
    f.write("""daemon off; worker_processes 1; pid %(w)s/nginx.pid; error_log %(w)s/error.log;
events { worker_connections 64; }
http { access_log off; client_body_temp_path %(w)s; proxy_temp_path %(w)s; fastcgi_temp_path %(w)s;
       uwsgi_temp_path %(w)s; scgi_temp_path %(w)s;
       server { listen 127.0.0.1:%(port)d; root %(site)s;
                location = /.well-known/http-message-signatures-directory { include %(include)s; } } }
""" % {"w": work, "site": site, "include": include, "port": port})
nginx = subprocess.Popen(["nginx", "-c", conf, "-p", work], stderr=subprocess.DEVNULL)
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        break
    except OSError:
        if nginx.poll() is not None:
            sys.exit("nginx did not start: see %s/error.log" % work)
        time.sleep(0.05)
print(port, flush=True)
sys.stdin.read()
nginx.terminate()
nginx.wait()
