#!/usr/bin/env python3
"""Cross-replica staleness: how long after a write on replica A replica B answers it.

Used by bench/postgres-replicas.sh (results in bench/RESULTS.md). COUNT times, one at a time, for
a random seeded (user, app) location record:
  0. wait a random time, uniformly up to PAUSE_MS: B's follower reads the change log every
     100 ms, and a loop that started each write right after B's last read would meet B's next
     read always about 100 ms later (a write every ~100 ms falls into step with it);
  1. GET it on B (no Permission-Consistency), so that B holds it in its read cache;
  2. PUT on A a status other than the one B answered (denied <-> notDetermined); A's answer
     gives the record's new version;
  3. GET it on B again and again, keep-alive, POLL_MS apart, until B answers that version
     (or a later one).
The staleness of one write is the time from A's answer arriving to the first of B's answers
showing it: what a client that writes through A and then reads through B without
Permission-Consistency can see. Prints the samples' p50, p99 and max in milliseconds (p99 by
nearest rank), the polls per write, and one line per sample into SAMPLES_FILE when given.

Standard library only. Arguments: A_URL B_URL; environment: BENCH_API_KEY, USERS, APPS,
COUNT (200), POLL_MS (1), PAUSE_MS (100), SAMPLES_FILE, DEADLINE_S (5: a sample not seen on B
by then fails the run).
"""

import http.client
import json
import math
import os
import random
import sys
import time
import urllib.parse


def connect(url):
    parts = urllib.parse.urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)


def request(connection, method, path, headers, body=None):
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read()
    if response.status != 200:
        raise SystemExit(f"{method} {path}: {response.status} {data[:200]!r}")
    return json.loads(data)


def nearest_rank(sorted_values, fraction):
    return sorted_values[max(0, math.ceil(fraction * len(sorted_values)) - 1)]


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: staleness.py A_URL B_URL")
    a, b = connect(sys.argv[1]), connect(sys.argv[2])
    users = int(os.environ.get("USERS", "100"))
    apps = int(os.environ.get("APPS", "100"))
    count = int(os.environ.get("COUNT", "200"))
    poll = float(os.environ.get("POLL_MS", "1")) / 1000
    deadline_s = float(os.environ.get("DEADLINE_S", "5"))
    pause = float(os.environ.get("PAUSE_MS", "100")) / 1000
    auth = {"Authorization": "Bearer " + os.environ["BENCH_API_KEY"]}
    put_headers = dict(auth, **{"Content-Type": "application/json"})
    random.seed()
    samples, polls = [], []
    for _ in range(count):
        time.sleep(random.uniform(0, pause))
        path = "/v1/users/u%d/apps/com.example.app%d/authorizations/location" % (
            random.randrange(users), random.randrange(apps))
        before = request(b, "GET", path, auth)
        status = "notDetermined" if before["status"] == "denied" else "denied"
        written = request(a, "PUT", path, put_headers, json.dumps({"status": status}))
        acknowledged = time.monotonic()
        version = written["version"]
        n = 0
        while True:
            n += 1
            seen = request(b, "GET", path, auth)
            now = time.monotonic()
            if seen["version"] >= version:
                if seen["version"] == version and seen["status"] != status:
                    raise SystemExit(f"{path}: B answers version {version} with status {seen['status']}")
                break
            if now - acknowledged > deadline_s:
                raise SystemExit(f"{path}: B still answers version {seen['version']} after {deadline_s} s")
            time.sleep(poll)
        samples.append((now - acknowledged) * 1000)
        polls.append(n)
    if os.environ.get("SAMPLES_FILE"):
        with open(os.environ["SAMPLES_FILE"], "w") as out:
            out.writelines("%.3f\n" % s for s in samples)
    ordered = sorted(samples)
    print("staleness over %d writes: p50 %.1f ms, p99 %.1f ms, max %.1f ms, min %.1f ms; %.1f polls per write on average"
          % (len(samples), nearest_rank(ordered, 0.5), nearest_rank(ordered, 0.99), ordered[-1], ordered[0],
             sum(polls) / len(polls)))


if __name__ == "__main__":
    main()
