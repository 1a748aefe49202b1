#!/usr/bin/env python3
"""Listen on 127.0.0.1:PORT and never accept: connections complete in the
kernel's accept queue and then hear nothing.  The scale benchmarks' absent
nodes (x[1-N]) point at this port, so slurmctld's registration request to
them waits for its reply (MessageTimeout times the tree's depth) in a few
forwarding threads instead of failing at once and being retried by one
thread per node (see bench_curve.sh).  Prints READY when it listens; ends
on SIGTERM."""
import signal
import socket
import sys

port = int(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(4096)
print("READY", flush=True)
signal.sigwait({signal.SIGTERM, signal.SIGINT})
