"""The game: state, events, calls, the reveal flow, new hand, undo, export, new game."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse
from starlette.background import BackgroundTask

from referee.server.deps import LiveDep, TableAccess
from referee.server.errors import ERROR_RESPONSES, ApiError
from referee.server.models import (
    CallIn,
    CallOut,
    EventIn,
    HeardConfirmIn,
    NewGameIn,
    OutcomeOut,
    RevealConfirmIn,
    RevealCorrectIn,
)
from referee.server.outcome import Outcome

router = APIRouter(prefix="/api", tags=["game"], dependencies=[TableAccess], responses=ERROR_RESPONSES)


def checked(outcome: Outcome) -> OutcomeOut:
    """An event the referee refused is a 409 with its reason as the message."""
    if not outcome.accepted:
        raise ApiError(409, outcome.code or "rejected", outcome.reason or "rejected by the referee",
                       {"event": outcome.event})
    return OutcomeOut(**outcome.to_json())


def call_out(record: Any) -> CallOut:
    outcome = record.outcome or Outcome.failed("not judged")
    return CallOut(seq=record.seq, judged=record.judged, accepted=outcome.accepted, reason=outcome.reason,
                   event=record.event, announcements=outcome.announcements, results=outcome.results)


def check_seat(live: Any, seat: str | None, what: str) -> None:
    players = live.service.snapshot.get("header", {}).get("players") or live.settings.players
    if seat is not None and players and seat not in players:
        raise ApiError(400, "unknown_seat", f"{what} '{seat}' is not at this table ({', '.join(players)}).")


@router.get("/state", summary="Everything the dashboard shows")
async def get_state(live: LiveDep) -> dict[str, Any]:
    return live.state_message()


@router.get("/game", summary="The session: header, rules view, standings, awaiting, recent log")
async def get_game(live: LiveDep) -> dict[str, Any]:
    return live.service.snapshot


@router.post("/events", summary="Submit any public game-log event (a human override)")
async def post_event(body: EventIn, live: LiveDep) -> OutcomeOut:
    return checked(await live.submit(body.model_dump(), "dashboard"))


@router.post("/calls", summary="A call from the dashboard buttons",
             description="Ordered with phone and voice calls by the rule in docs/server.md; "
                         "`accepted` is false when the referee refused it (reason given).")
async def post_call(body: CallIn, live: LiveDep) -> CallOut:
    check_seat(live, body.by, "Caller")
    check_seat(live, body.target, "Target")
    if body.call == "cut" and not body.target:
        raise ApiError(400, "target_required", "A Cut must name the player it accuses.")
    return call_out(await live.call(body.call, body.by, body.target, "dashboard"))


@router.get("/calls", summary="Recent calls in arrival order, with their judging order")
async def get_calls(live: LiveDep, limit: int = 100) -> dict[str, Any]:
    return {"total": live.arbiter.total, "calls": live.arbiter.recent(max(1, min(limit, 1000)))}


@router.post("/reveal/correct", summary="Correct one seat's revealed cards (click-correct)")
async def reveal_correct(body: RevealCorrectIn, live: LiveDep) -> dict[str, Any]:
    check_seat(live, body.seat, "Seat")
    live.correct_reveal(body.seat, body.cards)
    assert live.reveal is not None
    return live.reveal.to_json()


@router.post("/reveal/confirm", summary="Record the revealed hands (the draft, or the hands given)")
async def reveal_confirm(body: RevealConfirmIn, live: LiveDep) -> OutcomeOut:
    if body.hands is None and live.reveal is None:
        raise ApiError(409, "no_reveal", "No reveal is waiting for confirmation.")
    return checked(await live.confirm_reveal(body.hands))


@router.post("/game/new-hand", summary="Collect, shuffle, deal again (scores persist)")
async def new_hand(live: LiveDep) -> OutcomeOut:
    return checked(await live.submit({"type": "new_hand"}, "dashboard"))


@router.post("/game/undo", summary="Undo the last event (a human override)")
async def undo(live: LiveDep) -> OutcomeOut:
    try:
        outcome = await live.service.undo()
    except (IndexError, ValueError, LookupError) as exc:
        raise ApiError(409, "nothing_to_undo", str(exc) or "Nothing to undo.") from exc
    # No `live.reveal = None` here: the snapshot listener (`LiveReferee._follow_awaiting`) has
    # already made the reveal draft follow what the game awaits now. Clearing it after that
    # left an undone reveal awaited with no draft: the box hidden and Confirm refused.
    live.push_state()
    return OutcomeOut(**outcome.to_json())


@router.get("/game/export", summary="Download the game log (JSONL: header, then one event per line)",
            response_class=FileResponse)
async def export(live: LiveDep) -> FileResponse:
    folder = Path(tempfile.mkdtemp(prefix="referee-export-"))
    out = folder / f"game-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    await live.service.export(out)
    return FileResponse(out, media_type="application/x-ndjson", filename=out.name,
                        background=BackgroundTask(shutil.rmtree, folder, ignore_errors=True))


@router.post("/game/new", summary="Start a new game; the current one is archived, never deleted")
async def new_game(body: NewGameIn, live: LiveDep) -> dict[str, Any]:
    header = dict(live.service.header())
    for key in ("game", "players", "teams", "rules"):
        value = getattr(body, key)
        if value is not None:
            header[key] = value
    if body.players is not None and body.teams is None:
        header.pop("teams", None)
        if header.get("game") != "khmer":  # partners facing, as `referee serve` seats them
            from referee.rules.engine import default_teams

            teams = default_teams(list(body.players))
            if teams:
                header["teams"] = teams
    try:
        await live.service.new_game(header)
    except (ValueError, KeyError) as exc:
        raise ApiError(400, "bad_header", str(exc)) from exc
    live.reveal = None
    live.heard.clear()
    live.new_game_started()
    live.push_state()
    return live.service.snapshot


@router.get("/rules/{game}", summary="A game's rule options and named variants (configs/rules/)")
async def rules(game: str) -> dict[str, Any]:
    from referee.rules.config import rule_file

    try:
        data = rule_file(game)
    except ValueError as exc:
        raise ApiError(404, "unknown_game", str(exc)) from exc
    variants = [{"name": name, "description": ", ".join(f"{k}={v}" for k, v in (over or {}).items())}
                for name, over in (data.get("variants") or {}).items()]
    options = {k: {"default": v.get("default"), "help": v.get("help")} for k, v in (data.get("options") or {}).items()}
    return {"game": game, "variants": variants, "options": options}


@router.post("/voice/heard/{heard_id}/confirm", summary="Confirm a voice call shown as 'heard: …?'",
             description="Judged when confirmed (a tap cannot be back-dated); the audio time is kept.")
async def confirm_heard(heard_id: str, body: HeardConfirmIn, live: LiveDep) -> CallOut:
    heard = live.heard.get(heard_id)
    if heard is None:
        raise ApiError(404, "not_found", "That voice call is no longer waiting.")
    by = body.by or heard.by
    target = body.target or heard.target
    # Every check before the item is taken: a refused confirmation (no caller, a seat not at
    # the table, a Cut with no target: "stop kemps") leaves it waiting for a right one.
    if not by:
        raise ApiError(400, "caller_required", "Say who called: pick the caller's seat.")
    check_seat(live, by, "Caller")
    check_seat(live, target, "Target")
    if heard.call == "cut" and not target:
        raise ApiError(400, "target_required", "A Cut must name the player it accuses: pick the target.")
    if live.heard.pop(heard_id, None) is None:  # confirmed meanwhile by another tap
        raise ApiError(404, "not_found", "That voice call is no longer waiting.")
    return call_out(await live.call(heard.call, by, target, "voice", audio_t=heard.audio_t))


@router.delete("/voice/heard/{heard_id}", summary="Dismiss a voice call that was not a call")
async def dismiss_heard(heard_id: str, live: LiveDep) -> dict[str, Any]:
    live.heard.pop(heard_id, None)
    live.push_state()
    return {"dismissed": heard_id}
