"""`metrics.json` and a self-contained `report.html` (plots embedded as PNG data URIs)."""

from __future__ import annotations

import base64
import html
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

from vision.evaluate import metrics as M


def summarize(recs: list[dict[str, Any]], tolerance_s: float) -> dict[str, Any]:
    """Pooled figures over every recording (counts pooled, not averages of ratios)."""
    mf = sum(r["market_frames"] for r in recs)
    ev_tp = sum(r["events"]["matched"] for r in recs)
    ev_p = sum(r["events"]["pred"] for r in recs)
    ev_t = sum(r["events"]["truth"] for r in recs)
    lat = [x for r in recs for x in r["events"]["latencies_s"]]
    card_pairs = [(t, p) for r in recs if r["cards"] for t, p, n in r["cards"]["confusion"] for _ in range(n)]
    cards = M.card_scores(card_pairs) if any(r["cards"] for r in recs) else None
    rev_t = sum(r["reveals"]["truth"] for r in recs)
    out_items = sum(r["outcomes"]["results_truth"] + 1 for r in recs)
    out_ok = sum(r["outcomes"]["results_correct"] + r["outcomes"]["standings_correct"] for r in recs)
    frames = sum(r["frames"] for r in recs)
    secs = sum(r["processing_s"] for r in recs)
    video_s = sum(r["duration_s"] for r in recs)
    fps = frames / secs if secs > 0 else None
    return {
        "reader": sorted({str(r.get("reader")) for r in recs})[0] if recs else None,
        "recordings": len(recs),
        "frames": frames,
        "video_s": round(video_s, 2),
        "market_accuracy": (sum(r["market_correct_frames"] for r in recs) / mf) if mf else None,
        # No slack at truth changes: counts the frames a correct referee lags (or leads) the stamp.
        "market_accuracy_strict": (sum(r.get("market_correct_frames_strict", 0) for r in recs) / mf) if mf else None,
        "card_precision": cards["precision"] if cards else None,
        "card_recall": cards["recall"] if cards else None,
        "card_f1": cards["f1"] if cards else None,
        "event_precision": M.prf(ev_tp, ev_p, ev_t)["precision"],
        "event_recall": M.prf(ev_tp, ev_p, ev_t)["recall"],
        "event_f1": M.prf(ev_tp, ev_p, ev_t)["f1"],
        "event_tolerance_s": tolerance_s,
        "event_latency_median_s": M.latency_stats(lat)["latency_median_s"],
        "event_latency_p95_s": M.latency_stats(lat)["latency_p95_s"],
        "reveal_accuracy": (sum(r["reveals"]["correct"] for r in recs) / rev_t) if rev_t else None,
        "outcome_accuracy": out_ok / out_items if out_items else None,
        "fps": fps,
        "real_time_factor": (video_s / secs) if secs > 0 else None,
        "referee_rejected_events": sum(len(r["referee_rejected"]) for r in recs),
    }


# The figures worth comparing across deck families (a reader that cannot read one family
# sinks every recording made with it; the pooled summary hides which).
FAMILY_KEYS = ("recordings", "market_accuracy", "event_f1", "card_f1", "reveal_accuracy", "outcome_accuracy")


def by_deck_family(recs: list[dict[str, Any]], tolerance_s: float) -> dict[str, dict[str, Any]]:
    """`summarize` per deck family (recordings whose meta names none: "unknown")."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in recs:
        groups.setdefault(str(r.get("deck_family") or "unknown"), []).append(r)
    out = {}
    for fam in sorted(groups):
        s = summarize(groups[fam], tolerance_s)
        out[fam] = {k: s[k] for k in FAMILY_KEYS}
    return out


def write_metrics(out_dir: Path, summary: dict[str, Any], recs: list[dict[str, Any]], info: dict[str, Any]) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    detail = [{k: v for k, v in r.items() if k not in ("market_timeline",)} for r in recs]
    path = out_dir / "metrics.json"
    families = by_deck_family(recs, float(summary["event_tolerance_s"]))
    path.write_text(json.dumps({"summary": summary, "by_deck_family": families, **info, "recordings": detail}, indent=2, default=str) + "\n", encoding="utf-8")
    return path


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def plot_timeline(rec: dict[str, Any]) -> str:
    """Market correct (green) / wrong (red) over time, truth events above, referee's below."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(11, 2.4))
    colours = {True: "#2e9d4c", False: "#d33", None: "#ccc"}
    for t0, t1, ok in rec["market_timeline"]:
        ax.broken_barh([(t0, max(t1 - t0, 1.0 / rec["video_fps"]))], (0.35, 0.3), color=colours[ok])
    kinds = sorted({k for _, k in rec["truth_event_times"]} | {k for _, k in rec["pred_event_times"]})
    cmap = plt.get_cmap("tab10")
    for n, kind in enumerate(kinds):
        tt = [t for t, k in rec["truth_event_times"] if k == kind]
        pt = [t for t, k in rec["pred_event_times"] if k == kind]
        ax.scatter(tt, [0.85] * len(tt), marker="v", color=cmap(n % 10), label=kind)
        ax.scatter(pt, [0.15] * len(pt), marker="^", color=cmap(n % 10))
    ax.set_yticks([0.15, 0.5, 0.85], ["referee events", "market ok?", "truth events"])
    ax.set_ylim(0, 1)
    ax.set_xlim(0, max(rec["duration_s"], 1e-3))
    ax.set_xlabel("time (s)")
    ax.set_title(f"{rec['name']} ({rec['game']}): market green = referee equals truth, red = differs, grey = no market")
    if kinds:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    return _png(fig)


def plot_latency(recs: list[dict[str, Any]], tolerance_s: float) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lat = [x for r in recs for x in r["events"]["latencies_s"]]
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.hist(lat, bins=30, range=(-tolerance_s, tolerance_s), color="#4a7bd0")
    ax.set_xlabel("detection latency: referee t − truth t (s)")
    ax.set_ylabel("matched events")
    ax.set_title(f"latency of {len(lat)} matched events")
    return _png(fig)


def plot_confusion(recs: list[dict[str, Any]]) -> str | None:
    """Confusion restricted to the cards involved in an error (52×52 is unreadable)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    counts: Counter[tuple[str, str]] = Counter()
    for r in recs:
        for t, p, n in (r["cards"] or {}).get("confusion", []):
            counts[(t, p)] += n
    if not counts:
        return None
    errors = {c for (t, p) in counts if t != p for c in (t, p)}
    title = "card reads: cards involved in an error" if errors else "card reads: every card read right"
    errors = errors or {t for t, _ in counts}
    labels = sorted(errors - {M.MISS}) + [M.MISS]
    idx = {c: i for i, c in enumerate(labels)}
    mat = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for (t, p), n in counts.items():
        if t in idx and p in idx:
            mat[idx[t], idx[p]] += n
    size = min(12, 2 + 0.3 * len(labels))
    fig, ax = plt.subplots(figsize=(size, size))
    ax.imshow(np.log1p(mat), cmap="Blues")
    ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=7)
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.set_xlabel(f"read ({M.MISS} = no read)")
    ax.set_ylabel(f"truth ({M.MISS} = no such card)")
    for i in range(len(labels)):
        for j in range(len(labels)):
            if mat[i, j]:
                ax.text(j, i, str(mat[i, j]), ha="center", va="center", fontsize=6)
    ax.set_title(title)
    return _png(fig)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3f}"
    return html.escape("—" if v is None else str(v))


def write_html(out_dir: Path, summary: dict[str, Any], recs: list[dict[str, Any]], info: dict[str, Any]) -> Path:
    tol = float(summary["event_tolerance_s"])
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{_fmt(v)}</td></tr>" for k, v in summary.items())
    per = "".join(
        "<tr>"
        + "".join(
            f"<td>{_fmt(v)}</td>"
            for v in (
                r["name"], r["game"], r["duration_s"], r["market_accuracy"], (r["cards"] or {}).get("f1"),
                r["events"]["f1"], r["events"]["latency_median_s"], r["reveals"]["accuracy"], r["outcomes"]["accuracy"], r["fps"],
            )
        )
        + "</tr>"
        for r in recs
    )
    fams = by_deck_family(recs, tol)
    fam_rows = "".join(
        f"<tr><td>{html.escape(f)}</td>" + "".join(f"<td>{_fmt(v[k])}</td>" for k in FAMILY_KEYS) + "</tr>" for f, v in fams.items()
    )
    conf = plot_confusion(recs)
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>referee eval</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}img{max-width:100%}</style></head><body>",
        f"<h1>referee eval — {html.escape(str(info.get('dataset', '')))}</h1>",
        f"<p>{html.escape(str(info.get('command', '')))}</p>",
        f"<h2>Summary</h2><table>{rows}</table>",
        "<h2>Recordings</h2><table><tr><th>recording</th><th>game</th><th>s</th><th>market</th><th>card F1</th>"
        f"<th>event F1</th><th>latency med</th><th>reveals</th><th>outcomes</th><th>fps</th></tr>{per}</table>",
        "<h2>By deck family</h2><table><tr><th>family</th>" + "".join(f"<th>{k}</th>" for k in FAMILY_KEYS) + f"</tr>{fam_rows}</table>",
        f"<h2>Detection latency</h2><img src='{plot_latency(recs, tol)}' alt='latency histogram'>",
        "<h2>Card-read confusion</h2>" + (f"<img src='{conf}' alt='confusion matrix'>" if conf else "<p>no card truth frames</p>"),
        "<h2>Market timeline: truth vs referee</h2>",
    ]
    for r in recs:
        parts.append(f"<h3>{html.escape(r['name'])}</h3><img src='{plot_timeline(r)}' alt='timeline'>")
        missed, extra = r["events"]["missed"], r["events"]["extra"]
        if missed or extra or r["referee_rejected"]:
            parts.append("<details><summary>missed / extra / rejected events</summary><pre>")
            parts.append(html.escape(json.dumps({"missed": missed, "extra": extra, "rejected": r["referee_rejected"]}, indent=1)))
            parts.append("</pre></details>")
    parts.append("</body></html>")
    path = out_dir / "report.html"
    path.write_text("".join(parts), encoding="utf-8")
    return path
