"""Load test: N phone clients call at the same instant; are calls ordered, none lost, server responsive?

    .venv/bin/python benchmarks/load_test.py [--clients 50] [--rounds 3] [--json]

Starts `referee serve` on 127.0.0.1 only (a free port, a temporary game database), joins N
phones, deals a hand, then in each round releases all N calls at once from N threads
(a barrier) while a probe thread polls GET /api/state. Checks, per round:
- every call answered 200 with a sequence number; sequence numbers unique and contiguous;
- judging order equals arrival order (no voice calls, so `(at, seq)` is arrival);
- the server's call history and the session's exported log hold all N calls in that order;
- the probe's worst latency during the burst stays under `--max-probe-ms`.
Bounded: every request has a timeout; the server is killed at the end.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"  # never anything else: this is a load generator
CODE = "424242"
PLAYERS = ["N", "E", "S", "W"]
RIVAL = {"N": "E", "S": "W", "E": "S", "W": "N"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def request(port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
            timeout: float = 10.0) -> tuple[int, Any]:
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body)
        conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
        res = conn.getresponse()
        raw = res.read()
        return res.status, json.loads(raw) if raw and res.getheader("content-type", "").startswith("application/json") else raw
    finally:
        conn.close()


def start_server(port: int, db: Path, log: Path) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "referee", "serve", "--host", HOST, "--port", str(port), "--db", str(db),
           "--join-code", CODE, "--no-voice"]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited early:\n{log.read_text()[-2000:]}")
        try:
            if request(port, "GET", "/api/state", timeout=2)[0] == 200:
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("server did not start within 60 s")


def burst(port: int, phones: list[dict[str, str]]) -> dict[str, Any]:
    """All phones call at once; a probe measures /api/state latency meanwhile."""
    n = len(phones)
    barrier = threading.Barrier(n + 1)
    results: list[dict[str, Any] | None] = [None] * n
    probe: list[float] = []
    stop = threading.Event()

    def client(i: int) -> None:
        phone = phones[i]
        conn = http.client.HTTPConnection(HOST, port, timeout=20)
        conn.connect()  # connect before the barrier: measure the calls, not TCP set-up
        body = json.dumps({"call": "cut", "target": RIVAL[phone["seat"]]})
        barrier.wait()
        sent = time.perf_counter()
        try:
            conn.request("POST", "/api/phones/call", body=body,
                         headers={"Content-Type": "application/json", "X-Phone-Token": phone["token"]})
            res = conn.getresponse()
            data = json.loads(res.read())
            results[i] = {"status": res.status, "sent": sent, "done": time.perf_counter(), **data}
        except Exception as exc:  # counted as lost below
            results[i] = {"status": 0, "error": str(exc), "sent": sent, "done": time.perf_counter()}
        finally:
            conn.close()

    def prober() -> None:
        while not stop.is_set():
            t0 = time.perf_counter()
            try:
                request(port, "GET", "/api/state", timeout=10)
                probe.append((time.perf_counter() - t0) * 1000)
            except OSError:
                probe.append(float("inf"))
            stop.wait(0.02)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    probe_thread = threading.Thread(target=prober)
    probe_thread.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join(30)
    wall = time.perf_counter() - t0
    stop.set()
    probe_thread.join(15)
    return {"results": results, "probe_ms": probe, "wall_s": wall}


def check_round(port: int, out: dict[str, Any], n: int, seq_base: int) -> dict[str, Any]:
    res = [r for r in out["results"] if r is not None]
    ok = [r for r in res if r["status"] == 200]
    seqs = sorted(r["seq"] for r in ok)
    judged_in_seq_order = [r["judged"] for r in sorted(ok, key=lambda r: r["seq"])]
    history = request(port, "GET", f"/api/calls?limit={n}")[1]["calls"]
    hist_seqs = [c["seq"] for c in history]
    latencies = [(r["done"] - r["sent"]) * 1000 for r in ok]
    probe = out["probe_ms"] or [float("nan")]
    return {
        "answered": len(ok),
        "lost": n - len(ok),
        "statuses": sorted({r["status"] for r in res}),
        "seq_contiguous": seqs == list(range(seq_base + 1, seq_base + n + 1)),
        "judged_in_arrival_order": judged_in_seq_order == sorted(judged_in_seq_order),
        "history_complete_in_order": hist_seqs == seqs,
        "accepted_by_referee": sum(1 for r in ok if r.get("accepted")),
        "burst_wall_ms": round(out["wall_s"] * 1000, 1),
        "call_ms_p50": round(statistics.median(latencies), 1) if latencies else None,
        "call_ms_p95": round(sorted(latencies)[int(0.95 * (len(latencies) - 1))], 1) if latencies else None,
        "call_ms_max": round(max(latencies), 1) if latencies else None,
        "probe_ms_p50": round(statistics.median(probe), 1),
        "probe_ms_max": round(max(probe), 1),
        "probes": len(out["probe_ms"]),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=50, help="phones calling at once (default 50)")
    ap.add_argument("--rounds", type=int, default=3, help="bursts, each on a fresh hand (default 3)")
    ap.add_argument("--max-probe-ms", type=float, default=1000.0, help="worst /api/state latency allowed during a burst")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="referee-load-"))
    port = free_port()
    proc = start_server(port, tmp / "game.sqlite", tmp / "server.log")
    rounds: list[dict[str, Any]] = []
    try:
        phones = []
        for i in range(args.clients):
            status, body = request(port, "POST", "/api/phones/join",
                                   {"code": CODE, "seat": PLAYERS[i % 4], "name": f"phone{i}"})
            if status != 200:
                raise SystemExit(f"join failed: {status} {body}")
            phones.append(body)
        for r in range(args.rounds):
            if r:
                request(port, "POST", "/api/game/new-hand")
            status, body = request(port, "POST", "/api/events", {"type": "deal", "market": ["7C", "KD", "3S", "4H"]})
            if status != 200:
                raise SystemExit(f"deal failed: {status} {body}")
            rounds.append(check_round(port, burst(port, phones), args.clients, r * args.clients))
            time.sleep(1.0)  # phone rate limit: one call per phone per round stays inside it
        status, log = request(port, "GET", "/api/game/export")
        events = [json.loads(x) for x in log.decode().splitlines()[1:]]
        logged_calls = sum(1 for e in events if e["type"] == "call")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    passed = all(
        r["lost"] == 0 and r["seq_contiguous"] and r["judged_in_arrival_order"] and r["history_complete_in_order"]
        and r["probe_ms_max"] <= args.max_probe_ms for r in rounds
    ) and logged_calls == sum(r["accepted_by_referee"] for r in rounds)
    report = {"clients": args.clients, "rounds": rounds, "calls_in_session_log": logged_calls,
              "cpu_count": os.cpu_count(), "passed": passed}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{args.clients} phones x {args.rounds} bursts on {HOST} ({os.cpu_count()} CPUs)")
        for i, r in enumerate(rounds, 1):
            print(f"round {i}: answered {r['answered']}/{args.clients}, lost {r['lost']}, "
                  f"contiguous seq {r['seq_contiguous']}, judged in arrival order {r['judged_in_arrival_order']}, "
                  f"history complete {r['history_complete_in_order']}, accepted {r['accepted_by_referee']}")
            print(f"         burst {r['burst_wall_ms']} ms; call latency p50 {r['call_ms_p50']} / p95 {r['call_ms_p95']} "
                  f"/ max {r['call_ms_max']} ms; /api/state probe p50 {r['probe_ms_p50']} / max {r['probe_ms_max']} ms "
                  f"({r['probes']} probes)")
        print(f"calls in the session log: {logged_calls}; {'PASS' if passed else 'FAIL'}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
