"""`referee synth video`: simulate a game and write a recording (video + truth + meta).

`referee/cli/synth.py` (the synth images command's owner) adds this subcommand with
`add_arguments(parser)` and calls `run(args)`.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

from referee.cli.main import nonnegative_float, positive_float

GAMES = ("kemps", "kems", "khmer")


def heldout_procedural_base() -> int:
    """First procedural deck seed of the test split (designs never used for training)."""
    from vision.synth.splits import PROCEDURAL_SEEDS

    return PROCEDURAL_SEEDS["test"].start


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=GAMES, required=True, help="which game the simulated players play")
    parser.add_argument("--minutes", type=positive_float, default=1.0, help="video length in minutes (default: 1); a game that ends stops it 3 s later, and a reveal "
                        "laid down near the end runs it on until the hands have lain 3 s")
    parser.add_argument("--seed", type=int, default=0, help="random seed: same seed, same game and same video (default: 0)")
    parser.add_argument("--out", required=True, help="recording folder to write (video.mp4, truth.jsonl, meta.json, …)")
    parser.add_argument("--fps", type=positive_float, default=15.0, help="frames per second (default: 15)")
    parser.add_argument("--size", default="1280x720", help="frame size WIDTHxHEIGHT (default: 1280x720)")
    parser.add_argument(
        "--decks",
        default=None,
        help="deck design(s) from the art cache, comma-separated, or 'procedural[:SEED]'; one is picked by seed "
        "(default: a held-out deck: a test-split deck family when available, else a procedural deck of a held-out seed)",
    )
    parser.add_argument(
        "--players", type=int, choices=(4, 6, 8, 9, 10, 12), default=4,
        help="Kemps/Kem's players on the stock layout kemps-<players>, in facing pairs, or in three teams of three "
        "for 9 (default: 4; Khmer: always 2). The rules decide the deck: Kemps adds a second deck from 8 players "
        "and allows up to 10; Kem's keeps one deck up to 12",
    )
    parser.add_argument(
        "--rules", default=None,
        help="rule overrides the simulated players follow, KEY=VALUE[,…]; supported: deck=piquet (Kemps/Kem's, 32 cards: "
        "shorter reserve, more reshuffles)",
    )
    parser.add_argument("--layout", default=None, help="table layout name or YAML file (default: kemps-<players> or khmer-2)")
    parser.add_argument("--card-every", type=nonnegative_float, default=1.0, help="seconds between frames whose visible cards are written to cards.jsonl; 0: every frame (default: 1)")
    parser.add_argument(
        "--noise", type=nonnegative_float, default=None,
        help="camera sensor noise in grey levels (default: random 0.8-2.5 per video; noise dominates the file size, "
        "the committed samples use 0.3)",
    )
    parser.add_argument("--manifest", action="store_true", help="also (re)write manifest.json in the parent folder of --out")


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"--size must look like 1280x720, got {text!r}") from None
    if not (160 <= w <= 3840 and 120 <= h <= 2160):
        raise ValueError(f"--size {text} is out of range (160x120 to 3840x2160)")
    return w, h


SIM_RULES = {"deck": ("standard", "piquet")}


def parse_rules(text: str | None, game: str) -> dict[str, str]:
    """`--rules deck=piquet` → {"deck": "piquet"}; only rules the simulated players can follow."""
    from referee.cli.main import CliError

    out: dict[str, str] = {}
    for item in filter(None, (text or "").split(",")):
        key, _, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if key not in SIM_RULES or value not in SIM_RULES[key] or game == "khmer":
            allowed = ", ".join(f"{k}={'|'.join(v)}" for k, v in SIM_RULES.items())
            raise CliError(f"--rules {item!r}: the simulator plays {allowed} (Kemps, Kem's only)")
        out[key] = value
    return out


def heldout_deck_names() -> list[str]:
    """Installed decks of the test split (never seen in training), if the splits say so."""
    try:
        from vision.synth import splits  # type: ignore[attr-defined]
        from vision.synth.decks import available_decks

        names = available_decks()
        fn = getattr(splits, "split_of", None)
        return [n for n in names if fn is not None and fn(n) == "test"]
    except Exception:  # noqa: BLE001 - no art, no splits module: fall back to procedural
        return []


def choose_deck(spec: str | None, seed: int, game: str = "") -> Any:
    """The DeckArt to render with (see --decks); the pick depends on the game and seed."""
    from vision.synth.decks import load_deck, load_decks
    from vision.synth.procedural import make_procedural_deck

    rng = random.Random(f"{game}-{seed}")
    if spec is None:
        for name in rng.sample(sorted(heldout_deck_names()), k=len(heldout_deck_names())):
            deck = load_deck(name)
            # a deck whose index geometry was not found would give no card truth
            if sum(1 for c in deck.cards if deck.index_boxes.get(c)) >= 0.9 * len(deck.cards):
                return deck
        deck = make_procedural_deck(heldout_procedural_base() + seed)
        # Say so: without the art the recording silently shows one of our own designs
        # instead of a real held-out deck, and its figures mean something else.
        print(
            f"note: no held-out deck art installed; rendering with {deck.name} "
            "(install the real decks with `bash scripts/install_deck_art.sh`)",
            file=sys.stderr,
        )
        return deck
    names = [s.strip() for s in spec.split(",") if s.strip()]
    if not names:
        raise ValueError(f"--decks {spec!r}: no deck named (give names from the art cache, or 'procedural')")
    choice = rng.choice(names)
    if choice.startswith("procedural"):
        _, _, num = choice.partition(":")
        return make_procedural_deck(int(num) if num else heldout_procedural_base() + seed)
    return load_decks([choice])[0]  # one clear error for an unknown name


def run(args: argparse.Namespace) -> int:
    from referee.cli.main import CliError
    from vision.evaluate.dataset import write_manifest
    from vision.sim.players import SimError
    from vision.sim.recording import SimSpec, simulate

    if args.minutes <= 0 or args.minutes > 120:
        raise CliError("--minutes must be in (0, 120]")
    if args.fps <= 0 or args.fps > 60:
        raise CliError("--fps must be in (0, 60]")
    try:
        size = parse_size(args.size)
        deck = choose_deck(args.decks, args.seed, args.game)
    except (ValueError, RuntimeError) as exc:  # DeckArtError is a RuntimeError
        raise CliError(str(exc)) from None
    out = Path(args.out)
    rules = parse_rules(getattr(args, "rules", None), args.game)
    if args.card_every < 0:
        raise CliError("--card-every must be ≥ 0")
    if args.noise is not None and not 0 <= args.noise <= 30:
        raise CliError("--noise must be in [0, 30]")
    spec = SimSpec(args.game, args.minutes, args.seed, out, args.fps, size, deck, args.layout, getattr(args, "players", 4),
                   rules, args.card_every, noise_sigma=args.noise,
                   generator=" ".join(["referee", *sys.argv[1:]]) if sys.argv and sys.argv[0].endswith("referee") else None)
    try:
        meta = simulate(spec)
    except SimError as exc:
        raise CliError(f"simulator bug: {exc}") from None
    except ValueError as exc:  # LayoutError and friends
        raise CliError(str(exc)) from None
    if args.manifest:
        write_manifest(out.parent)
    print(f"wrote {out}: {meta['frames']} frames, {meta['events']} truth events, deck {meta['deck']['name']}")
    return 0
