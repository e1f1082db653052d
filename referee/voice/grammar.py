"""Which phrases the call listener spots, how they are pronounced, and their thresholds.

The grammar is built from the active game (only that variant's phrases are loaded:
"counter" fires inside "contre kem's" otherwise) and the players' names (Cut grammar).
Settings live in `configs/voice.yaml`; an unknown key is an error, never ignored.

Keyword mode in pocketsphinx uses only each word's FIRST pronunciation, so a
pronunciation variant is its own dictionary word (`kems_b`) and its own phrase.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from collections.abc import Mapping
from typing import Any

import yaml

from referee.voice.denoise import DenoiseConfig
from referee.voice.embed_spot import EmbedSpotConfig
from referee.voice.phrase_refs import EmbedVerifyConfig
from referee.voice.verify import VERIFY_DECODER_KEYS, VerifyConfig

CALLS: tuple[str, ...] = ("kemps", "cut", "kems", "double_kems", "contre_kems")
DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "voice.yaml"
RULES_DIR = Path(__file__).resolve().parents[2] / "configs" / "rules"


class VoiceConfigError(ValueError):
    """A voice setting or grammar input that cannot be used (one clear line)."""


@dataclass(frozen=True)
class Template:
    """A phrase pattern of one game: `say` may hold `{name}` (a player's name)."""

    key: str  # the key in configs/voice.yaml `thresholds`
    words: tuple[str, ...]  # dictionary words; "{name}" is replaced per player
    call: str


# The spoken forms per game. The dictionary words are defined in WORDS below.
TEMPLATES: dict[str, tuple[Template, ...]] = {
    "kemps": (
        Template("kemps", ("kemps",), "kemps"),
        Template("stop kemps", ("stop", "kemps"), "cut"),
        Template("counter", ("counter",), "cut"),
        Template("cut {name}", ("cut", "{name}"), "cut"),
    ),
    "kems": (
        Template("kem's", ("kems",), "kems"),
        Template("double kem's", ("double", "kems"), "double_kems"),
        Template("contre kem's", ("contre", "kems"), "contre_kems"),
    ),
}

# Call words (CMU phone set of the en-us model). French words are approximated with
# English phones; "_b" entries are second pronunciations (see module docstring).
WORDS: dict[str, tuple[str, ...]] = {
    "kemps": ("K EH M P S", "K EH M S"),
    "stop": ("S T AA P",),
    "counter": ("K AW N T ER",),
    "cut": ("K AH T",),
    "kems": ("K EH M S", "K EH M Z"),
    "double": ("D UW B L AH", "D AH B AH L"),
    "contre": ("K AO N T R AH", "K AA N T ER"),
}


# Decoys: common English words one phone away from a call word (found in the model's
# dictionary with a one-phone edit search) and a few everyday phrases that start like a
# two-word call. They are spotted alongside the calls; a call whose audio a decoy fits
# better (per phone, by the phrase's `verify_margin`) is dropped: "camps" is not "kemps",
# "count" is not "counter", "stop it" is not "stop kemps". Pronunciations come from the
# model's dictionary; a word missing there, a call word or a player's name is skipped.
DECOYS: dict[str, tuple[str, ...]] = {
    "kemps": ("camps", "temps", "kemp", "count", "counts", "county", "canter",
              "cat", "but", "cup", "caught", "come", "step", "top", "stock", "swap",
              "stop it", "stop that", "cut it", "cut the", "cut out",
              # everyday "cut"-like words (added 2026-11-30 from the tuning chatter only)
              "cuts", "cutting", "cut up", "gut", "shut", "cute", "keeps", "stops"),
    "kems": ("camps", "temps", "kemp", "gems", "comes", "combs", "cams", "calms",
             "bubble", "doubles", "contra", "contract", "contrast", "double the"),
}
DECOY_CALL = "decoy"


@dataclass(frozen=True)
class Phrase:
    """One line of the keyword list: dictionary words, threshold, what it means."""

    text: str  # words joined by spaces, as pocketsphinx reports it
    template: str
    call: str
    target: str | None
    threshold: float
    n_words: int  # spoken words (for "longest phrase wins" and the provisional policy)
    n_phones: int
    direct_threshold: float | None = None  # below it a detection is provisional (needs a tap)
    verify_margin: float | None = None  # nats/phone over the best overlapping decoy; None: no check
    direct_pause_db: float | None = None  # direct only when the level drops this much right after it
    detect_pause_db: float | None = None  # reported only when the level drops this much right after it
    word_phones: tuple[int, ...] = ()  # phones of each dictionary word (empty: not known)
    direct_lead_pause_db: float | None = None  # direct only when the level before it is this much lower
    pause_late_frames: int = 0  # the pause after it may start this many 10 ms frames after its end

    @property
    def is_decoy(self) -> bool:
        return self.call == DECOY_CALL


@dataclass(frozen=True)
class VoiceConfig:
    """configs/voice.yaml, validated."""

    thresholds: dict[str, float]
    one_word_provisional: bool = True
    hold_ms: int = 120
    chunk_ms: int = 20
    restart_after_s: float = 10.0
    variants: bool = True
    pronunciations: dict[str, str] = field(default_factory=dict)
    decoder: dict[str, float] = field(default_factory=dict)
    direct: dict[str, float] = field(default_factory=dict)
    decoys: bool = True
    decoy_threshold: float = 1e-30
    verify_margin: dict[str, float] = field(default_factory=dict)
    direct_pause_db: dict[str, float] = field(default_factory=dict)
    detect_pause_db: dict[str, float] = field(default_factory=dict)
    direct_lead_pause_db: dict[str, float] = field(default_factory=dict)
    # how late (ms) the pause after a phrase may start: the spotter can end a phrase before the
    # speaker does (a drawn-out last syllable), and the pause checks look from its end
    pause_late_ms: dict[str, float] = field(default_factory=dict)
    # pause check relative to the background (None: the fixed dB above, as before 2026-11-30 pm):
    # a phrase needs min(its pause dB, pause_fraction × (its level − background)), never
    # below pause_min_db; background = `floor_percentile` of the frame levels in the
    # `floor_window_s` before the phrase
    pause_fraction: float | None = None
    pause_min_db: float = 3.0
    floor_window_s: float = 3.0
    floor_percentile: float = 10.0
    pause_floor_direct: bool = False  # the relative rule for `direct_pause_db` too (else fixed dB)
    # a longer phrase whose extra words ("double" of "double kem's") are this many dB below
    # the shorter phrase inside it is not credible (they were background); None: no check
    extra_words_db: float | None = None
    # optional noise reduction in front of the decoder (referee/voice/denoise.py)
    denoise: DenoiseConfig = field(default_factory=DenoiseConfig)
    # optional second pass over two-word candidates with the general English LM (referee/voice/verify.py)
    lm_verify: VerifyConfig = field(default_factory=VerifyConfig)
    # optional word-embedding check of two-word candidates (referee/voice/phrase_refs.py)
    embed_verify: EmbedVerifyConfig = field(default_factory=EmbedVerifyConfig)
    # optional word-embedding spotting where speech ends in a pause (referee/voice/embed_spot.py)
    embed_spot: EmbedSpotConfig = field(default_factory=EmbedSpotConfig)


_PAUSE_FLOOR_KEYS = {"fraction": "pause_fraction", "min_db": "pause_min_db", "window_s": "floor_window_s",
                     "percentile": "floor_percentile", "direct": "pause_floor_direct"}

_TOP_KEYS = {
    "embed_spot",
    "embed_verify",
    "lm_verify",
    "denoise",
    "pause_floor",
    "extra_words_db",
    "direct_pause_db",
    "detect_pause_db",
    "direct_lead_pause_db",
    "pause_late_ms",
    "decoys",
    "decoy_threshold",
    "verify_margin",
    "thresholds",
    "one_word_provisional",
    "hold_ms",
    "chunk_ms",
    "restart_after_s",
    "variants",
    "pronunciations",
    "decoder",
    "direct",
}
MAX_PAUSE_LATE_MS = 500.0  # a later pause is another utterance's, not this phrase's
# pocketsphinx options that may be set under `decoder:` (the rest are fixed by the listener)
DECODER_KEYS = {"beam", "kws_plp", "kws_delay", "topn"}


def _chunk_ms(value: Any, p: Path) -> int:
    ms = int(value)
    if not 10 <= ms <= 1000 or ms % 10:  # whole 10 ms frames (0 hung the listener; -20 heard nothing)
        raise VoiceConfigError(f"{p}: chunk_ms is a piece size in ms, a multiple of 10 from 10 to 1000, not {value!r}")
    return ms


def load_config(path: Path | str | None = None, overrides: dict[str, Any] | None = None) -> VoiceConfig:
    """Read and validate the voice settings; `overrides` replaces top-level keys."""
    p = Path(path) if path is not None else DEFAULT_CONFIG
    try:
        raw = yaml.safe_load(p.read_text()) or {}
    except OSError as exc:
        raise VoiceConfigError(f"cannot read voice config {p}: {exc.strerror}") from exc
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise VoiceConfigError(f"{p}: not a YAML file ({' '.join(str(exc).split())})") from None
    if not isinstance(raw, dict):
        raise VoiceConfigError(f"{p}: expected a mapping at the top level")
    raw.update(overrides or {})
    try:
        return _config_from(raw, p)
    except VoiceConfigError:
        raise
    except (AttributeError, TypeError, ValueError) as exc:  # a block that is no mapping, a word for a number
        raise VoiceConfigError(f"{p}: a setting has the wrong type ({exc})") from None


def _config_from(raw: dict[str, Any], p: Path) -> VoiceConfig:
    """`load_config`'s checks on the parsed YAML (`raw`, overrides applied)."""
    unknown = sorted(set(raw) - _TOP_KEYS)
    if unknown:
        raise VoiceConfigError(f"{p}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(_TOP_KEYS))})")
    known_t = {t.key for ts in TEMPLATES.values() for t in ts}
    thresholds = {str(k): float(v) for k, v in (raw.get("thresholds") or {}).items()}
    bad = sorted(set(thresholds) - known_t)
    if bad:
        raise VoiceConfigError(f"{p}: unknown phrase(s) in thresholds: {', '.join(bad)} (known: {', '.join(sorted(known_t))})")
    missing = sorted(known_t - set(thresholds))
    if missing:
        raise VoiceConfigError(f"{p}: no threshold for: {', '.join(missing)}")
    for k, v in thresholds.items():
        if not 0.0 < v < 1e100:
            raise VoiceConfigError(f"{p}: threshold for {k!r} must be a positive ratio (e.g. 1e-20), got {v}")
    direct = {str(k): float(v) for k, v in (raw.get("direct") or {}).items()}
    bad = sorted(set(direct) - known_t)
    if bad:
        raise VoiceConfigError(f"{p}: unknown phrase(s) in direct: {', '.join(bad)} (known: {', '.join(sorted(known_t))})")
    if any(not 0.0 < v < 1e100 for v in direct.values()):
        raise VoiceConfigError(f"{p}: direct thresholds must be positive ratios")
    margins = {str(k): float(v) for k, v in (raw.get("verify_margin") or {}).items()}
    bad = sorted(set(margins) - known_t)
    if bad:
        raise VoiceConfigError(f"{p}: unknown phrase(s) in verify_margin: {', '.join(bad)} (known: {', '.join(sorted(known_t))})")
    pauses: dict[str, dict[str, float]] = {}
    for block in ("direct_pause_db", "detect_pause_db", "direct_lead_pause_db"):
        pauses[block] = {str(k): float(v) for k, v in (raw.get(block) or {}).items()}
        bad = sorted(set(pauses[block]) - known_t)
        if bad:
            raise VoiceConfigError(f"{p}: unknown phrase(s) in {block}: {', '.join(bad)} (known: {', '.join(sorted(known_t))})")
        if any(not 0.0 <= v <= 60.0 for v in pauses[block].values()):
            raise VoiceConfigError(f"{p}: {block} values are level drops in dB between 0 and 60")
    late = {str(k): float(v) for k, v in (raw.get("pause_late_ms") or {}).items()}
    bad = sorted(set(late) - known_t)
    if bad:
        raise VoiceConfigError(f"{p}: unknown phrase(s) in pause_late_ms: {', '.join(bad)} (known: {', '.join(sorted(known_t))})")
    if any(not 0.0 <= v <= MAX_PAUSE_LATE_MS for v in late.values()):
        raise VoiceConfigError(f"{p}: pause_late_ms values are delays in ms between 0 and {MAX_PAUSE_LATE_MS:g}")
    floor_raw = raw.get("pause_floor") or {}
    if not isinstance(floor_raw, dict):
        raise VoiceConfigError(f"{p}: pause_floor must be a mapping (fraction, min_db, window_s, percentile)")
    bad = sorted(set(floor_raw) - set(_PAUSE_FLOOR_KEYS))
    if bad:
        raise VoiceConfigError(f"{p}: unknown pause_floor key(s) {', '.join(bad)} (known: {', '.join(sorted(_PAUSE_FLOOR_KEYS))})")
    floor = {_PAUSE_FLOOR_KEYS[k]: (bool(v) if k == "direct" else None if v is None else float(v))
             for k, v in floor_raw.items()}
    if floor.get("pause_fraction") is not None and not 0.0 < floor["pause_fraction"] <= 1.0:
        raise VoiceConfigError(f"{p}: pause_floor.fraction must be in (0, 1] or null (fixed dB only)")
    for k, lo, hi in (("pause_min_db", 0.0, 60.0), ("floor_window_s", 0.3, 10.0), ("floor_percentile", 0.0, 100.0)):
        if k in floor and (floor[k] is None or not lo <= floor[k] <= hi):
            raise VoiceConfigError(f"{p}: pause_floor value {floor.get(k)} out of range {lo}..{hi}")
    extra_db = raw.get("extra_words_db")
    if extra_db is not None and not 0.0 <= float(extra_db) <= 60.0:
        raise VoiceConfigError(f"{p}: extra_words_db is a level difference in dB between 0 and 60, or null")
    denoise = _denoise_config(p, raw.get("denoise"))
    lm_verify = _verify_config(p, raw.get("lm_verify"), known_t)
    embed_verify = _embed_config(p, raw.get("embed_verify"))
    embed_spot = _embed_spot_config(p, raw.get("embed_spot"))
    if embed_verify.enabled and lm_verify.enabled:
        raise VoiceConfigError(f"{p}: embed_verify and lm_verify cannot both be enabled (each sets its own spotting thresholds)")
    decoy_thr = float(raw.get("decoy_threshold", 1e-30))
    if not 0.0 < decoy_thr < 1e100:
        raise VoiceConfigError(f"{p}: decoy_threshold must be a positive ratio, got {decoy_thr}")
    prons = {str(k).lower(): str(v).upper() for k, v in (raw.get("pronunciations") or {}).items()}
    decoder = dict(raw.get("decoder") or {})
    bad = sorted(set(decoder) - DECODER_KEYS)
    if bad:
        raise VoiceConfigError(f"{p}: unknown decoder option(s) {', '.join(bad)} (known: {', '.join(sorted(DECODER_KEYS))})")
    decoder = {k: (int(v) if k in ("kws_delay", "topn") else float(v)) for k, v in decoder.items()}
    return VoiceConfig(
        thresholds=thresholds,
        one_word_provisional=bool(raw.get("one_word_provisional", True)),
        hold_ms=int(raw.get("hold_ms", 120)),
        chunk_ms=_chunk_ms(raw.get("chunk_ms", 20), p),
        restart_after_s=float(raw.get("restart_after_s", 10.0)),
        variants=bool(raw.get("variants", True)),
        pronunciations=prons,
        decoder=decoder,
        direct=direct,
        decoys=bool(raw.get("decoys", True)),
        decoy_threshold=decoy_thr,
        verify_margin=margins,
        direct_pause_db=pauses["direct_pause_db"],
        detect_pause_db=pauses["detect_pause_db"],
        direct_lead_pause_db=pauses["direct_lead_pause_db"],
        pause_late_ms=late,
        extra_words_db=None if extra_db is None else float(extra_db),
        denoise=denoise,
        lm_verify=lm_verify,
        embed_verify=embed_verify,
        embed_spot=embed_spot,
        **floor,
    )


_DENOISE_RANGES = {"floor_db": (-40.0, 0.0), "window_s": (0.3, 5.0), "smooth": (0.0, 0.99),
                   "bias": (0.5, 5.0), "over": (0.5, 4.0), "dd": (0.0, 0.999)}


def _denoise_config(p: Path, raw: Any) -> DenoiseConfig:
    """`denoise:` block: `enabled` and the numeric settings of DenoiseConfig, in range."""
    if raw is None:
        return DenoiseConfig()
    return DenoiseConfig(**_switch_block(p, raw, "denoise", set(), _DENOISE_RANGES, "enabled, floor_db, window_s, ..."))


def _switch_block(p: Path, raw: Any, name: str, other_keys: set[str], ranges: dict[str, tuple[float, float]],
                  hint: str) -> dict[str, Any]:
    """A config block that switches a stage on (`enabled`): a mapping of known keys only;
    returns `enabled` and its numeric settings, each checked against its range."""
    if not isinstance(raw, dict):
        raise VoiceConfigError(f"{p}: {name} must be a mapping ({hint})")
    known = {"enabled", *other_keys, *ranges}
    bad = sorted(set(raw) - known)
    if bad:
        raise VoiceConfigError(f"{p}: unknown {name} key(s) {', '.join(bad)} (known: {', '.join(sorted(known))})")
    vals: dict[str, Any] = {"enabled": bool(raw.get("enabled", False))}
    for k, (lo, hi) in ranges.items():
        if k in raw:
            v = float(raw[k])
            if not lo <= v <= hi:
                raise VoiceConfigError(f"{p}: {name}.{k} = {v} out of range {lo}..{hi}")
            vals[k] = v
    return vals


_VERIFY_RANGES = {"before_s": (0.0, 1.0), "after_s": (0.0, 0.5), "lw": (0.5, 20.0), "word_weight": (1e-3, 1e6)}


def _verify_config(p: Path, raw: Any, known_t: set[str]) -> VerifyConfig:
    """`lm_verify:` block: enabled, the numbers of VerifyConfig in range, `thresholds` of
    two-word phrases, `on_reject` and pocketsphinx `decoder` options."""
    if raw is None:
        return VerifyConfig()
    others = {"thresholds", "on_reject", "decoder", "boost", "vocab"}
    vals = _switch_block(p, raw, "lm_verify", others, _VERIFY_RANGES, "enabled, thresholds, ...")
    th = {str(k): float(v) for k, v in (raw.get("thresholds") or {}).items()}
    two_word = {k for k in known_t if len(k.split()) > 1}
    bad = sorted(set(th) - two_word)
    if bad:
        raise VoiceConfigError(f"{p}: lm_verify.thresholds: only two-word phrases ({', '.join(sorted(two_word))}), got {', '.join(bad)}")
    if any(not 0.0 < v < 1e100 for v in th.values()):
        raise VoiceConfigError(f"{p}: lm_verify.thresholds must be positive ratios")
    vals["thresholds"] = th
    on_reject = str(raw.get("on_reject", "drop"))
    if on_reject not in ("drop", "prompt", "keep"):
        raise VoiceConfigError(f"{p}: lm_verify.on_reject is drop, prompt or keep, got {on_reject!r}")
    vals["on_reject"] = on_reject
    if "boost" in raw:
        vals["boost"] = bool(raw["boost"])
    if "vocab" in raw:
        vocab = raw["vocab"]
        if vocab is not None and not 100 <= int(vocab) <= 200000:
            raise VoiceConfigError(f"{p}: lm_verify.vocab is a number of words (100..200000) or null (all)")
        vals["vocab"] = None if vocab is None else int(vocab)
    dec = dict(raw.get("decoder") or {})
    bad = sorted(set(dec) - VERIFY_DECODER_KEYS)
    if bad:
        raise VoiceConfigError(f"{p}: unknown lm_verify.decoder option(s) {', '.join(bad)} (known: {', '.join(sorted(VERIFY_DECODER_KEYS))})")
    opts = {k: (bool(v) if k in ("fwdflat", "bestpath") else int(v) if k in ("maxhmmpf", "topn") else float(v))
            for k, v in dec.items()}
    vals["decoder"] = tuple(sorted({**dict(VerifyConfig().decoder), **opts}.items()))
    return VerifyConfig(**vals)


_EMBED_RANGES = {"after_s": (0.0, 0.5), "weight": (0.0, 2000.0), "center": (-1.0, 1.0), "spot_below": (0.0, 200.0),
                 "hold_below_ms": (0.0, 1000.0)}


def _embed_config(p: Path, raw: Any) -> EmbedVerifyConfig:
    """`embed_verify:` block: enabled, the numbers of EmbedVerifyConfig in range, `top_k`,
    the reference `voices` (flite voice names) and `styles` ([stretch, pitch cents] pairs)."""
    if raw is None:
        return EmbedVerifyConfig()
    vals = _switch_block(p, raw, "embed_verify", {"voices", "styles", "top_k"}, _EMBED_RANGES, "enabled, weight, center, ...")
    if "voices" in raw:
        voices = raw["voices"]
        if not isinstance(voices, list) or not voices or not all(isinstance(v, str) and v.isalnum() for v in voices):
            raise VoiceConfigError(f"{p}: embed_verify.voices is a list of flite voice names, e.g. [awb, slt]")
        vals["voices"] = tuple(voices)
    if "styles" in raw:
        styles = raw["styles"]
        try:
            vals["styles"] = tuple((float(a), int(b)) for a, b in styles)
        except (TypeError, ValueError):
            raise VoiceConfigError(f"{p}: embed_verify.styles is a list of [stretch, pitch_cents] pairs") from None
        if not vals["styles"] or any(not 0.5 <= a <= 2.0 or abs(b) > 600 for a, b in vals["styles"]):
            raise VoiceConfigError(f"{p}: embed_verify.styles: stretch 0.5..2, pitch within 600 cents, at least one")
    if "top_k" in raw:
        vals["top_k"] = int(raw["top_k"])
        if vals["top_k"] < 1:
            raise VoiceConfigError(f"{p}: embed_verify.top_k is at least 1")
    return EmbedVerifyConfig(**vals)


_SPOT_RANGES = {"similarity": (-1.0, 1.0), "margin": (0.0, 2.0), "after_s": (0.0, 0.5), "pause_s": (0.05, 1.0),
                "drop_db": (0.0, 40.0), "min_db": (0.0, 40.0), "fraction": (0.0, 1.0), "max_speech_s": (0.2, 10.0)}
_SPOT_OPTIONAL = {"second_after_s": (0.0, 0.5), "cohort_margin": (-1.0, 1.0), "one_word_similarity": (-1.0, 1.0),
                  "one_word_cohort": (-1.0, 1.0)}


def _embed_spot_config(p: Path, raw: Any) -> EmbedSpotConfig:
    """`embed_spot:` block: enabled and the numbers of EmbedSpotConfig, in range."""
    if raw is None:
        return EmbedSpotConfig()
    vals = _switch_block(p, raw, "embed_spot", set(_SPOT_OPTIONAL), _SPOT_RANGES, "enabled, similarity, margin, ...")
    for k, (lo, hi) in _SPOT_OPTIONAL.items():  # a number in range, or null: off
        if k in raw and raw[k] is None:
            vals[k] = None
        elif k in raw:
            v = float(raw[k])
            if not lo <= v <= hi:
                raise VoiceConfigError(f"{p}: embed_spot.{k} = {v} out of range {lo}..{hi} (or null: off)")
            vals[k] = v
    return EmbedSpotConfig(**vals)


def resolve_game(rules: str, overrides: Mapping[str, Any] | None = None) -> tuple[str, bool]:
    """Rules name → (game, Cut allowed). Accepts `kemps`, `kems`, `game:variant[,variant]`
    or a bare variant of configs/rules (`no_cut`); `overrides` are a game header's rules."""
    name = rules.strip().lower()
    game, _, rest = name.partition(":")
    variants = [v for v in rest.split(",") if v]
    if game not in ("kemps", "kems", "khmer"):
        owner = next((g for g in ("kemps", "kems") if game in _variants_of(g)), None)
        if owner is None:
            raise VoiceConfigError(f"unknown rules {rules!r} (use kemps, kems, kemps:VARIANT or a variant name)")
        game, variants = owner, [game, *variants]
    if game == "khmer":
        raise VoiceConfigError("Khmer has no spoken calls; the listener supports kemps and kems rules")
    ov = dict(overrides or {})
    if variants:
        prev = ov.get("variant") or ov.get("variants") or []
        ov.pop("variants", None)
        ov["variant"] = [*([prev] if isinstance(prev, str) else prev), *variants]
    try:
        from referee.rules.config import load_rules
    except ImportError:  # rules package absent: the full grammar
        return game, True
    try:
        loaded = load_rules(game, ov)
    except (ValueError, KeyError) as exc:
        raise VoiceConfigError(str(exc)) from exc
    return game, bool(loaded.get("cut_allowed", True))


def _variants_of(game: str) -> set[str]:
    path = RULES_DIR / f"{game}.yaml"
    if not path.is_file():
        return set()
    data = yaml.safe_load(path.read_text()) or {}
    return set((data.get("variants") or {}).keys())


@lru_cache(maxsize=1)
def _cmudict() -> dict[str, str]:
    """First pronunciation of every word in the model's dictionary (lower case)."""
    from pocketsphinx import get_model_path  # heavy import only when a grammar is built

    out: dict[str, str] = {}
    with open(Path(get_model_path()) / "en-us" / "cmudict-en-us.dict", encoding="utf-8") as f:
        for line in f:
            word, _, phones = line.strip().partition(" ")
            if "(" not in word and word not in out:
                out[word] = phones.strip()
    return out


_G2P: tuple[tuple[str, str], ...] = (
    ("tch", "CH"), ("sch", "SH"), ("ph", "F"), ("sh", "SH"), ("ch", "CH"), ("th", "TH"),
    ("ck", "K"), ("ng", "NG"), ("qu", "K W"), ("ee", "IY"), ("ea", "IY"), ("oo", "UW"),
    ("ou", "AW"), ("ai", "EY"), ("ay", "EY"), ("oa", "OW"), ("ie", "IY"), ("a", "AE"),
    ("b", "B"), ("c", "K"), ("d", "D"), ("e", "EH"), ("f", "F"), ("g", "G"), ("h", "HH"),
    ("i", "IH"), ("j", "JH"), ("k", "K"), ("l", "L"), ("m", "M"), ("n", "N"), ("o", "AA"),
    ("p", "P"), ("r", "R"), ("s", "S"), ("t", "T"), ("u", "AH"), ("v", "V"), ("w", "W"),
    ("x", "K S"), ("y", "IY"), ("z", "Z"),
)


def _letters_to_phones(word: str) -> str:
    """Crude spelling → phones for names missing from the dictionary (a warning says so)."""
    phones: list[str] = []
    i = 0
    while i < len(word):
        for graph, ph in _G2P:
            if word.startswith(graph, i):
                if not (phones and phones[-1] == ph):  # doubled letters are one sound
                    phones.append(ph)
                i += len(graph)
                break
        else:
            i += 1
    return " ".join(phones)


def name_words(name: str) -> list[str]:
    """Dictionary tokens for a player's name ("Mary-Ann" → ["mary", "ann"])."""
    # Accents off first ("José" → "jose", "Müller" → "muller"): the dictionary is plain
    # English letters, and [^a-z'] alone turned "josé" into "jos" without a word.
    plain = "".join(c for c in unicodedata.normalize("NFKD", name.lower()) if not unicodedata.combining(c))
    words = [w for w in re.split(r"[^a-z']+", plain) if w]
    if not words:
        raise VoiceConfigError(f"player name {name!r} has no letters to listen for")
    return words


@dataclass(frozen=True)
class Grammar:
    game: str
    phrases: tuple[Phrase, ...]
    dictionary: dict[str, str]  # dictionary word → phones
    warnings: tuple[str, ...] = ()

    def by_text(self) -> dict[str, Phrase]:
        return {p.text: p for p in self.phrases}

    def kws_lines(self) -> list[str]:
        return [f"{p.text} /{p.threshold:.3g}/" for p in self.phrases]

    def dict_lines(self) -> list[str]:
        return [f"{w} {ph}" for w, ph in sorted(self.dictionary.items())]


def build_grammar(
    rules_game: str,
    names: list[str] | tuple[str, ...],
    config: VoiceConfig,
    rules_overrides: Mapping[str, Any] | None = None,
) -> Grammar:
    """Phrases and dictionary for the active rules and players."""
    game, cut_allowed = resolve_game(rules_game, rules_overrides)
    if len(set(names)) != len(names):  # before the phrases: they would only say "sound the same"
        twice = sorted({n for n in names if list(names).count(n) > 1})
        raise VoiceConfigError(f"two players have the same name: {', '.join(twice)}")
    cmu = _cmudict()
    dictionary: dict[str, str] = {}
    warnings: list[str] = []
    spoken_forms: dict[str, list[str]] = {}  # word → dictionary words (variants)

    def add_word(word: str, pronunciations: tuple[str, ...]) -> None:
        use = pronunciations if config.variants else pronunciations[:1]
        forms = []
        for i, ph in enumerate(use):
            dw = word if i == 0 else f"{word}_{chr(ord('a') + i)}"
            dictionary[dw] = ph
            forms.append(dw)
        spoken_forms[word] = forms

    for word, prons in WORDS.items():
        add_word(word, prons)
    name_tokens: dict[str, list[str]] = {}
    for name in names:
        tokens = name_words(name)
        for tok in tokens:
            if tok in spoken_forms:
                continue
            if tok in config.pronunciations:
                add_word(tok, (config.pronunciations[tok],))
            elif tok in cmu:
                add_word(tok, (cmu[tok],))
            else:
                add_word(tok, (_letters_to_phones(tok),))
                warnings.append(
                    f"name word {tok!r} is not in the dictionary; guessed "
                    f"{dictionary[tok]!r} (set configs/voice.yaml pronunciations: {{{tok}: ...}})"
                )
        name_tokens[name] = tokens
        warnings += _sounds_like_table_talk(name, [dictionary[t] for t in tokens], cmu)
    if len({tuple(t) for t in name_tokens.values()}) < len(name_tokens):
        raise VoiceConfigError(f"two players have the same spoken name: {', '.join(names)}")

    phrases: list[Phrase] = []
    for tpl in TEMPLATES[game]:
        if tpl.call == "cut" and not cut_allowed:
            continue
        targets: list[str | None] = list(names) if "{name}" in tpl.words else [None]
        if "{name}" in tpl.words and not names:
            continue
        for target in targets:
            words: list[str] = []
            for w in tpl.words:
                words.extend(name_tokens[target] if (w == "{name}" and target is not None) else [w])
            for variant in _expand(words, spoken_forms):
                n_phones = sum(len(dictionary[w].split()) for w in variant)
                direct = config.direct.get(tpl.key)
                phrases.append(
                    Phrase(" ".join(variant), tpl.key, tpl.call, target, config.thresholds[tpl.key],
                           len(words), n_phones, direct, config.verify_margin.get(tpl.key),
                           config.direct_pause_db.get(tpl.key), config.detect_pause_db.get(tpl.key),
                           tuple(len(dictionary[w].split()) for w in variant),
                           config.direct_lead_pause_db.get(tpl.key),
                           round(config.pause_late_ms.get(tpl.key, 0.0) / 10.0))
                )
    if config.decoys:
        phrases.extend(_decoy_phrases(game, dictionary, cmu, config.decoy_threshold))
    texts = [p.text for p in phrases]
    if len(set(texts)) != len(texts):
        raise VoiceConfigError("two phrases sound the same (a player named like a call word?)")
    return Grammar(game, tuple(phrases), dictionary, tuple(warnings))


# Everyday words of table talk. A player's name one sound from one of them gets "cut <name>"
# heard in ordinary talk: measured with a twelve-name grammar (2026-12-07, docs/voice-measurements.md
# "A twelve-player grammar"), "carl" in "cut the cards" made most of the new false Cut prompts.
TABLE_WORDS = ("card", "cards", "deck", "decks", "deal", "hand", "hands", "pair", "pairs", "ace", "aces",
               "king", "queen", "jack", "four", "fours", "swap", "table", "turn", "trick", "pile", "shuffle")


def _sounds_like_table_talk(name: str, phones: list[str], cmu: dict[str, str]) -> list[str]:
    """A warning for each word of `name` (its phones) within one sound of a table word."""
    out = []
    for ph in phones:
        near = [w for w in TABLE_WORDS if w in cmu and _phone_distance(ph.split(), cmu[w].split()) <= 1]
        if near:
            out.append(f"player name {name!r} is one sound from {' / '.join(repr(w) for w in near)}: table talk "
                       f"may be heard as 'cut {name}' and prompt a Cut; a nickname avoids it")
    return out


def _phone_distance(a: list[str], b: list[str]) -> int:
    """Edit distance between two phone strings (substitutions, insertions, deletions)."""
    row = list(range(len(b) + 1))
    for i, pa in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, pb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (pa != pb))
    return row[-1]


def _decoy_phrases(game: str, dictionary: dict[str, str], cmu: dict[str, str], threshold: float) -> list[Phrase]:
    """Decoy phrases of the game; a decoy word that is a call word or a player's name is
    skipped (the call wins), as is a word missing from the dictionary."""
    out: list[Phrase] = []
    taken = set(dictionary)
    for text in DECOYS[game]:
        words = text.split()
        if any(w not in cmu for w in words) or (len(words) == 1 and words[0] in taken):
            continue
        if any(w in taken and dictionary[w] != cmu[w] for w in words):
            continue  # same spelling, other pronunciation: leave the call's word alone
        for w in words:
            dictionary.setdefault(w, cmu[w])
        n_phones = sum(len(cmu[w].split()) for w in words)
        out.append(Phrase(text, text, DECOY_CALL, None, threshold, len(words), n_phones,
                          word_phones=tuple(len(cmu[w].split()) for w in words)))
    return out


def _expand(words: list[str], forms: dict[str, list[str]]) -> list[list[str]]:
    """Every combination of pronunciation variants of the call words (names have one)."""
    out: list[list[str]] = [[]]
    for w in words:
        out = [prefix + [f] for prefix in out for f in forms.get(w, [w])]
    return out
