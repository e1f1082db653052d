"""Training patches for the whole-card reader (`vision.reader.body`), from the synth engine.

Per random table (1280×720, card heights 50–240 px, the composer's camera conditions):
- positives: every face-up card at least `min_visible` visible, rectified from its true
  outline with each corner moved by up to `jitter` of the card width (outlines found at run
  time are a few px off), and every outline `card_outlines` finds that matches such a card;
- negatives: outlines that match no such card (backs, half-covered cards, arms, table
  texture), backs, and random card-sized quads that hold no card centre.

Written to `<out>/<split>.npz`: patches (N, H, W, 3) BGR uint8, rank / suit (−1 for a
negative), family. Decks are split by family as for the corner reader (`vision.synth.splits`).
"""

from __future__ import annotations

import multiprocessing as mp
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from vision.reader.body import card_outlines, order_quad, rectify
from vision.reader.labels import split_card
from vision.train.dataset import DeckSpec, load_chunk_decks

PATCH_WH: tuple[int, int] = (44, 64)


@dataclass(frozen=True, slots=True)
class BodyJob:
    split: str
    chunk: int
    scenes: int
    decks: tuple[DeckSpec, ...]
    seed: int
    out: str
    height_range: tuple[float, float] = (50.0, 240.0)
    min_visible: float = 0.92
    jitter: float = 0.04
    random_negatives: int = 3


def _match(quad: np.ndarray, centres: np.ndarray, sizes: np.ndarray) -> int:
    """Index of the card whose centre lies within a tenth of its height of the quad's, else −1."""
    if not len(centres):
        return -1
    d = np.linalg.norm(centres - quad.mean(0), axis=1)
    i = int(np.argmin(d))
    size = float(np.linalg.norm(quad[2] - quad[1]))
    return i if d[i] < 0.1 * sizes[i] and 0.85 < size / sizes[i] < 1.18 else -1


def _run(job: BodyJob) -> Path:
    part = Path(job.out) / "parts" / f"{job.split}_{job.chunk:04d}.npz"
    if part.is_file():
        return part
    from vision.synth import scene as scene_mod
    from vision.synth.layouts import random_scene

    scene_mod._PYRAMIDS.clear()  # keyed by id(deck): must not outlive this chunk's decks
    rng = np.random.default_rng(job.seed)
    decks, family = load_chunk_decks(job.decks, job.chunk)
    patches: list[np.ndarray] = []
    ranks: list[int] = []
    suits: list[int] = []
    fams: list[str] = []

    def add(img: np.ndarray, quad: np.ndarray, card: str | None, fam: str) -> None:
        patches.append(rectify(img, quad, PATCH_WH))
        r, s = split_card(card) if card else (-1, -1)
        ranks.append(r)
        suits.append(s)
        fams.append(fam)

    for _ in range(job.scenes):
        lo, hi = job.height_range
        h = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
        sc = random_scene(rng, decks, size=(1280, 720), card_height_range=(0.85 * h, 1.15 * h))
        fam, img = family[sc.deck], sc.image
        good = [c for c in sc.cards if c.face_up and c.visible_fraction >= job.min_visible]
        centres = np.array([c.quad.mean(0) for c in good]).reshape(-1, 2)
        sizes = np.array([np.linalg.norm(c.quad[2] - c.quad[1]) for c in good])
        all_centres = np.array([c.quad.mean(0) for c in sc.cards]).reshape(-1, 2)
        for c in good:
            w = float(np.linalg.norm(c.quad[1] - c.quad[0]))
            q = c.quad + rng.uniform(-job.jitter, job.jitter, (4, 2)) * w
            if rng.random() < 0.5:
                q = np.roll(q, 2, axis=0)  # upside down: the runtime cannot tell which way up
            add(img, q.astype(np.float32), c.card, fam)
        for q in card_outlines(img):
            i = _match(q, centres, sizes)
            add(img, q, good[i].card if i >= 0 else None, fam)
        for c in sc.cards:
            if not c.face_up and rng.random() < 0.3:
                add(img, order_quad(c.quad), None, fam)
        for _ in range(job.random_negatives):
            cx, cy = rng.uniform(0, 1280), rng.uniform(0, 720)
            if len(all_centres) and np.min(np.linalg.norm(all_centres - (cx, cy), axis=1)) < 0.3 * h:
                continue
            ang = rng.uniform(0, np.pi)
            u, v = np.array([np.cos(ang), np.sin(ang)]), np.array([-np.sin(ang), np.cos(ang)])
            cw = 0.7 * h
            q = np.array([(cx, cy) + a * u * cw / 2 + b * v * h / 2 for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
            add(img, order_quad(q), None, fam)
    scene_mod._PYRAMIDS.clear()
    part.parent.mkdir(parents=True, exist_ok=True)
    tmp = part.with_name(part.stem + ".tmp.npz")
    w, hh = PATCH_WH
    np.savez(
        tmp, patches=np.stack(patches) if patches else np.zeros((0, hh, w, 3), np.uint8),
        rank=np.array(ranks, np.int64), suit=np.array(suits, np.int64), family=np.array(fams, dtype=str),
    )  # fmt: skip
    tmp.rename(part)  # atomic: a killed build resumes from whole parts
    return part


def make_body_jobs(pools: dict[str, list[DeckSpec]], scenes: dict[str, int], out: Path, seed: int, chunk: int = 20, decks_per_chunk: int = 6) -> list[BodyJob]:
    rng = np.random.default_rng(seed)
    jobs: list[BodyJob] = []
    for split, n in scenes.items():
        pool = pools.get(split, [])
        for c in range((n + chunk - 1) // chunk if pool else 0):
            pick = tuple(pool[i] for i in rng.choice(len(pool), size=min(decks_per_chunk, len(pool)), replace=False))
            jobs.append(BodyJob(split, len(jobs), min(chunk, n - c * chunk), pick, int(rng.integers(2**31)), str(out)))
    return jobs


def build_body_data(jobs: list[BodyJob], out: Path, workers: int = 2) -> dict[str, int]:
    """Render every job, then join the parts into one file per split; returns patch counts."""
    out.mkdir(parents=True, exist_ok=True)
    if workers > 1:
        with mp.get_context("spawn").Pool(workers) as pool:
            parts = list(tqdm(pool.imap_unordered(_run, jobs), total=len(jobs), desc="body patches", unit="chunk"))
    else:
        parts = [_run(j) for j in tqdm(jobs, desc="body patches", unit="chunk")]
    counts: dict[str, int] = {}
    for split in sorted({j.split for j in jobs}):
        mine = sorted(p for p in parts if p.name.startswith(split + "_"))
        data = [np.load(p) for p in mine]
        joined = {k: np.concatenate([d[k] for d in data]) for k in ("patches", "rank", "suit", "family")}
        np.savez(out / f"{split}.npz", **joined)
        counts[split] = int(len(joined["rank"]))
    return counts
