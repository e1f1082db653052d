"""Who may do what: the join code, phone tokens, and rate limits.

- Bound to 127.0.0.1 (the default) only this laptop can reach the server.
- With `--lan`, any request from another address must carry the join code (header
  `X-Join-Code`, query `?code=`, or the `kr_code` cookie set when a phone joins), except
  the phone page itself and its static files, which only ask for the code.
- Phones always join with the code (even from this laptop) and get a token bound to one
  seat; a phone can only call for its own seat.
"""

from __future__ import annotations

import dataclasses
import hmac
import ipaddress
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
# Reachable from the LAN without the code: the phone page, its assets, the join call.
PUBLIC_PATHS = ("/phone", "/static/", "/api/phones/join", "/favicon.ico")


def on_local_network(host: str) -> bool:
    """Loopback, private or link-local addresses: --lan never serves the internet."""
    if host in LOOPBACK or host == "testclient":  # Starlette's TestClient peer name
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_private or ip.is_loopback or ip.is_link_local


def code_matches(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.strip().encode(), expected.encode())


@dataclass
class TokenBucket:
    """`rate` tokens per second, at most `burst` saved up; one bucket per key."""

    rate: float
    burst: float
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def allow(self, key: str) -> tuple[bool, float]:
        """(allowed, seconds until the next token)."""
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                return True, 0.0
            self._buckets[key] = (tokens, now)
            return False, (1.0 - tokens) / self.rate


@dataclass(frozen=True, slots=True)
class Phone:
    id: str
    token: str
    seat: str
    name: str
    joined_at: float


@dataclass
class PhoneRegistry:
    """Joined phones by token. Several phones may share a seat (a player and a helper).

    With a `path` (beside the game database) the phones are kept in a JSON file, so a
    restarted server still knows them: a phone whose token the server forgot clears its login
    and shows the join form, and its first buzz after a restart was lost (server audit, 7 Dec).
    """

    path: Path | None = None
    _by_token: dict[str, Phone] = field(default_factory=dict)
    _count: int = 0

    def __post_init__(self) -> None:
        if self.path is None or not self.path.exists():
            return
        try:
            rows = json.loads(self.path.read_text())
            phones = [Phone(**row) for row in rows]
        except (OSError, ValueError, TypeError) as exc:  # a damaged file costs the phones a rejoin, not the server
            log.warning("phones not restored from %s: %s", self.path, exc)
            return
        self._by_token = {p.token: p for p in phones}
        self._count = max((int(p.id[1:]) for p in phones if p.id[1:].isdigit()), default=0)

    def join(self, seat: str, name: str) -> Phone:
        self._count += 1
        phone = Phone(id=f"p{self._count}", token=secrets.token_urlsafe(18), seat=seat,
                      name=name or seat, joined_at=time.time())
        self._by_token[phone.token] = phone
        self._save()
        return phone

    def get(self, token: str | None) -> Phone | None:
        return self._by_token.get(token or "")

    def leave(self, token: str) -> None:
        self._by_token.pop(token, None)
        self._save()

    def clear(self) -> None:
        self._by_token.clear()
        self._save()

    def _save(self) -> None:
        if self.path is None:
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:  # written whole, then renamed: a crash leaves the old file or the new one
            tmp.write_text(json.dumps([dataclasses.asdict(p) for p in self._by_token.values()]))
            os.replace(tmp, self.path)
        except OSError as exc:
            log.warning("phones not saved to %s: %s", self.path, exc)

    def list(self) -> list[Phone]:
        return list(self._by_token.values())
