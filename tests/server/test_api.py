"""REST API: the game flow, errors as JSON, phones, ordering, LAN access, export, restart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import CODE, HEADER, MARKET, deal


def test_openapi_documents_every_resource(make_client):
    with make_client() as client:
        spec = client.get("/openapi.json").json()
    paths = set(spec["paths"])
    for path in ("/api/state", "/api/calls", "/api/events", "/api/reveal/confirm", "/api/reveal/correct",
                 "/api/game/undo", "/api/game/new-hand", "/api/game/export", "/api/phones/join",
                 "/api/phones/call", "/api/table/layout", "/api/video/still.jpg"):
        assert path in paths, path
    assert {"game", "phones", "table", "video"} <= {t for p in spec["paths"].values() for op in p.values() for t in op.get("tags", [])}
    assert "ErrorBody" in spec["components"]["schemas"]


def test_cut_reveal_confirm_gives_a_letter(make_client):
    with make_client() as client:
        deal(client)
        r = client.post("/api/calls", json={"call": "cut", "by": "N", "target": "E"})
        assert r.status_code == 200 and r.json()["accepted"], r.text
        assert r.json()["seq"] == 1
        state = client.get("/api/state").json()
        assert state["game"]["awaiting"]["kind"] == "reveal"
        assert state["reveal"]["seats"] == ["E"]
        r = client.post("/api/reveal/correct", json={"seat": "E", "cards": ["7h", "7s", "7d", "2c"]})
        assert r.json()["hands"]["E"] == ["7H", "7S", "7D", "2C"]  # parsed to canonical cards
        r = client.post("/api/reveal/confirm", json={})
        assert r.status_code == 200, r.text
        keys = [a["key"] for a in r.json()["announcements"]]
        assert "letter" in keys and all(set(a["text"]) >= {"en", "fr", "es"} for a in r.json()["announcements"])
        standings = client.get("/api/game").json()["standings"]
        # E held no Kemps: the cut was wrong, N+S get the first letter.
        assert {tuple(s["team"]): s["letters"] for s in standings} == {("N", "S"): "K", ("E", "W"): ""}
        assert client.get("/api/state").json()["reveal"] is None


def test_errors_are_json_with_a_clear_message(make_client):
    with make_client() as client:
        r = client.post("/api/calls", json={"call": "shout", "by": "N"})
        assert r.status_code == 422 and r.json()["error"] == "invalid_request" and "call" in r.json()["message"]
        r = client.post("/api/calls", json={"call": "cut", "by": "N"})
        assert r.status_code == 400 and r.json()["error"] == "target_required"
        r = client.post("/api/calls", json={"call": "kemps", "by": "Zed"})
        assert r.status_code == 400 and "not at this table" in r.json()["message"]
        r = client.post("/api/events", json={"type": "swap", "player": "N", "give": "2C", "take": "7C"})
        assert r.status_code == 409 and r.json()["message"]  # no hand dealt: the referee says why
        r = client.post("/api/reveal/correct", json={"seat": "E", "cards": ["ZZ"]})
        assert r.status_code == 422
        r = client.get("/api/nothing-here")
        assert r.status_code == 404 and r.json()["error"] == "not_found"
        r = client.post("/api/reveal/confirm", json={})
        assert r.status_code == 409 and r.json()["error"] == "no_reveal"


def test_phone_join_needs_the_code_and_calls_for_its_seat(make_client):
    with make_client() as client:
        deal(client)
        r = client.post("/api/phones/join", json={"code": "000000", "seat": "E"})
        assert r.status_code == 403 and r.json()["error"] == "wrong_code"
        r = client.post("/api/phones/call", json={"call": "kemps"})
        assert r.status_code == 401
        r = client.post("/api/phones/join", json={"code": CODE, "seat": "Q"})
        assert r.status_code == 400
        token = client.post("/api/phones/join", json={"code": CODE, "seat": "E", "name": "Eve"}).json()["token"]
        me = client.get("/api/phones/me", headers={"X-Phone-Token": token}).json()
        assert me["seat"] == "E" and me["players"] == HEADER["players"]
        r = client.post("/api/phones/call", json={"call": "cut", "target": "N"}, headers={"X-Phone-Token": token})
        assert r.status_code == 200 and r.json()["event"] == {"type": "call", "call": "cut", "by": "E", "target": "N"}


def test_phone_calls_are_rate_limited(make_client):
    with make_client(phone_call_burst=2, phone_calls_per_s=0.5) as client:
        token = client.post("/api/phones/join", json={"code": CODE, "seat": "E"}).json()["token"]
        codes = [client.post("/api/phones/call", json={"call": "kemps"}, headers={"X-Phone-Token": token}).status_code
                 for _ in range(3)]
        assert codes[:2] == [200, 200] and codes[2] == 429


def test_joins_are_rate_limited(make_client):
    with make_client(joins_per_minute=3) as client:
        codes = [client.post("/api/phones/join", json={"code": "999999", "seat": "E"}).status_code for _ in range(4)]
        assert codes == [403, 403, 403, 429]


def test_first_call_to_arrive_is_judged_first(make_client):
    """A phone call that arrives before a dashboard call wins; the later one is logged, not scored."""
    with make_client() as client:
        deal(client)
        token = client.post("/api/phones/join", json={"code": CODE, "seat": "E"}).json()["token"]
        first = client.post("/api/phones/call", json={"call": "cut", "target": "S"}, headers={"X-Phone-Token": token}).json()
        second = client.post("/api/calls", json={"call": "cut", "by": "N", "target": "W"}).json()
        assert (first["seq"], first["judged"]) == (1, 1) and (second["seq"], second["judged"]) == (2, 2)
        awaiting = client.get("/api/game").json()["awaiting"]
        assert awaiting["kind"] == "reveal" and awaiting["reason"] == "cut" and "S" in awaiting["seats"]
        calls = client.get("/api/calls").json()["calls"]
        assert [c["source"].split(":")[0] for c in calls] == ["phone", "dashboard"]


def test_lan_mode_refuses_clients_without_the_code(make_client):
    # TestClient's peer is "testclient", i.e. another machine on the network.
    with make_client(lan=True) as client:
        r = client.get("/api/state")
        assert r.status_code == 403 and r.json()["error"] == "join_code_required"
        assert client.get("/").status_code == 403
        assert client.get("/api/state", headers={"X-Join-Code": CODE}).status_code == 200
        assert client.get("/phone").status_code == 200  # the phone page only asks for the code
        assert client.get("/static/phone.js").status_code == 200
        r = client.post("/api/phones/join", json={"code": CODE, "seat": "S"})
        assert r.status_code == 200
        assert client.get("/api/state").status_code == 200  # the join set the code cookie


def test_export_is_the_public_game_log(make_client, tmp_path: Path):
    with make_client() as client:
        deal(client)
        client.post("/api/calls", json={"call": "kemps", "by": "N"})
        r = client.get("/api/game/export")
    assert r.status_code == 200
    lines = [json.loads(x) for x in r.text.splitlines() if x.strip()]
    assert lines[0]["game"] == "kemps" and lines[0]["players"] == HEADER["players"]
    assert [e["type"] for e in lines[1:]] == ["deal", "call"]


def test_undo_and_new_hand(make_client):
    with make_client() as client:
        deal(client)
        client.post("/api/calls", json={"call": "kemps", "by": "N"})
        assert client.get("/api/game").json()["awaiting"]["kind"] == "reveal"
        assert client.post("/api/game/undo").status_code == 200
        state = client.get("/api/state").json()
        assert state["game"]["awaiting"] is None and state["reveal"] is None
        assert client.post("/api/game/new-hand").status_code == 200
        assert client.get("/api/game").json()["awaiting"]["kind"] == "deal"


def test_undoing_a_confirmed_reveal_asks_for_it_again(make_client):
    # Found by a server audit (7 Dec): the undo cleared the reveal draft after the game had
    # gone back to awaiting the reveal, so the dashboard hid the box and Confirm gave 409.
    with make_client() as client:
        deal(client)
        client.post("/api/calls", json={"call": "cut", "by": "E", "target": "N"})
        client.post("/api/reveal/correct", json={"seat": "N", "cards": ["7S", "7C", "9D", "7H"]})
        assert client.post("/api/reveal/confirm", json={}).status_code == 200
        assert client.post("/api/game/undo").status_code == 200
        state = client.get("/api/state").json()
        assert state["game"]["awaiting"]["kind"] == "reveal" and state["reveal"]["seats"] == ["N"]
        client.post("/api/reveal/correct", json={"seat": "N", "cards": ["7S", "7C", "9D", "7H"]})
        assert client.post("/api/reveal/confirm", json={}).status_code == 200
        assert client.get("/api/game").json()["awaiting"]["kind"] == "deal"  # the Cut ended the hand


def test_undo_and_restart_keep_the_logs_details(make_client, tmp_path: Path):
    # Found by a dashboard audit (7 Dec): an undo reloaded the log from the session, so every
    # entry lost its announcements and source, refusals vanished and the undo was not shown.
    db = tmp_path / "kept.sqlite"
    with make_client(db=db) as client:
        deal(client)
        assert client.post("/api/events", json={"type": "reset", "market": MARKET}).status_code == 409  # refused: no stale
        client.post("/api/calls", json={"call": "kemps", "by": "N"})
        before = client.get("/api/game").json()["log"]
        assert client.post("/api/game/undo").status_code == 200
        log = client.get("/api/game").json()["log"]
        assert log[: len(before)] == [e | ({"undone": True} if e is before[-1] else {}) for e in before]
        assert log[-1]["event"]["type"] == "undo" and log[-1]["source"] == "undo"
        assert client.post("/api/calls", json={"call": "kemps", "by": "N"}).json()["accepted"]
        assert client.get("/api/game").json()["log"][-1]["i"] == before[-1]["i"]  # the same place again
    with make_client(db=db) as client:
        log = client.get("/api/game").json()["log"]
        assert [e["event"]["type"] for e in log] == ["deal", "call"]
        assert log[0]["announcements"] and "results" in log[1]  # replayed: what was said comes back


def test_restart_restores_the_exact_game(make_client, tmp_path: Path):
    db = tmp_path / "kept.sqlite"
    with make_client(db=db) as client:
        deal(client)
        client.post("/api/calls", json={"call": "cut", "by": "N", "target": "E"})
        client.post("/api/reveal/confirm", json={"hands": {"E": ["5C", "5D", "5H", "5S"]}})
        before = client.get("/api/game").json()
    with make_client(db=db) as client:
        after = client.get("/api/game").json()
    assert after["restored"] is True
    assert after["view"] == before["view"] and after["standings"] == before["standings"]


def test_a_restart_keeps_the_joined_phones(make_client, tmp_path: Path):
    # Found by a server audit (7 Dec): tokens lived in memory only, so after a restart every
    # phone got 401, cleared its login, and its first buzz was lost.
    db = tmp_path / "kept.sqlite"
    with make_client(db=db) as client:
        deal(client)
        token = client.post("/api/phones/join", json={"code": CODE, "seat": "S", "name": "Sam"}).json()["token"]
    (tmp_path / "other.sqlite.phones.json").write_text("not json")  # a damaged file: a rejoin, not a crash
    with make_client(db=tmp_path / "other.sqlite") as client:
        assert client.get("/api/phones/me", headers={"X-Phone-Token": token}).status_code == 401
    with make_client(db=db) as client:
        me = client.get("/api/phones/me", headers={"X-Phone-Token": token})
        assert me.status_code == 200 and me.json()["seat"] == "S" and me.json()["name"] == "Sam"
        r = client.post("/api/phones/call", json={"call": "kemps"}, headers={"X-Phone-Token": token})
        assert r.status_code == 200 and r.json()["event"]["by"] == "S"
        second = client.post("/api/phones/join", json={"code": CODE, "seat": "N"}).json()
        assert second["id"] == "p2" and second["token"] != token


def test_new_game_archives_the_old_one(make_client, tmp_path: Path):
    db = tmp_path / "g.sqlite"
    with make_client(db=db) as client:
        deal(client)
        r = client.post("/api/game/new", json={"game": "kems", "players": ["A", "B", "C", "D"],
                                                "teams": [["A", "C"], ["B", "D"]]})
        assert r.status_code == 200, r.text
        assert r.json()["header"]["game"] == "kems"
        assert client.get("/api/game").json()["awaiting"]["kind"] == "deal"
    assert any(p.name.startswith("g.sqlite.") for p in tmp_path.iterdir())


def test_two_new_games_in_one_second_keep_both_archives(make_client, tmp_path: Path):
    # Found by a server audit (7 Dec): archives were named to the second, so a double click on
    # "new game" moved the empty game's file over the archive of the game played before it.
    db = tmp_path / "g.sqlite"
    with make_client(db=db) as client:
        deal(client)
        client.post("/api/calls", json={"call": "kemps", "by": "N"})
        assert client.post("/api/game/new", json={}).status_code == 200
        assert client.post("/api/game/new", json={}).status_code == 200
    from referee.session import Session

    import re

    archives = sorted(p for p in tmp_path.iterdir() if re.fullmatch(r"g\.sqlite\.\d{8}-\d{6}(-\d+)?", p.name))
    assert len(archives) == 2
    counts = sorted(len(Session.open(p).events()) for p in archives)
    assert counts == [0, 2]


def test_rules_endpoint_lists_variants(make_client):
    with make_client() as client:
        data = client.get("/api/rules/kemps").json()
        assert any(v["name"] == "cut" for v in data["variants"]) and "word" in data["options"]
        assert client.get("/api/rules/poker").status_code == 404


def test_a_bad_new_game_leaves_the_current_game_alone(make_client, tmp_path: Path):
    db = tmp_path / "g.sqlite"
    with make_client(db=db) as client:
        deal(client)
        r = client.post("/api/game/new", json={"players": ["A", "B", "A"]})
        assert r.status_code == 400 and r.json()["message"]
        assert client.get("/api/game").json()["view"]["market"] == ["7C", "KD", "3S", "4H"]
        assert client.post("/api/calls", json={"call": "kemps", "by": "N"}).json()["accepted"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("g.sqlite.")) == []


def test_api_docs_page_is_local(make_client):
    with make_client() as client:
        page = client.get("/docs")
        assert page.status_code == 200 and "/openapi.json" in page.text
        assert "http://" not in page.text and "https://" not in page.text
        for name in ("index.html", "phone.html"):
            html = (client.app.state.settings.web_dir / name).read_text()
            assert "https://" not in html and "http://" not in html  # nothing from the internet


def test_players_with_accents_can_call_join_and_be_revealed(make_client):
    # Found by a server audit (7 Dec): seats were ASCII-only in the API while a game took any
    # name, so "José" was seated but every call by him was refused (422).
    names = {"game": "kems", "rules": {}, "players": ["José", "Zoé", "D'Arcy", "Léa"],
             "teams": [["José", "D'Arcy"], ["Zoé", "Léa"]]}
    with make_client(header=names) as client:
        deal(client)
        r = client.post("/api/phones/join", json={"code": CODE, "seat": "Zoé"})
        assert r.status_code == 200, r.text
        r = client.post("/api/calls", json={"call": "kems", "by": "José"})
        assert r.status_code == 200, r.text
        r = client.post("/api/reveal/correct", json={"seat": "D'Arcy", "cards": ["7S", "7C", "7D", "7H"]})
        assert r.status_code == 200, r.text
    with make_client() as client:  # a name the API could never accept is refused up front
        r = client.post("/api/game/new", json={"players": ["N", "E", "S", "<W>"]})
        assert r.status_code == 422


def test_serve_refuses_a_player_name_the_api_cannot_take():
    import argparse

    from referee.cli.main import CliError
    from referee.cli.serve import build_header

    args = argparse.Namespace(game="kemps", players="N,E,S,W/x", rules=None, teams=None)
    with pytest.raises(CliError, match="W/x"):
        build_header(args)
    args.players = "José,Zoé,Léa,Inès"
    assert build_header(args)["players"] == ["José", "Zoé", "Léa", "Inès"]


def test_oversized_or_deeply_nested_events_are_refused(make_client):
    # Found by a server audit (7 Dec): a 20 MB event was refused by the referee but kept in the
    # recent log and sent back in every state message; an event nested 260 deep made every
    # state endpoint answer 500, even after a restart.
    with make_client() as client:
        deal(client)
        big = {"type": "stale", "meta": {"x": "a" * 400_000}}
        r = client.post("/api/events", json=big)
        assert r.status_code == 413 and r.json()["error"] == "body_too_large"

        def chunks():  # no content-length: counted as it streams in
            yield b'{"type": "stale", "meta": {"x": "'
            for _ in range(40):
                yield b"a" * 10_000
            yield b'"}}'

        r = client.post("/api/events", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413
        deep: dict = {"type": "stale", "meta": {}}
        node = deep["meta"]
        for _ in range(260):
            node["n"] = {}
            node = node["n"]
        r = client.post("/api/events", json=deep)
        assert r.status_code == 422 and "deep" in r.json()["message"]
        assert client.get("/api/state").status_code == 200
        assert client.post("/api/events", json={"type": "stale", "meta": {"by": "dealer"}}).status_code == 200
