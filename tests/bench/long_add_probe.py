#!/usr/bin/env python3
"""How long one long FRONTIER.ADD makes the frontier's other clients wait.

usage: long_add_probe.py [URLS (50000)] [ROUNDS (3)] [IO_THREADS (1)] [BINARY]
                         [COMMAND (FRONTIER.ADD)]
Starts crawl-frontier on 127.0.0.1 (ephemeral ports, a temp data dir) with
server.threads = IO_THREADS. Per round, one connection sends an ADD of URLS
new URLs (or a BF.MADD, BF.INSERT or BF.MEXISTS of as many items on a
filter named probe; BF.MEXISTS's items are added first, untimed) while a
second process sends FRONTIER.STATS (which takes the crawl lock) every
millisecond on its own connection; prints the call's time and the longest
STATS round trip among those overlapping it. The frontier is
stopped by its PID; PROBE_LOG=FILE keeps its log. docs/benchmarks.md, "Long
adds in steps" and "Long BF calls in steps".
"""
import multiprocessing as mp
import os
import socket
import subprocess
import sys
import tempfile
import time


def encode(args):
    out = [b'*%d\r\n' % len(args)]
    for a in args:
        a = a.encode()
        out.append(b'$%d\r\n%s\r\n' % (len(a), a))
    return b''.join(out)


def read_reply(f):
    line = f.readline()
    if line[:1] == b'*':
        return [read_reply(f) for _ in range(int(line[1:]))]
    if line[:1] == b'$':
        return f.read(int(line[1:]) + 2)[:-2]
    if line[:1] == b'-':
        raise RuntimeError(line.decode().strip())
    return line.strip()


def probe(port, stop, results):
    s = socket.create_connection(('127.0.0.1', port))
    f = s.makefile('rb')
    out = []
    deadline = time.monotonic() + 600  # bounded whatever happens
    while not stop.is_set() and time.monotonic() < deadline:
        t = time.monotonic()
        s.sendall(encode(['FRONTIER.STATS']))
        read_reply(f)
        out.append((t, time.monotonic()))
        time.sleep(0.001)
    results.put(out)


def start_probe(port):
    """Starts `probe` in its own process; returns a function that stops it
    (after 0.3 s more) and gives its (start, end) round trips."""
    stop, results = mp.Event(), mp.Queue()
    prober = mp.Process(target=probe, args=(port, stop, results))
    prober.start()

    def finish():
        time.sleep(0.3)
        stop.set()
        out = results.get()
        prober.join()
        return out
    return finish


def longest_wait(probes, t0, t1):
    """The longest round trip overlapping [t0, t1], and how many did."""
    lat = [b - a for a, b in probes if b > t0 and a < t1]
    return max(lat, default=0), len(lat)


def start_frontier(binary, work, threads):
    port_file = os.path.join(work, 'ports')
    proc = subprocess.Popen(
        [binary, '--listen', '127.0.0.1:0', '--http', '', '--data-dir',
         os.path.join(work, 'data'), '--port-file', port_file,
         '--set', 'server.threads=%d' % threads],
        stdout=subprocess.DEVNULL, stderr=open(os.environ.get('PROBE_LOG', os.path.join(work, 'log')), 'w'))
    for _ in range(300):
        if os.path.exists(port_file) and 'resp=' in open(port_file).read():
            text = open(port_file).read()
            return proc, int(text.split('resp=')[1].split()[0])
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.kill()
    sys.exit('crawl-frontier did not start; see %s/log' % work)


def main():
    urls = int(sys.argv[1]) if len(sys.argv) > 1 else 50000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    binary = sys.argv[4] if len(sys.argv) > 4 else 'build/bin/crawl-frontier'
    command = sys.argv[5].upper() if len(sys.argv) > 5 else 'FRONTIER.ADD'
    head = {'FRONTIER.ADD': ['FRONTIER.ADD'], 'BF.MADD': ['BF.MADD', 'probe'],
            'BF.MEXISTS': ['BF.MEXISTS', 'probe'],
            'BF.INSERT': ['BF.INSERT', 'probe', 'ITEMS']}.get(command)
    if head is None:
        sys.exit('COMMAND is FRONTIER.ADD, BF.MADD, BF.MEXISTS or BF.INSERT')
    with tempfile.TemporaryDirectory(prefix='long-add.') as work:
        proc, port = start_frontier(binary, work, threads)
        try:
            finish_probe = start_probe(port)
            s = socket.create_connection(('127.0.0.1', port))
            f = s.makefile('rb')
            windows = []
            time.sleep(0.5)
            for r in range(rounds):
                items = ['http://big%d.test/p/%d' % (r, i) for i in range(urls)]
                if command == 'BF.MEXISTS':
                    s.sendall(encode(['BF.MADD', 'probe'] + items))
                    read_reply(f)
                add = encode(head + items)
                time.sleep(0.3)
                t0 = time.monotonic()
                s.sendall(add)
                reply = read_reply(f)
                windows.append((t0, time.monotonic()))
                assert len(reply) == urls, 'reply of %d entries' % len(reply)
                # A Bloom filter may call a few new items present.
                new = sum(v == b':1' for v in reply)
                assert new >= urls * 0.99, 'only %d of %d as expected' % (new, urls)
            probes = finish_probe()
        finally:
            proc.terminate()
            proc.wait()
    for r, (t0, t1) in enumerate(windows):
        wait, n = longest_wait(probes, t0, t1)
        print('round %d: %s of %d new URLs took %.1f ms; other client waited up to '
              '%.1f ms (%d probes), io threads %d' %
              (r, command, urls, (t1 - t0) * 1000, wait * 1000, n, threads))

if __name__ == '__main__':
    main()
