"""Run the full pipeline (video → reader → table tracker → rules referee) on recordings.

Calls are not visible on camera: the truth's call/close/fold/new_hand events are injected
into the referee at their times, as if a button were pressed, and a reveal is requested
from the tracker whenever the referee awaits one. Everything else the referee hears comes
from the vision pipeline; that stream is scored against the truth.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.late_events import HELD_DECLARATIONS, LateEvents
from vision.evaluate import metrics as M
from vision.evaluate.dataset import DatasetError, Recording, load_recording


@dataclass(slots=True)
class RunOptions:
    model_dir: str | None = None
    precision: str = "auto"  # the reader's detector precision (`CardReader.load`)
    tolerance_s: float = 1.0
    progress: bool = True
    oracle: bool = False  # read cards from the truth (measures the tracker alone)
    oracle_noise: str | None = None  # with `oracle`: seeded read errors (see oracle.ReadNoise.parse)
    # The table tracker's settings (None: its defaults), e.g. to measure an option that is off
    # by default: `TrackerConfig(market_filter=FilterConfig(allowed_sizes=(4,), deck_prior=0.05, same_ncc=0.75))`.
    tracker: Any = None


@dataclass(slots=True)
class Referee:
    """The rules engine fed one event at a time; keeps results and rejections."""

    game: Any
    state: Any
    results: list[Any] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    # Camera events refused for turn order, offered again after later ones (as live: the
    # server's GameService holds them the same way; referee/late_events.py).
    late: LateEvents = field(default_factory=LateEvents)
    late_accepted: int = 0
    _reasons: dict[int, str] = field(default_factory=dict)

    @classmethod
    def start(cls, header: dict[str, Any]) -> Referee:
        from referee.rules.engine import new_game

        game = new_game(header)
        return cls(game=game, state=game.initial_state())

    def apply(self, ev: dict[str, Any], camera: bool = False) -> bool:
        """Judge one event; one refused for turn order is held and offered again after each
        accepted event until it is too old (`late`): a camera move read late, or a player's
        close or fold declared while the camera has not yet seen the opponent's last move
        (as live: the server holds both the same way, `HELD_DECLARATIONS`)."""
        if camera:
            for old in self.late.expire(float(ev.get("t", 0.0))):
                self.rejected.append({**old, "reason": self._reasons.pop(id(old), "")})
        ok, code, reason = self._judge(ev)
        if ok:
            self.late_accepted += len(self.late.retry(lambda e: self._judge(e)[0]))
        elif (camera or ev.get("type") in HELD_DECLARATIONS) and self.late.hold(ev, code, float(ev.get("t", 0.0))):
            self._reasons[id(ev)] = reason
        else:
            self.rejected.append({**ev, "reason": reason})
        return ok

    def finish(self) -> None:
        """End of the recording: held events were refused for good."""
        for old in self.late.clear():
            self.rejected.append({**old, "reason": self._reasons.pop(id(old), "")})

    def _judge(self, ev: dict[str, Any]) -> tuple[bool, str | None, str]:
        body = {k: v for k, v in ev.items() if k != "t"}
        out = self.game.apply(self.state, body)
        if not hasattr(out, "state"):  # Rejected
            code = getattr(out, "code", None)
            return False, str(getattr(code, "value", code)), str(getattr(out, "reason", out))
        self.state = out.state
        res = getattr(out, "results", None)
        if res is None:
            res = getattr(out, "result", None)
        if res:
            self.results.extend(res if isinstance(res, (list, tuple)) else [res])
        return True, None, ""

    def awaited_seats(self, players: list[str]) -> list[str]:
        """Seats the referee waits to see revealed (empty when it awaits no reveal)."""
        return awaited_reveal(self.game, self.state, players)

    def awaited_sizes(self) -> dict[str, int] | None:
        """Cards each awaited seat must show, where the rules know it (Khmer), else None."""
        return awaited_sizes(self.game, self.state)

    def standings(self) -> Any:
        return self.game.standings(self.state)


def awaited_reveal(game: Any, state: Any, players: list[str]) -> list[str]:
    """The seats of a pending reveal per `game.awaiting(state)` ({"kind": "reveal", "seats": […]})."""
    aw = game.awaiting(state) if hasattr(game, "awaiting") else None
    if not aw:
        return []
    get = aw.get if isinstance(aw, dict) else (lambda k, d=None: getattr(aw, k, d))
    if str(get("kind", "")) != "reveal":
        return []
    return list(get("seats") or get("players") or players)


def awaited_sizes(game: Any, state: Any) -> dict[str, int] | None:
    """Per seat, the hand size a pending reveal must show (`awaiting()` "sizes"), if given."""
    aw = game.awaiting(state) if hasattr(game, "awaiting") else None
    sizes = aw.get("sizes") if isinstance(aw, dict) and aw.get("kind") == "reveal" else None
    return {str(k): int(v) for k, v in sizes.items()} if isinstance(sizes, dict) else None


def as_seen(ev: dict[str, Any]) -> dict[str, Any]:
    """A truth event as the referee can know it: dealt hands and Khmer hidden cards are
    never seen, so calls are judged from the reveal, exactly as in a live game."""
    if ev.get("type") == "deal":
        return {k: v for k, v in ev.items() if k not in ("hands", "hidden")}
    return ev


def truth_outcome(rec: Recording) -> tuple[list[Any], Any, list[dict[str, Any]]]:
    """Results and standings of the truth timeline (and any event it rejects)."""
    ref = Referee.start(rec.header)
    for ev in rec.events:
        ref.apply(as_seen(ev))
    return ref.results, ref.standings(), ref.rejected


def open_video(rec: Recording) -> Any:
    import cv2

    cap = cv2.VideoCapture(str(rec.video_path))
    if not cap.isOpened():
        raise DatasetError(f"{rec.video_path}: cannot be opened as a video")
    return cap


def _segments(times: list[float], flags: list[bool | None]) -> list[list[Any]]:
    """Run-length [t_start, t_end, ok] of per-frame market correctness (None: no market)."""
    segs: list[list[Any]] = []
    for t, f in zip(times, flags):
        if segs and segs[-1][2] == f:
            segs[-1][1] = t
        else:
            segs.append([t, t, f])
    return segs


def evaluate_recording(root: str | Path, opts: RunOptions, on_frame: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Every metric for one recording, plus the timelines the report plots."""
    from vision.capture import FileClock, pts_of
    from vision.reader.reader import CardReader
    from vision.tracker.layout import load_layout
    from vision.tracker.pipeline import TablePipeline
    from vision.types import Frame

    rec = load_recording(Path(root))
    layout = load_layout(_layout_ref(rec))
    if opts.oracle:
        from vision.evaluate.oracle import OracleReader, ReadNoise

        noise = ReadNoise.parse(opts.oracle_noise) if opts.oracle_noise else None
        reader: Any = OracleReader(rec, int(rec.meta.get("frames") or 0), noise)
    else:
        reader = CardReader.load(opts.model_dir, precision=opts.precision)
    truth_results, truth_standings, truth_rejected = truth_outcome(rec)

    tracker_header = dict(rec.header)
    if rec.meta.get("stale_after_s") is not None:  # the table's own convention, from the metadata
        tracker_header["stale_after_s"] = float(rec.meta["stale_after_s"])
    extra = () if opts.tracker is None else (opts.tracker,)  # only when set: stand-in pipelines take no config
    pipe = TablePipeline(layout, reader, tracker_header, rec.fps, *extra)
    ref = Referee.start(rec.header)
    players = list(rec.header["players"])
    injected = [e for e in rec.events if e["type"] in M.INJECTED_TYPES]
    step_frames = max(1, int(round(rec.fps)))  # card reads scored on (at most) one frame a second
    card_frames = {f.frame: f for f in rec.frames if f.frame % step_frames == 0}
    pred_events: list[dict[str, Any]] = []
    ignored: list[dict[str, Any]] = []
    times: list[float] = []
    pred_markets: list[tuple[str, ...] | None] = []
    card_pairs: list[tuple[str, str]] = []
    card_time = 0.0

    cap = open_video(rec)
    clock = FileClock(rec.fps)
    width, height = (int(v) for v in rec.meta["size"])
    k = 0
    index = 0
    start = time.perf_counter()
    try:
        while True:
            ok, image = cap.read()
            if not ok:
                break
            if image.shape[1] != width or image.shape[0] != height:
                raise DatasetError(
                    f"{rec.video_path}: frame {index} is {image.shape[1]}x{image.shape[0]}, meta.json says {width}x{height}"
                )
            t = clock(index, pts_of(cap))  # index / fps, or the file's own times (a variable frame rate)
            while k < len(injected) and float(injected[k]["t"]) <= t + 1e-9:
                if injected[k]["type"] == "new_hand" and hasattr(pipe, "new_hand"):
                    pipe.new_hand(float(injected[k]["t"]))
                if ref.apply(injected[k]):
                    seats = ref.awaited_seats(players)
                    if seats:
                        pipe.request_reveal(seats, float(injected[k]["t"]), ref.awaited_sizes())
                k += 1
            if opts.oracle:
                reader.index = index
            step = pipe.process(Frame(image=image, t=t, index=index))
            for ev in step.events:
                ev = {**ev, "t": float(ev.get("t", t))}
                if ev.get("type") in M.INJECTED_TYPES:
                    ignored.append(ev)  # eval owns the invisible events
                    continue
                if ev.get("type") not in M.UNSCORED_TYPES:
                    pred_events.append(ev)
                awaited = ref.awaited_seats(players)
                ref.apply(ev, camera=True)
                seats = ref.awaited_seats(players)
                if seats and seats != awaited:  # a held close taken now: read the hands
                    pipe.request_reveal(seats, float(ev["t"]), ref.awaited_sizes())
            times.append(t)
            pred_markets.append(tuple(step.state.market) if step.state is not None else None)
            if index in card_frames:
                c0 = time.perf_counter()
                dets = reader.read(image)
                card_time += time.perf_counter() - c0
                truth_cards = [(c.card, c.box) for c in card_frames[index].cards]
                pred_cards = [(c, tuple(float(v) for v in box)) for c, box in zip(dets.cards, dets.xyxy)]
                card_pairs += M.match_cards(truth_cards, pred_cards)  # type: ignore[arg-type]
            index += 1
            if on_frame:
                on_frame(1)
    finally:
        cap.release()
    elapsed = time.perf_counter() - start - card_time
    expected = rec.meta.get("frames")
    if index == 0:
        raise DatasetError(f"{rec.video_path}: no frame could be decoded")
    if isinstance(expected, int) and index < expected:
        raise DatasetError(f"{rec.video_path}: video ends at frame {index}, meta.json says {expected} frames")
    while k < len(injected):  # calls after the last frame still reach the referee
        ref.apply(injected[k])
        k += 1
    ref.finish()

    visible_truth = [e for e in rec.events if e["type"] not in M.INJECTED_TYPES]
    truth_markets = M.market_at_times(rec.events, times)
    strict = [None if tm is None else (pm is not None and tuple(sorted(pm)) == tm) for tm, pm in zip(truth_markets, pred_markets)]
    # Scored with the event tolerance as the slack at each truth change (see M.market_flags).
    flags = M.market_flags(rec.events, times, pred_markets, opts.tolerance_s)
    fps = index / elapsed if elapsed > 0 else None
    return {
        "name": rec.name,
        "path": str(rec.root),
        "reader": _reader_name(opts),
        "game": rec.game,
        "deck_family": _deck_family(rec.meta),
        "frames": index,
        "duration_s": index / rec.fps,
        "video_fps": rec.fps,
        "market_frames": sum(1 for f in flags if f is not None),
        "market_correct_frames": sum(1 for f in flags if f),
        "market_accuracy": M.flags_accuracy(flags),
        "market_grace_s": opts.tolerance_s,
        "market_correct_frames_strict": sum(1 for f in strict if f),
        "market_accuracy_strict": M.market_accuracy(truth_markets, pred_markets),
        "market_timeline": _segments(times, flags),
        "events": M.event_scores(visible_truth, pred_events, opts.tolerance_s, end_s=times[-1]),
        "reveals": M.reveal_accuracy(visible_truth, pred_events, opts.tolerance_s, by_value=rec.game == "khmer"),
        "cards": M.card_scores(card_pairs) if card_frames else None,
        "card_frames": len(card_frames),
        "outcomes": M.outcome_accuracy(truth_results, ref.results, truth_standings, ref.standings()),
        "truth_results": [M.to_plain(r) for r in truth_results if M.is_decision(r)],
        "referee_results": [M.to_plain(r) for r in ref.results if M.is_decision(r)],
        "truth_standings": M.to_plain(truth_standings),
        "referee_standings": M.to_plain(ref.standings()),
        "truth_rejected": truth_rejected,
        "referee_rejected": ref.rejected,
        "referee_accepted_late": ref.late_accepted,
        "ignored_pipeline_events": ignored,
        "truth_event_times": [[float(e["t"]), e["type"]] for e in visible_truth],
        "pred_event_times": [[float(e["t"]), e["type"]] for e in pred_events],
        "processing_s": elapsed,
        "fps": fps,
        "real_time_factor": (fps / rec.fps) if fps else None,
    }


def _reader_name(opts: RunOptions) -> str:
    if not opts.oracle:
        name = opts.model_dir or "models/"
        return name if opts.precision == "auto" else f"{name} ({opts.precision} detector)"
    if opts.oracle_noise:
        from vision.evaluate.oracle import ReadNoise

        return f"oracle+noise({ReadNoise.parse(opts.oracle_noise).describe()})"
    return "oracle"


def _layout_ref(rec: Recording) -> str:
    """The layout of a recording: a file inside the recording folder, or a layout name."""
    lay = rec.meta.get("layout")
    ref = lay.get("file") or lay.get("name") if isinstance(lay, dict) else lay
    if not ref:
        raise DatasetError(f"{rec.root / 'meta.json'}: missing 'layout' (file or name)")
    path = rec.root / str(ref)
    return str(path) if path.is_file() else str(ref)


def _worker(root: str, opts: RunOptions) -> dict[str, Any]:
    # Each worker gets an equal share of the cores instead of every runtime grabbing all.
    return evaluate_recording(root, opts)


def run_all(roots: list[Path], opts: RunOptions, workers: int = 1) -> list[dict[str, Any]]:
    """Evaluate recordings, `workers` at a time, with a progress bar."""
    from tqdm import tqdm

    if workers <= 1 or len(roots) == 1:
        out = []
        for root in roots:
            rec = load_recording(root)
            total = int(rec.meta.get("frames") or 0) or None
            with tqdm(total=total, desc=rec.name, unit="frame", disable=not opts.progress, leave=False) as bar:
                out.append(evaluate_recording(root, opts, on_frame=bar.update))
        return out
    import multiprocessing as mp

    threads = max(1, (os.cpu_count() or 1) // workers)
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    results: dict[str, dict[str, Any]] = {}
    with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn")) as pool:
        futures = {pool.submit(_worker, str(r), opts): str(r) for r in roots}
        with tqdm(total=len(futures), desc="recordings", unit="rec", disable=not opts.progress) as bar:
            for fut in as_completed(futures):
                results[futures[fut]] = fut.result()
                bar.update(1)
    return [results[str(r)] for r in roots]


def _deck_family(meta: dict[str, Any]) -> str | None:
    """The deck family a recording was rendered or filmed with (`meta.json` "deck"), if told."""
    deck = meta.get("deck")
    if isinstance(deck, dict):
        fam = deck.get("family") or deck.get("name")
        return str(fam) if fam else None
    return str(deck) if isinstance(deck, str) and deck else None
