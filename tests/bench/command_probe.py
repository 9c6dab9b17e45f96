#!/usr/bin/env python3
"""How long single commands make the frontier's other clients wait.

usage: command_probe.py [HOSTS (100000)] [PER_HOST (5)] [BINARY]
Starts crawl-frontier on 127.0.0.1 (ephemeral ports, a temp data dir, one
io thread), queues HOSTS x PER_HOST URLs, then sends each command below
once while a second process sends FRONTIER.STATS (which takes the crawl
lock) every millisecond on its own connection; prints each command's time
and the longest STATS round trip among those overlapping it. Ends with a
BF.RESERVE of a 180 MB filter and a whole BF.SCANDUMP of it. The frontier
is stopped by its PID. docs/benchmarks.md, "Read commands with 10^5 hosts"
and "BF.RESERVE of a large filter".
"""
import socket
import sys
import tempfile
import time

from long_add_probe import (encode, longest_wait, read_reply, start_frontier,
                            start_probe)

COMMANDS = [
    ['FRONTIER.HOSTS', 'TOP', '100'], ['FRONTIER.HOSTS'],
    ['FRONTIER.QUEUE', 'h7.test', 'COUNT', '10000'], ['FRONTIER.SCAN', '0', 'COUNT', '10000'],
    ['FRONTIER.STATS'], ['INFO'], ['FRONTIER.CRAWLS'], ['FRONTIER.WORKERS'],
    ['FRONTIER.LEASE', 'w1', '1000'], ['FRONTIER.URL', 'http://h7.test/p/3'],
    ['BF.RESERVE', 'big', '0.001', '100000000', 'NONSCALING'],
]


def fill(s, f, hosts, per_host):
    for h0 in range(0, hosts, 1000):
        urls = ['http://h%d.test/p/%d' % (h, i)
                for h in range(h0, min(hosts, h0 + 1000)) for i in range(per_host)]
        s.sendall(encode(['FRONTIER.ADD'] + urls))
        read_reply(f)


def dump(s, f):
    cursor, calls = 0, 0
    while calls < 1000:  # bounded: a 180 MB filter is 46 chunks
        s.sendall(encode(['BF.SCANDUMP', 'big', str(cursor)]))
        cursor = int(read_reply(f)[0][1:])
        calls += 1
        if cursor == 0:
            break
    return calls


def main():
    hosts = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    per_host = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    binary = sys.argv[3] if len(sys.argv) > 3 else 'build/bin/crawl-frontier'
    with tempfile.TemporaryDirectory(prefix='command-probe.') as work:
        proc, port = start_frontier(binary, work, 1)
        try:
            s = socket.create_connection(('127.0.0.1', port))
            f = s.makefile('rb')
            t = time.monotonic()
            fill(s, f, hosts, per_host)
            print('queued %d URLs over %d hosts in %.1f s' %
                  (hosts * per_host, hosts, time.monotonic() - t))
            finish_probe = start_probe(port)
            time.sleep(0.5)
            windows = []
            for command in COMMANDS:
                t0 = time.monotonic()
                s.sendall(encode(command))
                read_reply(f)
                windows.append((' '.join(command[:2]), t0, time.monotonic()))
                time.sleep(0.2)
            t0 = time.monotonic()
            calls = dump(s, f)
            windows.append(('BF.SCANDUMP x%d' % calls, t0, time.monotonic()))
            probes = finish_probe()
        finally:
            proc.terminate()
            proc.wait()
    for name, t0, t1 in windows:
        print('%-32s %7.1f ms; other client waited up to %6.1f ms' %
              (name, (t1 - t0) * 1000, longest_wait(probes, t0, t1)[0] * 1000))


if __name__ == '__main__':
    main()
