"""Pure rules engines for Kemps, Kem's and Khmer (no I/O, no clock, no randomness)."""

from referee.rules.common import Applied, Illegal, Rejected, RejectCode
from referee.rules.engine import new_game

__all__ = ["Applied", "Illegal", "Rejected", "RejectCode", "new_game"]
