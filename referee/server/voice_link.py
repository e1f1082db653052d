"""Browser microphone → the voice listener (referee/voice) → calls, with fair timestamps.

The listener is imported only when a microphone connects; if pocketsphinx (or its model)
is missing, the socket says why and everything else keeps working. Decoding is CPU work,
so it runs on a thread of its own, never on the event loop.

Clock mapping: the first audio chunk's start is pinned to the server's monotonic clock
(`arrival - chunk duration`); a call's instant is then `that + VoiceCall.t` (the end of the
spoken phrase), which is what `CallArbiter` orders by (docs/server.md).
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from referee.server.settings import ServerSettings

RATE = 16000
COMPASS = {"N": "north", "E": "east", "S": "south", "W": "west"}


def voice_unavailable_reason(settings: ServerSettings) -> str | None:
    if not settings.voice:
        return "voice calls are turned off on this server"
    try:
        import pocketsphinx  # noqa: F401

        from referee.voice.listener import CallListener  # noqa: F401
    except ImportError as exc:
        return f"voice listener not installed ({exc}); buttons and phones still work"
    return None


def spoken_names(players: list[str]) -> dict[str, str]:
    """Spoken word → seat: seats N/E/S/W are said as compass points."""
    return {COMPASS.get(p, p).lower(): p for p in players}


class MicStream:
    def __init__(self, live: Any, speaker: str | None) -> None:
        self.live = live
        self.speaker = speaker
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mic")
        self._listener: Any = None
        self._names: dict[str, str] = {}
        self._m0: float | None = None
        self._samples = 0
        self._client: Any = None

    async def start(self) -> None:
        header = self.live.service.snapshot.get("header", {})
        players = [str(p) for p in header.get("players") or self.live.settings.players]
        self._names = spoken_names(players)
        game = str(header.get("game", "kemps"))
        rules = header.get("rules") or None
        one_word_tap = bool(self.live.settings.voice_confirm_one_word)

        def build() -> Any:
            from referee.voice.grammar import load_config
            from referee.voice.listener import CallListener

            # The one-word policy lives in the listener's config so that weak two-word
            # detections stay provisional whatever the dashboard setting is.
            config = load_config(overrides={"one_word_provisional": one_word_tap})
            return CallListener(game, list(self._names), config=config, rules=rules)

        self._listener = await asyncio.get_running_loop().run_in_executor(self._executor, build)
        # what the grammar warns of (a name guessed from its spelling, a name like a table word)
        self.live.on_notices([{"type": "voice_warning", "message": w} for w in self._listener.warnings])
        self.live.voice_status = "listening" + (f" ({self.speaker})" if self.speaker else "")
        self.live.push_state()

    async def stop(self) -> None:
        # A call still inside the listener's hold window would be lost without a flush.
        client = self._client
        if self._listener is not None and client is not None:
            try:
                calls = await asyncio.get_running_loop().run_in_executor(self._executor, self._listener.flush)
            except RuntimeError:  # executor already shut down
                calls = []
            for call in calls:
                self._dispatch(client, call)
        self.live.voice_status = "not connected"
        self.live.push_state()
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def feed(self, client: Any, pcm: bytes) -> None:
        self._client = client
        if len(pcm) % 2:
            pcm = pcm[:-1]
        now = time.monotonic()
        if self._m0 is None:
            self._m0 = now - (len(pcm) // 2) / RATE
        self._samples += len(pcm) // 2
        calls = await asyncio.get_running_loop().run_in_executor(self._executor, self._listener.feed, pcm)
        for call in calls:
            self._dispatch(client, call)

    def _dispatch(self, client: Any, call: Any) -> None:
        assert self._m0 is not None
        at = self._m0 + float(call.t)
        target = self._names.get(str(call.target).lower()) if call.target else None
        info = {"type": "call", "call": call.call, "target": target, "confidence": round(float(call.confidence), 3),
                "t": round(float(call.t), 3), "provisional": bool(call.provisional)}
        client.queue.put_nowait(info)
        needs_tap = bool(call.provisional)
        untargeted_cut = call.call == "cut" and target is None  # "stop kemps!": ask whom
        if needs_tap or untargeted_cut or self.speaker is None:
            self.live.add_heard(call.call, target, self.speaker, float(call.confidence), float(call.t), at)
            return
        asyncio.ensure_future(self.live.call(call.call, self.speaker, target, "voice", at=at, audio_t=float(call.t)))
