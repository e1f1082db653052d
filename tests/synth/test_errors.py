"""Bad inputs give one clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli.main import main
from vision.synth.decks import DeckArtError, available_decks, load_decks


def test_no_art_installed(tmp_path: Path) -> None:
    with pytest.raises(DeckArtError, match="install_deck_art.sh"):
        load_decks(cache_dir=tmp_path / "empty")


def test_unknown_deck_lists_available(art_cache: Path) -> None:
    assert available_decks(art_cache) == ["procedural-3"]
    with pytest.raises(DeckArtError, match=r"unknown deck\(s\) nope; available: procedural-3"):
        load_decks(["nope"], art_cache)
    deck = load_decks(["procedural-3"], art_cache)[0]
    assert len(deck.faces) == 52 and deck.faces["10H"].shape[2] == 4
    assert deck.index_boxes["10H"] and all(0 <= v <= 1 for b in deck.index_boxes["10H"] for v in b)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--count", "0"], "--count must be positive"),
        (["--count", "-3"], "--count must be positive"),
        (["--count", "2", "--decks", "nope"], "unknown deck(s) nope; available: procedural-3"),
        (["--count", "2"], "no deck art installed"),
    ],
)
def test_cli_errors(
    tmp_path: Path, art_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    monkeypatch.setenv("KEMPS_DECK_CACHE", str(art_cache if "--decks" in args else tmp_path / "no-art"))
    rc = main(["synth", "images", "--out", str(tmp_path / "out"), *args])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert message in err and len(err.splitlines()) == 1


def test_cli_writes_yolo_dataset(tmp_path: Path, art_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEMPS_DECK_CACHE", str(art_cache))
    out = tmp_path / "ds"
    rc = main(["synth", "images", "--out", str(out), "--count", "3", "--seed", "1", "--size", "320x320", "--workers", "1", "--decks", "procedural-3,procedural", "--procedural", "1"])
    assert rc == 0
    assert len(list((out / "images" / "train").glob("*.jpg"))) == 3
    labels = list((out / "labels" / "train").glob("*.txt"))
    rows = [line.split() for p in labels for line in p.read_text().splitlines()]
    assert rows and all(len(r) == 5 and 0 <= int(r[0]) < 52 and all(0 <= float(v) <= 1 for v in r[1:]) for r in rows)
    yaml = (out / "data.yaml").read_text()
    assert "nc: 52" in yaml and "0: 'AC'" in yaml and "train: images/train" in yaml
