"""Scene labels on disk: YOLO detection txt (one box per visible corner index) + quads json."""

from __future__ import annotations

import json
from pathlib import Path

import cv2

from vision.synth.decks import all_cards
from vision.synth.scene import RenderedScene


def class_ids() -> dict[str, int]:
    """Card -> YOLO class id (the order of referee.cards.ALL_CARDS, or the fallback)."""
    return {c: i for i, c in enumerate(all_cards())}


def yolo_lines(scene: RenderedScene, ids: dict[str, int] | None = None) -> list[str]:
    """`class cx cy w h` normalized, one line per labelled corner index."""
    ids = ids or class_ids()
    H, W = scene.image.shape[:2]
    lines = []
    for lab in scene.labels:
        x1, y1, x2, y2 = lab.box
        lines.append(f"{ids[lab.card]} {(x1 + x2) / 2 / W:.6f} {(y1 + y2) / 2 / H:.6f} {(x2 - x1) / W:.6f} {(y2 - y1) / H:.6f}")
    return lines


def quads_record(scene: RenderedScene, image_name: str) -> dict[str, object]:
    """Every card's outline (also hidden and face-down ones) and the index labels."""
    H, W = scene.image.shape[:2]
    return {
        "image": image_name,
        "size": [W, H],
        "deck": scene.deck,
        "cards": [
            {
                "card_id": c.card_id,
                "card": c.card,
                "face_up": c.face_up,
                "visible_fraction": round(c.visible_fraction, 4),
                "quad": [[round(float(x), 2), round(float(y), 2)] for x, y in c.quad],
            }
            for c in scene.cards
        ],
        "labels": [
            {"card": lab.card, "card_id": lab.card_id, "box": [round(v, 2) for v in lab.box], "visible_fraction": round(lab.visible_fraction, 4)}
            for lab in scene.labels
        ],
    }


def write_sample(root: Path, split: str, stem: str, scene: RenderedScene, fmt: str = "jpg", ids: dict[str, int] | None = None) -> None:
    """images/<split>/<stem>.<fmt>, labels/<split>/<stem>.txt, quads/<split>/<stem>.json."""
    name = f"{stem}.{fmt}"
    params = [cv2.IMWRITE_JPEG_QUALITY, 95] if fmt == "jpg" else [cv2.IMWRITE_PNG_COMPRESSION, 3]
    ok, buf = cv2.imencode(f".{fmt}", scene.image, params)
    if not ok:
        raise RuntimeError(f"could not encode {name}")
    (root / "images" / split / name).write_bytes(buf.tobytes())
    lines = yolo_lines(scene, ids)
    (root / "labels" / split / f"{stem}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    (root / "quads" / split / f"{stem}.json").write_text(json.dumps(quads_record(scene, name)))


def write_data_yaml(root: Path) -> Path:
    """An ultralytics data.yaml for the splits present under root/images."""
    splits = [s for s in ("train", "val", "test") if (root / "images" / s).is_dir()]
    lines = [f"path: {root.resolve()}"]
    for s in splits:
        lines.append(f"{s}: images/{s}")
    if "val" not in splits and splits:
        # ultralytics needs a val set; until one is generated, validate on what exists
        lines.append(f"val: images/{splits[0]}  # no val split generated yet")
    names = all_cards()
    lines.append(f"nc: {len(names)}")
    lines.append("names:")
    lines += [f"  {i}: '{c}'" for i, c in enumerate(names)]
    path = root / "data.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path
