"""Build the reader's training data from the synth engine (both stages in one pass).

Decks are named by `DeckSpec`s: `procedural:<seed>` (our own generated designs) or a real
deck from the art cache. Each worker renders chunks of scenes, each chunk from a few
decks (a deck costs ~0.4 s and ~15 MB to build, so chunks bound both), and writes:

    <out>/det/images/<split>/*.jpg, <out>/det/labels/<split>/*.txt, <out>/det/data.yaml
    <out>/cls/<split>.npz      context crops + rank/suit/up/family (see samples.py)
    <out>/cls/parts/*.npz      one per finished chunk: a killed build resumes where it stopped
    <out>/geometry.json        card-vs-index geometry (median over training indices)
"""

from __future__ import annotations

import json
import multiprocessing as mp
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from vision.train.samples import SampleConfig, scene_samples


@dataclass(frozen=True, slots=True)
class DeckSpec:
    name: str  # "procedural:17", "procedural-v2:17" (wider layouts) or a cache deck name
    family: str

    def load(self, height: int = 300):  # -> DeckArt
        if self.name.startswith("procedural"):
            from vision.synth.procedural import make_procedural_deck

            kind, seed = self.name.split(":", 1)
            variety = int(kind.removeprefix("procedural-v")) if kind != "procedural" else 1
            return make_procedural_deck(int(seed), height=height, variety=variety)
        from vision.synth.decks import load_decks

        return load_decks([self.name])[0]


@dataclass(frozen=True, slots=True)
class Job:
    split: str
    chunk: int
    scenes: int
    decks: tuple[DeckSpec, ...]
    seed: int
    out: str
    tiles: bool
    frame: tuple[int, int]
    sample: SampleConfig


def _part_path(job: Job) -> Path:
    return Path(job.out) / "cls" / "parts" / f"{job.split}_{job.chunk:04d}_{job.seed}.npz"


def load_chunk_decks(specs: tuple[DeckSpec, ...], chunk: int) -> tuple[list, dict[str, str]]:
    """The chunk's decks (a design that fails to build is skipped with a line) and each
    deck's family by name; no deck at all is an error."""
    decks, family = [], {}
    for spec in specs:
        try:
            deck = spec.load()
        except Exception as exc:  # noqa: BLE001 - one broken design must not stop a build
            print(f"skipping deck {spec.name}: {type(exc).__name__}: {exc}", flush=True)
            continue
        decks.append(deck)
        family[deck.name] = spec.family
    if not decks:
        raise RuntimeError(f"no deck of chunk {chunk} could be built: {[s.name for s in specs]}")
    return decks, family


def _run_chunk(job: Job) -> Path:
    """Render one chunk; its crops go to a part file (returned), its tiles to det/."""
    part = _part_path(job)
    if part.is_file():
        return part
    from vision.synth import scene as scene_mod
    from vision.synth.layouts import random_scene

    # The composer caches card pyramids by id(deck): a chunk's decks die with it, and a
    # reused id would draw another deck's face, so the cache must not outlive the chunk.
    scene_mod._PYRAMIDS.clear()
    rng = np.random.default_rng(job.seed)
    decks, family = load_chunk_decks(job.decks, job.chunk)
    out = Path(job.out)
    crops, rank, suit, up, fams, geom = [], [], [], [], [], []
    for k in range(job.scenes):
        scene = random_scene(rng, decks, size=job.frame, min_visible=0.4)
        s = scene_samples(scene, job.sample, rng, tiles=job.tiles)
        for t, (tile, boxes) in enumerate(s.tiles):
            stem = f"{job.split}_{job.chunk:04d}_{k:03d}_{t}"
            cv2.imwrite(str(out / "det" / "images" / job.split / f"{stem}.jpg"), tile, [cv2.IMWRITE_JPEG_QUALITY, 92])
            ts = float(job.sample.tile)
            lines = [
                f"0 {(b[0] + b[2]) / 2 / ts:.5f} {(b[1] + b[3]) / 2 / ts:.5f} {(b[2] - b[0]) / ts:.5f} {(b[3] - b[1]) / ts:.5f}"
                for b in boxes
            ]
            (out / "det" / "labels" / job.split / f"{stem}.txt").write_text("\n".join(lines))
        crops += s.crops
        rank += s.rank
        suit += s.suit
        up += s.up
        fams += [family[scene.deck]] * len(s.rank)
        geom += s.geometry
    scene_mod._PYRAMIDS.clear()
    tmp = part.with_name(part.stem + ".tmp.npz")
    np.savez(
        tmp,
        crops=np.concatenate(crops) if crops else np.zeros((0, job.sample.crop_size, job.sample.crop_size, 3), np.uint8),
        rank=np.array(rank, np.int64), suit=np.array(suit, np.int64), up=np.array(up, np.float32).reshape(-1, 2),
        family=np.array(fams, dtype=str), geometry=np.array(geom, np.float32).reshape(-1, 4),
    )  # fmt: skip
    tmp.rename(part)  # atomic: a part file is always complete
    return part


def make_jobs(
    pools: dict[str, list[DeckSpec]], scenes: dict[str, int], out: Path, seed: int, chunk_scenes: int,
    decks_per_chunk: int, frame: tuple[int, int], sample: SampleConfig, tiles_for: tuple[str, ...] = ("train", "val"),
) -> list[Job]:  # fmt: skip
    rng = np.random.default_rng(seed)
    jobs = []
    for split, n in scenes.items():
        pool = pools.get(split, [])
        if not pool or n <= 0:
            continue
        for c in range((n + chunk_scenes - 1) // chunk_scenes):
            k = min(decks_per_chunk, len(pool))
            pick = tuple(pool[i] for i in rng.choice(len(pool), size=k, replace=False))
            m = min(chunk_scenes, n - c * chunk_scenes)
            jobs.append(Job(split, c, m, pick, int(rng.integers(2**31)), str(out), split in tiles_for, frame, sample))
    return jobs


def build(jobs: list[Job], out: Path, workers: int = 2) -> dict:
    """Render every job (in `workers` processes), write the files; returns a summary."""
    for split in {j.split for j in jobs}:
        (out / "det" / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "det" / "labels" / split).mkdir(parents=True, exist_ok=True)
    (out / "cls" / "parts").mkdir(parents=True, exist_ok=True)
    parts: dict[str, list[dict]] = {}
    todo = [j for j in jobs if not _part_path(j).is_file()]
    ctx = mp.get_context("fork")
    with ctx.Pool(workers) if workers > 1 else _Serial() as pool:
        for _ in tqdm(pool.imap_unordered(_run_chunk, todo), total=len(todo), desc="synth chunks"):
            pass
    for job in jobs:
        with np.load(_part_path(job)) as z:
            parts.setdefault(job.split, []).append({k: z[k] for k in z.files})
    summary: dict = {"crops": {}, "tiles": {}}
    sample = jobs[0].sample if jobs else SampleConfig()
    for split, rs in parts.items():
        merged = {k: np.concatenate([r[k] for r in rs]) for k in ("crops", "rank", "suit", "up", "family", "geometry")}
        np.savez(
            out / "cls" / f"{split}.npz", crops=merged["crops"], rank=merged["rank"], suit=merged["suit"],
            up=merged["up"], family=merged["family"], stored_pad=np.float32(sample.crop_pad),
        )  # fmt: skip
        summary["crops"][split] = {"total": int(len(merged["rank"])), "indices": int((merged["rank"] >= 0).sum())}
        summary["tiles"][split] = len(list((out / "det" / "images" / split).glob("*.jpg")))
        if split == "train" and len(merged["geometry"]):
            g = np.median(merged["geometry"], axis=0)
            summary["geometry"] = {"cx": float(g[0]), "cy": float(g[1]), "width": float(g[2]), "height": float(g[3]),
                                   "n": int(len(merged["geometry"]))}  # fmt: skip
    (out / "det" / "data.yaml").write_text(
        f"path: {(out / 'det').resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: index\n"
    )
    summary["sample"] = asdict(sample)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    if "geometry" in summary:
        (out / "geometry.json").write_text(json.dumps(summary["geometry"], indent=1))
    return summary


class _Serial:
    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def imap_unordered(self, fn, items):  # noqa: ANN001, ANN201
        return map(fn, items)
