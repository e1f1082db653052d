"""`referee read`: read the cards in still images with the shipped card reader."""

from __future__ import annotations

import argparse
import json
import sys

from referee.cards import DECK_KINDS
from referee.cli.main import CliError, add_precision_arg


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "read",
        help="read the cards in images (one line per image)",
        description="Read playing cards in images: a single card close up, a 1280×720 overhead "
        "table, overlapping cascades. Each physical card is reported once. Cards are read from "
        "their corner indices and, when the model has the whole-card network (reader.json "
        "body_file), a card lying alone is also read from its face (pips).",
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="image files (anything OpenCV reads)")
    p.add_argument("--json", action="store_true", help='one JSON object per line: {"image", "cards": [{"card", "confidence", "box"}]}')
    p.add_argument("--model", help="model folder with reader.json (default: the repo's models/)")
    add_precision_arg(p)
    p.add_argument("--two-decks", action="store_true", help="two-deck game: identical cards may appear twice")
    p.add_argument(
        "--deck", choices=DECK_KINDS, default="standard",
        help="the deck the cards come from: a read outside it is dropped "
        "(khmer: A-6 only; piquet: 7 to ace; default standard, all 52)",
    )  # fmt: skip
    p.add_argument(
        "--camera-scale", action="store_true",
        help="read at the live camera's fixed scale (a 1280×720 overhead frame at ÷2) instead of "
        "finding the scale of each image (photo mode, the default: close-ups and photos of any size)",
    )  # fmt: skip
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from referee.cards import deck_identities
    from vision.reader.reader import CardReader
    from vision.reader.runtime import ModelError

    allowed = deck_identities(args.deck)

    try:
        reader = CardReader.load(args.model, precision=args.precision)
    except ModelError as exc:
        raise CliError(str(exc)) from None
    failed = 0
    for path in args.images:
        image, msg = load_image(path)
        det = None
        if image is not None:
            try:
                det = reader.read(image, two_decks=args.two_decks, multiscale=not args.camera_scale)
            except Exception as exc:  # one image the reader chokes on must not stop the others
                last = str(exc).strip().splitlines()[-1:] or [""]
                msg = f"reading failed ({type(exc).__name__}: {last[0]})"
        if det is None:
            failed += 1
            if args.json:
                print(json.dumps({"image": path, "error": msg}), flush=True)
            else:
                print(f"referee read: error: {path}: {msg}", file=sys.stderr, flush=True)
            continue
        det = det.within_deck(allowed)
        if args.json:
            h, w = image.shape[:2]  # type: ignore[attr-defined]
            print(json.dumps({"image": path, "cards": det.to_json((w, h))}), flush=True)
        else:
            cards = " ".join(f"{c}({p:.2f})" for c, p in zip(det.cards, det.confidence)) or "(no cards)"
            print(f"{path}: {cards}", flush=True)
    return 1 if failed else 0


# ISO base media files start with a size and "ftyp" + brand: these brands are HEIF images
_HEIF_BRANDS = {b"ftyp" + b for b in (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1", b"avif")}


def load_image(path: str) -> tuple[object, str]:
    """(BGR image, "") or (None, why): never raises, never prints OpenCV warnings."""
    import cv2
    import numpy as np

    try:
        data = np.fromfile(path, np.uint8)
    except FileNotFoundError:
        return None, "file not found"
    except OSError as exc:
        return None, f"cannot open file ({exc.strerror or exc})"
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        if data[4:12].tobytes() in _HEIF_BRANDS:  # a phone's default photo format
            return None, "HEIC/HEIF photos are not supported (OpenCV cannot decode them): export it as JPEG or PNG"
        return None, "not an image OpenCV can decode"
    return image, ""
