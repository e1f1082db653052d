"""Rule-set YAML: every option documented and valid, every variant loads, overrides checked."""

from __future__ import annotations

import pytest

from referee.rules import new_game
from referee.rules.config import GAMES, load_rules, rule_file


@pytest.mark.parametrize("game", GAMES)
def test_every_option_is_documented_and_its_default_valid(game):
    data = rule_file(game)
    assert data["game"] == game
    for key, spec in data["options"].items():
        assert spec.get("help"), f"{game}.{key} has no help"
        assert "default" in spec, key
    rules = load_rules(game)
    assert set(rules) == set(data["options"])


@pytest.mark.parametrize("game,variant", [(g, v) for g in GAMES for v in rule_file(g)["variants"]])
def test_every_variant_loads_and_changes_something(game, variant):
    base, rules = load_rules(game), load_rules(game, {"variant": variant})
    assert rules.variants == (variant,)
    assert base.to_dict() != rules.to_dict()
    for key in rule_file(game)["variants"][variant]:
        assert key in rule_file(game)["options"]


@pytest.mark.parametrize("overrides,msg", [
    ({"nope": 1}, "unknown option 'nope'"),
    ({"variant": "nope"}, "unknown variant 'nope'"),
    ({"end_mode": "sudden_death"}, "end_mode"),
    ({"hand_size": 9}, "out of range"),
    ({"cut_allowed": "yes"}, "true or false"),
    ({"word": "K3MPS"}, "letters only"),
])
def test_bad_overrides(overrides, msg):
    with pytest.raises(ValueError, match=msg):
        load_rules("kemps", overrides)


def test_defaults_are_the_readme_readings():
    k = load_rules("kemps")
    assert (k.word, k.hand_size, k.kind_size, k.end_mode, k.correct_kemps_multi, k.simultaneous_calls,
            k.self_call, k.kemps_call_holder, k.kind_any_suits, k.cut_allowed) == (
        "KEMPS", 4, 4, "first_to_finish_loses", "all_others", "first_judged", "wrong", "any_teammate", True, True)
    f = load_rules("kems")
    assert (f.wrong_contre_shows, f.contre_ban, f.target_score, f.deal_redraw, f.show_count) == (
        "callers", "round", None, True, 2)
    h = load_rules("khmer")
    assert (h.close_compare, h.tie, h.match_target, h.win_points, h.fold_points, h.closer_over_table,
            h.next_starter) == ("le", "closer_loses", 6, 2, 1, "none", "last_winner")


def test_overrides_reach_the_game():
    g = new_game({"game": "kemps", "rules": {"variant": ["cut", "no_cut"], "word": "abc"},
                  "players": ["N", "E", "S", "W"], "teams": [["N", "S"], ["E", "W"]]})
    assert g.rules.word == "ABC" and g.rules.cut_allowed is False


def test_game_log_doc_lists_every_option_variant_and_event():
    from pathlib import Path

    from referee.events import EVENT_TYPES

    doc = (Path(__file__).resolve().parents[2] / "docs" / "game-log.md").read_text()
    for game in GAMES:
        for key in rule_file(game)["options"]:
            assert f"`{key}`" in doc, key
        for name in rule_file(game)["variants"]:
            assert f"`{name}`" in doc, name
    for kind in EVENT_TYPES:
        assert f"`{kind}`" in doc, kind


def test_game_log_doc_example_replays(tmp_path):
    import re
    from pathlib import Path

    from referee.replay import replay_log

    doc = (Path(__file__).resolve().parents[2] / "docs" / "game-log.md").read_text()
    block = doc.split("## A complete example")[1]
    lines = re.search(r"```json\n(.*?)```", block, re.S).group(1)
    log = tmp_path / "doc.jsonl"
    log.write_text(lines)
    report = replay_log(log)
    assert report.ok and report.standings[1]["letters"] == "K"
