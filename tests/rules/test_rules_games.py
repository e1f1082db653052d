"""Scripted games (datasets/games/*.jsonl) replay to their hand-checked outcomes; the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cli.main import main
from referee.replay import replay_log

REPO = Path(__file__).resolve().parents[2]
GAMES = sorted((REPO / "datasets" / "games").glob("*.jsonl"))


def _expect(path: Path) -> dict:
    return json.loads(path.read_text().splitlines()[0])["meta"]["expect"]


def _names(standing: dict) -> str:
    return "+".join(standing["team"]) if "team" in standing else standing["player"]


def test_every_game_set_is_covered():
    assert {json.loads(p.read_text().splitlines()[0])["game"] for p in GAMES} == {"kemps", "kems", "khmer"}


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_scripted_game_outcome(path):
    report = replay_log(path)
    expect = _expect(path)
    assert report.ok, report.rejected
    assert report.finished is expect["finished"]
    got = {_names(s): s.get("letters", s.get("points")) for s in report.standings}
    assert got == expect["standings"]
    if "winners" in expect:
        assert report.outcome["winners"] == expect["winners"]
    if "winner" in expect:
        assert report.outcome["winner"] == expect["winner"]
    anomalies = [r for r in report.results if r["kind"] == "anomaly"]
    assert len(anomalies) == expect.get("anomalies", 0)


def test_kemps_full_results_in_detail():
    report = replay_log(REPO / "datasets/games/kemps-full.jsonl")
    rows = [(r["call"], r["by"], r.get("target"), r["correct"], r["scored"],
             [(("+".join(x["team"])), x["letters"]) for x in r["letters"]]) for r in report.results]
    assert rows == [
        ("kemps", "S", None, True, True, [("E+W", "K")]),
        ("cut", "N", "E", True, True, [("E+W", "KE")]),
        ("cut", "W", "N", False, True, [("E+W", "KEM")]),
        ("kemps", "W", None, False, True, [("E+W", "KEMP")]),
        ("kemps", "E", None, True, True, [("N+S", "K")]),
        ("cut", "N", "W", True, False, []),
        ("kemps", "N", None, False, True, [("N+S", "KE")]),
        ("cut", "S", "E", True, True, [("E+W", "KEMPS")]),
    ]


def test_khmer_match_results_in_detail():
    report = replay_log(REPO / "datasets/games/khmer-match.jsonl")
    rows = [(r["kind"], r.get("table"), r.get("totals"), r["winner"], r["points"]) for r in report.results]
    assert rows == [
        ("close", 12, {"N": 13, "S": 15}, None, {}),
        ("close", 26, {"N": 6, "S": 7}, "S", {"S": 2}),
        ("close", 22, {"N": 10, "S": 10}, "N", {"N": 2}),
        ("fold", None, None, "S", {"S": 1}),
        ("close", 19, {"N": 20, "S": 12}, "S", {"S": 2}),
        ("close", 18, {"N": 10, "S": 18}, "S", {"S": 2}),
    ]


def test_cli_json(capsys):
    rc = main(["replay", str(REPO / "datasets/games/kems-full.jsonl"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert {"game", "finished", "standings", "results"} <= set(out)
    assert out["game"] == "kems" and out["finished"] is True
    assert out["standings"] == [{"team": ["N", "S"], "points": 5}, {"team": ["E", "W"], "points": 1}]


def test_cli_text_in_french(capsys):
    assert main(["replay", str(REPO / "datasets/games/khmer-vision.jsonl"), "--lang", "fr"]) == 0
    out = capsys.readouterr().out
    assert "gagne la donne" in out and "finished: yes" in out


def test_cli_rejected_event_exits_non_zero(tmp_path, capsys):
    log = tmp_path / "bad.jsonl"
    lines = (REPO / "datasets/games/kemps-full.jsonl").read_text().splitlines()[:3]
    lines.append(json.dumps({"type": "swap", "player": "N", "give": "QH", "take": "KH"}))
    log.write_text("\n".join(lines) + "\n")
    assert main(["replay", str(log)]) == 1
    captured = capsys.readouterr()
    assert "line 4" in captured.err and "does not hold QH" in captured.err
    assert main(["replay", str(log), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["rejected"][0]["line"] == 4 and out["rejected"][0]["code"] == "not_in_hand"


@pytest.mark.parametrize("content,msg", [
    ("", "empty log"),
    ("{not json\n", "not JSON"),
    ('{"type": "stale"}\n', "header"),
    ('{"game": "kemps", "players": ["N", "E", "S", "W"], "teams": [["N", "S"], ["E", "W"]], "rules": {"wrod": "CUT"}}\n', "wrod"),
])
def test_cli_bad_files_exit_2(tmp_path, capsys, content, msg):
    log = tmp_path / "x.jsonl"
    log.write_text(content)
    assert main(["replay", str(log)]) == 2
    assert msg in capsys.readouterr().err


def test_cli_reads_a_log_saved_by_a_windows_editor(tmp_path, capsys):
    """A byte-order mark and CRLF line ends (Notepad's UTF-8) read as the same log."""
    text = (REPO / "datasets/games/kemps-full.jsonl").read_text()
    log = tmp_path / "notepad.jsonl"
    log.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    assert main(["replay", str(log), "--json"]) == 0
    windows = json.loads(capsys.readouterr().out)
    assert main(["replay", str(REPO / "datasets/games/kemps-full.jsonl"), "--json"]) == 0
    assert windows == json.loads(capsys.readouterr().out)


def test_cli_binary_file_is_named_in_one_clear_error(tmp_path, capsys):
    log = tmp_path / "video.mp4"
    log.write_bytes(b"\x00\x96\xff\xfe not text")
    assert main(["replay", str(log)]) == 2
    err = capsys.readouterr().err
    assert "video.mp4" in err and "not a UTF-8 text file" in err and "codec" not in err


def test_cli_missing_file(capsys):
    assert main(["replay", "/nonexistent/game.jsonl"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_replay_module_imports_nothing_heavy():
    code = ("import sys, referee.cli.replay, referee.replay; "
            "heavy = {'torch', 'cv2', 'ultralytics', 'openvino', 'fastapi', 'numpy'} & set(sys.modules); "
            "print(sorted(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_view_is_json_at_every_step(path):
    from referee.rules import new_game

    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    game = new_game(lines[0])
    state = game.initial_state()
    for e in lines[1:]:
        r = game.apply(state, e)
        state = r.state
        view = json.loads(json.dumps(game.view(state)))
        assert view["game"] == lines[0]["game"] and view["awaiting"] == game.awaiting(state)
        assert all(set(a.text) == {"en", "fr", "es"} for a in r.announcements)
        assert game.is_legal(state, e) in (True, False)
