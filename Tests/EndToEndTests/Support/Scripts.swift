import LiveTestSupport

/// Python `http.client` drivers for the live tests (run with `python3 -c SCRIPT ARGS`). Each
/// prints one JSON object a line on standard output.
enum Scripts {
    /// Concurrent durable writes: `THREADS` workers, each on its own keep-alive connection,
    /// PUT `{"status": "denied"}` on camera for users `r<thread>-<i>` of `APP`, printing
    /// `{"user", "status"}` per answered request. Once `KILL_AFTER` answers were printed, one
    /// worker sends SIGKILL to `PID` (the server the test started) while the others keep writing.
    /// Args: PORT APP THREADS PER_THREAD KILL_AFTER PID.
    static let writeBurstThenKill = #"""
        import http.client, json, os, signal, sys, threading
        AUTH = "Bearer \#(ServerProcess.adminKey)"
        port, app, threads, per, kill_after, pid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
        lock = threading.Lock()
        answered = [0]
        killed = [False]
        def worker(t):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            for i in range(per):
                user = "r%d-%d" % (t, i)
                try:
                    conn.request("PUT", "/v1/users/%s/apps/%s/authorizations/camera" % (user, app),
                                 body='{"status": "denied"}', headers={"Content-Type": "application/json", "Authorization": AUTH})
                    response = conn.getresponse()
                    response.read()
                except Exception as error:
                    with lock:
                        print(json.dumps({"user": user, "error": type(error).__name__}), flush=True)
                    return
                with lock:
                    print(json.dumps({"user": user, "status": response.status}), flush=True)
                    answered[0] += 1
                    if answered[0] >= kill_after and not killed[0]:
                        killed[0] = True
                        os.kill(pid, signal.SIGKILL)
        workers = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
        for w in workers: w.start()
        for w in workers: w.join()
        """#

    /// Reads back what `writeBurstThenKill` acknowledged. Args: PORT APP, then the acknowledged
    /// users on standard input, one a line. Prints one summary object.
    static let verifyAcknowledged = #"""
        import http.client, json, sys
        AUTH = "Bearer \#(ServerProcess.adminKey)"
        port, app = int(sys.argv[1]), sys.argv[2]
        users = [line.strip() for line in sys.stdin if line.strip()]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        def get(path):
            conn.request("GET", path, headers={"Authorization": AUTH})
            response = conn.getresponse()
            return response.status, json.loads(response.read() or b"null")
        not_denied = []
        for user in users:
            status, body = get("/v1/users/%s/apps/%s/authorizations/camera" % (user, app))
            if status != 200 or body.get("status") != "denied" or body.get("version", 0) < 1:
                not_denied.append([user, status, body])
        entries, after = [], 0
        while True:
            status, page = get("/v1/audit?after=%d&limit=500" % after)
            if status != 200:
                print(json.dumps({"auditStatus": status, "auditBody": page}))
                sys.exit(0)
            items = page.get("items", [])
            if not items:
                break
            entries.extend(items)
            after = items[-1]["seq"]
        seqs = [e["seq"] for e in entries]
        audited = set(e.get("user") for e in entries
                      if e.get("app") == app and e.get("service") == "camera" and (e.get("to") or {}).get("status") == "denied")
        print(json.dumps({
            "checked": len(users),
            "notDenied": not_denied[:5],
            "notDeniedCount": len(not_denied),
            "missingAudit": [u for u in users if u not in audited][:5],
            "missingAuditCount": len([u for u in users if u not in audited]),
            "auditCount": len(entries),
            "gapFree": seqs == list(range(1, len(seqs) + 1)),
        }))
        """#

    /// A burst of requests during which the server gets SIGTERM: `THREADS` workers on keep-alive
    /// connections alternate a durable PUT and a GET, each with its own `X-Request-Id`
    /// (`sd-<thread>-<i>`). After `TERM_AFTER` answers one worker sends SIGTERM to `PID`; the
    /// workers go on until their connection ends. Prints every answered id with its status and
    /// the connection error that ended each worker. Args: PORT APP THREADS TERM_AFTER PID.
    static let burstThenTerminate = #"""
        import http.client, json, os, signal, sys, threading
        AUTH = "Bearer \#(ServerProcess.adminKey)"
        port, app, threads, term_after, pid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
        lock = threading.Lock()
        answered = []
        errors = []
        sent_term = [False]
        def worker(t):
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
                for i in range(100000):
                    rid = "sd-%d-%d" % (t, i)
                    user = "s%d-%d" % (t, i)
                    path = "/v1/users/%s/apps/%s/authorizations/camera" % (user, app)
                    if i % 2 == 0:
                        conn.request("PUT", path, body='{"status": "denied"}',
                                     headers={"Content-Type": "application/json", "X-Request-Id": rid, "Authorization": AUTH})
                    else:
                        conn.request("GET", path, headers={"X-Request-Id": rid, "Authorization": AUTH})
                    response = conn.getresponse()
                    response.read()
                    with lock:
                        answered.append([response.getheader("X-Request-Id"), response.status])
                        if len(answered) >= term_after and not sent_term[0]:
                            sent_term[0] = True
                            os.kill(pid, signal.SIGTERM)
                    if response.getheader("Connection", "").lower() == "close":
                        break
            except Exception as error:
                with lock:
                    errors.append(type(error).__name__)
        workers = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
        for w in workers: w.start()
        for w in workers: w.join()
        print(json.dumps({"answered": answered, "errors": errors, "sentTerm": sent_term[0]}))
        """#
}
