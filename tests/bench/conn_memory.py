#!/usr/bin/env python3
"""Resident memory per client connection: crawl-frontier against redis-server.

usage: conn_memory.py [CONNECTIONS (default 2000)] [FRONTIER_BINARY]
Starts each server fresh on 127.0.0.1 (an ephemeral port), opens CONNECTIONS
connections, sends one PING on each and reads the reply, then compares the
server's VmRSS before and after. Both servers are stopped by PID.
"""
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def raise_fd_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def vm_rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def wait_for(pred, what, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if pred():
            return
        time.sleep(0.1)
    raise RuntimeError(f"timed out waiting for {what}")


def start_frontier(binary, work):
    port_file = os.path.join(work, "port")
    proc = subprocess.Popen(
        [binary, "--listen", "127.0.0.1:0", "--http", "", "--data-dir",
         os.path.join(work, "data"), "--port-file", port_file, "--log-level", "warn"],
        preexec_fn=raise_fd_limit, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(lambda: os.path.exists(port_file) and os.path.getsize(port_file) > 0,
             "the frontier's port file")
    with open(port_file) as f:
        ports = dict(line.strip().split("=", 1) for line in f if "=" in line)
    return proc, int(ports["resp"])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(work):
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", work, "--maxclients", "20000"],
        preexec_fn=raise_fd_limit, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def up():
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            return False

    wait_for(up, "redis-server")
    return proc, port


def measure(name, proc, port, n):
    time.sleep(0.5)
    before = vm_rss_kb(proc.pid)
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
    for s in socks:
        s.sendall(b"PING\r\n")
    for s in socks:
        s.settimeout(10)
        if not s.recv(64).startswith(b"+PONG"):
            raise RuntimeError(f"{name}: no PONG")
    time.sleep(0.5)
    after = vm_rss_kb(proc.pid)
    for s in socks:
        s.close()
    per = (after - before) * 1024 / n
    print(f"{name:12} VmRSS {before} kB -> {after} kB with {n} connections: "
          f"{per:,.0f} bytes per connection")
    return per


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    binary = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        ROOT, os.environ.get("BUILD_DIR", "build"), "bin", "crawl-frontier")
    raise_fd_limit()
    results = {}
    for name in ("crawlfront", "redis"):
        work = tempfile.mkdtemp(prefix="conn-memory.")
        proc = None
        try:
            proc, port = start_frontier(binary, work) if name == "crawlfront" else start_redis(work)
            results[name] = measure(name, proc, port, n)
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=30)
            shutil.rmtree(work, ignore_errors=True)
    if results["redis"] > 0:
        print(f"crawlfront / redis bytes per connection: x{results['crawlfront'] / results['redis']:.2f}")


if __name__ == "__main__":
    main()
