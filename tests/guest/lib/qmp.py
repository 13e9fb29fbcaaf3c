#!/usr/bin/env python3
"""tests/guest/lib/qmp.py - the few QMP requests tests/guest/test-migrate.sh makes.

usage: qmp.py SOCK migrate URI [SECS [MIBPS [HOOK_SYNCS HOOK]]]
                                      migrate to URI at MIBPS MiB/s (QEMU's default
                                      when absent or 0), wait up to SECS (60) for the
                                      end; prints "status=S total_ms=T downtime_ms=D
                                      setup_ms=U ram_mb=R dirty_syncs=N"; 0 if completed.
                                      once the migration is active with HOOK_SYNCS dirty
                                      syncs done (2: the first pass over RAM is over,
                                      QEMU copies what got dirty since), runs the shell
                                      command HOOK once and adds "hook_rc=R hook_ms=D
                                      hook_before=S/N hook_after=S/N" (status/dirty syncs
                                      around it); 1 if HOOK never ran. Until 1.5 s after
                                      HOOK is done the downtime limit is 1 ms, so QEMU
                                      keeps copying (no switch-over) however long HOOK
                                      takes, and for a while after it
       qmp.py SOCK running [SECS]     wait up to SECS (30) for the VM to run (a
                                      migration destination after the switch-over)
       qmp.py SOCK quit               stop QEMU
Exit status: 0 ok, 1 failed or timed out, 2 QMP socket not there or refused.
"""
import json
import socket
import subprocess
import sys
import time


def connect(path, secs=10.0):
    end = time.monotonic() + secs
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            break
        except OSError as e:
            s.close()
            if time.monotonic() > end:
                print(f"qmp: cannot connect to {path}: {e}", file=sys.stderr)
                sys.exit(2)
            time.sleep(0.05)
    f = s.makefile("rw")
    json.loads(f.readline())  # greeting
    request(f, "qmp_capabilities")
    return f


def request(f, name, args=None):
    msg = {"execute": name}
    if args:
        msg["arguments"] = args
    f.write(json.dumps(msg) + "\n")
    f.flush()
    while True:
        line = f.readline()
        if not line:
            if name == "quit":
                return {}
            print(f"qmp: {name}: connection closed", file=sys.stderr)
            sys.exit(1)
        r = json.loads(line)
        if "return" in r:
            return r["return"]
        if "error" in r:
            print(f"qmp: {name}: {r['error'].get('desc')}", file=sys.stderr)
            sys.exit(1)
        # asynchronous events: not asked for


def migrate_state(f):
    r = request(f, "query-migrate")
    return f"{r.get('status', 'none')}/{r.get('ram', {}).get('dirty-sync-count', -1)}"


def migrate(f, uri, secs, mbps, hook_syncs=None, hook=None):
    # At full speed a TCG guest hardly runs while QEMU copies its RAM; at a
    # few tens of MiB/s it does, and its traffic dirties pages already sent
    if mbps > 0:
        request(f, "migrate-set-parameters", {"max-bandwidth": int(mbps * 1048576)})
    if hook:
        limit = request(f, "query-migrate-parameters").get("downtime-limit", 300)
        request(f, "migrate-set-parameters", {"downtime-limit": 1})
    request(f, "migrate", {"uri": uri})
    end = time.monotonic() + secs
    hooked = ""
    release = None          # when the downtime limit goes back
    while True:
        r = request(f, "query-migrate")
        st = r.get("status", "none")
        if st in ("completed", "failed", "cancelled") or time.monotonic() > end:
            break
        if release and time.monotonic() >= release:
            request(f, "migrate-set-parameters", {"downtime-limit": limit})
            release = None
        if hook and not hooked and st == "active" and \
                r.get("ram", {}).get("dirty-sync-count", 0) >= hook_syncs:
            before = migrate_state(f)
            t = time.monotonic()
            rc = subprocess.call(["sh", "-c", hook], stdout=sys.stderr)
            d = int((time.monotonic() - t) * 1000)
            hooked = f" hook_rc={rc} hook_ms={d} hook_before={before} hook_after={migrate_state(f)}"
            release = time.monotonic() + 1.5
            continue
        time.sleep(0.05)
    ram = r.get("ram", {})
    print(f"status={st} total_ms={r.get('total-time', -1)} "
          f"downtime_ms={r.get('downtime', -1)} setup_ms={r.get('setup-time', -1)} "
          f"ram_mb={ram.get('transferred', 0) // 1048576} "
          f"dirty_syncs={ram.get('dirty-sync-count', -1)}"
          + (f" error={r['error-desc']!r}" if "error-desc" in r else "")
          + (hooked if hook else ""))
    if hook and not hooked:
        print("qmp: the hook never ran: the migration was not active long enough",
              file=sys.stderr)
        return 1
    return 0 if st == "completed" else 1


def running(f, secs):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if request(f, "query-status").get("running"):
            return 0
        time.sleep(0.05)
    print("qmp: VM not running", file=sys.stderr)
    return 1


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    path, what = sys.argv[1], sys.argv[2]
    f = connect(path)
    if what == "migrate":
        return migrate(f, sys.argv[3], float(sys.argv[4]) if len(sys.argv) > 4 else 60,
                       float(sys.argv[5]) if len(sys.argv) > 5 else 0,
                       int(sys.argv[6]) if len(sys.argv) > 7 else None,
                       sys.argv[7] if len(sys.argv) > 7 else None)
    if what == "running":
        return running(f, float(sys.argv[3]) if len(sys.argv) > 3 else 30)
    if what == "quit":
        request(f, "quit")
        return 0
    print(f"qmp: unknown request {what}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
