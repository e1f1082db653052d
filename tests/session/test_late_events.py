"""Camera events refused for turn order are held and offered again (referee/late_events.py)."""

from __future__ import annotations

from pathlib import Path

from referee.late_events import LateEvents
from referee.server.service import GameService

KHMER = {"game": "khmer", "rules": {}, "players": ["S", "N"]}
DEAL = {"type": "deal", "hands": {"S": ["2S", "6C", "5S", "3H", "3S", "AS"], "N": ["6H", "AH", "6C", "4S", "6S", "4H"]},
        "hidden": ["5H", "6D", "6D", "2H"], "first": "S"}


def test_a_turn_refusal_is_held_and_accepted_after_the_earlier_move() -> None:
    late = LateEvents(hold_s=5.0)
    state = {"turn": "S"}

    def apply(ev: dict) -> bool:
        if ev["player"] != state["turn"]:
            return False
        state["turn"] = "N" if ev["player"] == "S" else "S"
        return True

    n_play = {"player": "N", "t": 10.0}
    assert not apply(n_play) and late.hold(n_play, "not_your_turn", 10.0)
    assert apply({"player": "S", "t": 10.5})  # S's play, read late
    assert late.retry(apply) == [n_play] and late.held == []


def test_only_turn_refusals_are_held_and_only_for_hold_s() -> None:
    late = LateEvents(hold_s=5.0)
    assert not late.hold({"type": "play"}, "not_in_hand", 1.0)
    assert late.hold({"type": "play", "t": 1.0}, "not_your_turn", 1.0)
    assert late.expire(5.9) == [] and len(late.held) == 1
    assert late.expire(6.1) == [{"type": "play", "t": 1.0}] and late.held == []


def test_retry_goes_on_while_each_accepted_event_makes_another_legal() -> None:
    late = LateEvents()
    order = ["a", "b", "c"]
    done: list[str] = []

    def apply(ev: dict) -> bool:
        if ev["k"] == order[len(done)]:
            done.append(ev["k"])
            return True
        return False

    late.hold({"k": "c"}, "not_your_turn", 0.0)
    late.hold({"k": "b"}, "not_your_turn", 0.0)
    done.append("a")
    assert [e["k"] for e in late.retry(apply)] == ["b", "c"]


def test_server_holds_a_camera_play_the_referee_gets_before_the_earlier_one(tmp_path: Path) -> None:
    svc = GameService(tmp_path / "k.sqlite", KHMER)
    svc._open()
    assert svc._append(DEAL, "dashboard").accepted
    assert svc._append({"type": "discard", "player": "S", "card": "6C", "t": 6.0}, "camera").accepted
    # S's discard was S's move; N's next play is read late, so S's reply reaches the referee first
    s_play = {"type": "play", "player": "S", "card": "5S", "t": 14.1}
    refused = svc._append(s_play, "camera")
    assert not refused.accepted and "held" in (refused.reason or "")
    assert svc._append({"type": "play", "player": "N", "card": "6H", "t": 14.6}, "camera").accepted
    played = [e for e in svc._session.events() if e.get("type") == "play"]
    assert [(e["player"], e["card"]) for e in played] == [("N", "6H"), ("S", "5S")]
    assert svc.late.held == []
    svc._close()


def test_server_never_holds_a_persons_move_or_another_refusal(tmp_path: Path) -> None:
    svc = GameService(tmp_path / "k.sqlite", KHMER)
    svc._open()
    svc._append(DEAL, "dashboard")
    assert not svc._append({"type": "play", "player": "N", "card": "6H"}, "dashboard").accepted
    assert not svc._append({"type": "play", "player": "S", "card": "KD", "t": 3.0}, "camera").accepted
    assert svc.late.held == []
    svc._close()


def test_a_close_declared_before_the_camera_saw_the_last_move_is_taken_once_it_has(tmp_path: Path) -> None:
    # Found with the camera frozen 4 s around moves (7 Dec): S's close came while the camera
    # had not yet reported N's last move, was refused ("it is N's turn") and the deal never ended.
    svc = GameService(tmp_path / "k.sqlite", KHMER)
    svc._open()
    svc._append(DEAL, "dashboard")
    assert svc._append({"type": "play", "player": "S", "card": "5S", "t": 5.0}, "camera").accepted
    refused = svc._append({"type": "close", "player": "S"}, "dashboard")
    assert not refused.accepted and "held" in (refused.reason or "")
    assert svc._append({"type": "play", "player": "N", "card": "6H", "t": 6.2}, "camera").accepted
    assert [e["type"] for e in svc._session.events()][-2:] == ["play", "close"]
    assert svc.snapshot["log"][-1]["source"] == "dashboard (late)"
    svc._close()
