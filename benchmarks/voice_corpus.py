"""Generated speech corpus for benchmarks/bench_voice.py (flite voices + sox).

Call streams: each call voice speaks every phrase of a game at several speeds and pitches,
each call after a chatter sentence from another voice. Chatter streams: table talk full of
confusable words ("camps", "temps", "the counter", "Kemp", "counted", "cut the deck") and
no call at all, to count false alarms. Noise: sox pink noise and a four-voice babble track,
mixed at a fixed active-speech SNR.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from referee.voice import testaudio as ta

NAMES = ["north", "east", "south", "west"]
# (speed stretch, pitch cents): flite duration_stretch > 1 is slower
STYLES: tuple[tuple[float, int], ...] = ((1.0, 0), (0.85, -150), (1.2, 150), (0.9, 100), (1.1, -100))


@dataclass(frozen=True)
class CallSpec:
    key: str  # threshold key in configs/voice.yaml
    call: str
    target: str | None
    forms: tuple[tuple[str, bool], ...]  # (flite text or phone string, is phones)


def call_specs(game: str) -> list[CallSpec]:
    if game == "kemps":
        specs = [
            CallSpec("kemps", "kemps", None, (("kemps", False),)),
            CallSpec("stop kemps", "cut", None, (("stop kemps", False),)),
            CallSpec("counter", "cut", None, (("counter", False),)),
        ]
        specs += [CallSpec("cut {name}", "cut", n, ((f"cut {n}", False),)) for n in NAMES]
        return specs
    return [
        CallSpec("kem's", "kems", None, (("kems", False), ("k eh m s", True))),
        CallSpec("double kem's", "double_kems", None, (("double kems", False), ("d uw b l ax k eh m s", True))),
        CallSpec("contre kem's", "contre_kems", None, (("contre kems", False), ("k ao n t r ax k eh m s", True))),
    ]


CHATTER: tuple[str, ...] = (
    "We went to summer camps every year when I was a kid.",
    "The camps by the lake were full last weekend.",
    "Put the cards on the counter please.",
    "I left my glass on the counter in the kitchen.",
    "In French the word for time is temps.",
    "The temps at the office are paid by the hour.",
    "Kemp is the name of my old neighbour.",
    "Did you know Mister Kemp plays cards too?",
    "I counted the cards twice and got fifty two.",
    "She counted to ten before she looked.",
    "Cut the deck and deal four cards each.",
    "Can you cut the cake after the game?",
    "Stop it, you are making me laugh.",
    "Who is keeping the score tonight?",
    "That was a double espresso, not a latte.",
    "I think contra dancing is fun.",
    "It is your turn to shuffle the cards.",
    "Pass me the chips and the cups, please.",
    "My camp stove broke on the first night.",
    "The kettle is on the counter next to the cups.",
    "He kept the cards close to his chest.",
    "Nobody wants the king of hearts.",
    "Give me a second, I am thinking.",
    "That is the third time you took a seven.",
    "The contract ends next month.",
    "Temperature will drop to five tonight.",
    "We camped in the desert under the stars.",
    "I can not count that fast.",
    "The counterfeit money looked real.",
    "Check the cupboard for more snacks.",
    "Come on, hurry up and swap a card.",
    "Keep your signals secret this time.",
    "The cat jumped onto the kitchen counter.",
    "Let me count the points for this round.",
    "Kemps is a game from summer camp.",
    "Double check the score before we start.",
)

# Held-out chatter: sentences written after the decoy list and thresholds were chosen,
# spoken only by the test voices, so false alarms are also measured on text that tuning
# (and whoever picked the decoys) never saw.
CHATTER_HELDOUT: tuple[str, ...] = (
    "The scouts packed up their camps before the storm.",
    "Temps from the agency start on Monday.",
    "Old Mister Kemp still counts his change twice.",
    "Leave the teapot on the counter by the sink.",
    "He stopped counting after the second round.",
    "Can you cut a slice of bread for me?",
    "Cut it out, you two, and play your cards.",
    "Stop talking and pick a card.",
    "We kept the scores on a napkin.",
    "The kitchen counter is covered in crumbs.",
    "She camped near the river with her cousins.",
    "A double bed costs more at that hotel.",
    "They signed a contract with the club.",
    "I will count to three, then show your hands.",
    "Cuts of meat are cheaper at the market.",
    "The cup is empty, can I get some tea?",
    "Counter clockwise is the way we deal.",
    "Cat food is in the cupboard under the stairs.",
    "He kept his temper during the last hand.",
    "East of the river there is a nice cafe.",
    "North and south teams swap seats after each game.",
    "Come sit down, the west side of the table is free.",
    "Double or nothing, said my uncle.",
    "Kim's cousin counted every card in the deck.",
)

# More tuning chatter (2026-11-30, tune voices only): everyday table talk around "cut"
# (cut/cup/cat/come/cuts/cutting), the players' names inside sentences, "stop ..." and
# "double ..." phrases. Written after reading the first held-out set above, so that set
# no longer measures text nobody had in mind; CHATTER_HELDOUT2 below does.
CHATTER_TUNE2: tuple[str, ...] = (
    "Cut it in half and share it.",
    "Who cut the deck last time?",
    "The cuts on his hand healed fast.",
    "Cutting the cards is bad luck, he says.",
    "Get me a cup of tea, please.",
    "The cat is sleeping on the east chair.",
    "Come on, it is your go.",
    "My seat faces north tonight.",
    "The wind comes from the west today.",
    "South of the border the food is better.",
    "East or west, home is best.",
    "They drove north for three hours.",
    "He sat to the west of the dealer.",
    "We cut through the forest on the way home.",
    "Could you cut the music down a bit?",
    "Stop at the corner shop on the way.",
    "Stop there, that is enough.",
    "Stop cheating, I saw that.",
    "The kids went to camp in the north woods.",
    "Temp jobs pay less than full time work.",
    "Kemp and his wife came to dinner.",
    "Count your cards before you pass.",
    "The counter offer was too low.",
    "Double trouble, two aces in a row.",
    "A double room with a view, please.",
    "Contrary to the rules, he showed his hand.",
    "The contrast on this screen is awful.",
    "Come and sit at the south end.",
    "Cut east of the station and you will find it.",
    "Gems like these are rare.",
    "He combs his hair before every game.",
    "Doubles are played on the back court.",
)

# Second held-out chatter (written 2026-11-30 before any tuning of that round, spoken by
# the test voices only; nobody looked at its individual false alarms while tuning).
CHATTER_HELDOUT2: tuple[str, ...] = (
    "Who wants to cut first this time?",
    "Could you pass the cups to the east end?",
    "I cut my finger on the edge of the box.",
    "Stop complaining, you won the last two rounds.",
    "The campsite was closed for the winter.",
    "My cousin Kemper works at the bank.",
    "Count the tricks before you shout.",
    "The south window lets the sun in.",
    "Cut and paste the scores into the sheet.",
    "The teller counted the coins at the counter.",
    "Go west after the second light.",
    "North of here the roads are icy.",
    "Kent and Sussex are south of London.",
    "Double the stakes if you dare.",
    "Contrary to what you said, I won.",
    "The kittens sleep in a cardboard box.",
    "A cutting from the rose bush grew roots.",
    "Stop by the shop and get some milk.",
    "Gems and jewels were in the chest.",
    "Come east with us next summer.",
    "He cut west through the park to save time.",
    "The temps went home early today.",
    "Can I have a cup of coffee?",
    "Cat, come here, stop scratching the couch.",
)

BABBLE: tuple[str, ...] = (
    "I was thinking about going to the beach tomorrow if the weather holds.",
    "The train was late again this morning, so I missed the meeting.",
    "Have you seen the new film that everybody is talking about?",
    "My sister just moved into a flat near the river.",
    "We should order some pizza before it gets too late.",
    "The garden needs watering every day in this heat.",
    "He told me the story three times and it got better each time.",
    "Can you believe how expensive the tickets were?",
)


@dataclass(frozen=True)
class Truth:
    key: str
    call: str
    target: str | None
    start: float
    end: float
    voice: str
    form: str


@dataclass(frozen=True)
class Stream:
    name: str
    game: str
    voice: str
    kind: str  # "calls" | "chatter"
    truths: tuple[Truth, ...]
    seconds: float


def _rng_for(*parts: object) -> random.Random:
    return random.Random(int(hashlib.sha1(repr(parts).encode()).hexdigest()[:12], 16))


def _say(text: str, voice: str, style: tuple[float, int], phones: bool = False) -> ta.Spoken:
    sp = ta.say(text, voice, stretch=style[0], pitch_cents=style[1], phones=phones)
    return ta.Spoken(ta.normalise(sp.pcm), sp.speech_start, sp.speech_end)


FOLLOW_UPS: tuple[str, ...] = ("Ha!", "I win!", "Got you!", "Yes!", "That's it!", "Too slow!")


def build_call_stream(game: str, voice: str, follow_up_gap: tuple[float, float] | None = None,
                      tag: str = "calls") -> tuple[np.ndarray, Stream]:
    """Every call of `game` in `voice`, each after a chatter sentence by another voice.
    `follow_up_gap` (min, max s): the caller then says a short follow-up (FOLLOW_UPS) that
    long after the call's last sound, flite's padding cut (benchmarks/voice_talk_on.py); its
    draws come from their own generator, so the stream differs from the plain one (same
    `tag`) only by the follow-ups. `tag` seeds the stream."""
    rng = _rng_for(tag, game, voice)
    tail_rng = _rng_for(f"{tag}-tail", game, voice)
    others = [v for v in ta.VOICES if v != voice]
    items = [(spec, form, style) for spec in call_specs(game) for form in spec.forms for style in STYLES]
    rng.shuffle(items)
    parts: list[np.ndarray] = [ta.silence(0.5)]
    pos = len(parts[0])
    truths: list[Truth] = []
    for spec, (text, phones), style in items:
        chat = _say(rng.choice(CHATTER), rng.choice(others), rng.choice(STYLES))
        gap1 = ta.silence(rng.uniform(0.35, 0.8))
        call = _say(text, voice, style, phones)
        said, tail = call.pcm, []
        if follow_up_gap is not None:
            said = call.pcm[: int(round(call.speech_end * ta.RATE))]
            more = _say(tail_rng.choice(FOLLOW_UPS), voice, style)
            tail = [ta.silence(tail_rng.uniform(*follow_up_gap)), more.pcm[int(round(more.speech_start * ta.RATE)) :]]
        gap2 = ta.silence(rng.uniform(0.7, 1.0))
        start = pos + len(chat.pcm) + len(gap1)
        truths.append(
            Truth(spec.key, spec.call, spec.target, (start / ta.RATE) + call.speech_start,
                  (start / ta.RATE) + call.speech_end, voice, text)
        )
        for p in (chat.pcm, gap1, said, *tail, gap2):
            parts.append(p)
            pos += len(p)
    pcm = np.concatenate(parts)
    return pcm, Stream(f"{tag}-{game}-{voice}", game, voice, "calls", tuple(truths), len(pcm) / ta.RATE)


# chatter stream kinds: the text each speaks (Stream.kind "chatter" streams are in the
# corpus index; the others are built on demand next to it, see load_corpus)
CHATTER_TEXTS: dict[str, tuple[str, ...]] = {
    "chatter": CHATTER,
    "chatter-heldout": CHATTER_HELDOUT,
    "chatter-tune2": CHATTER_TUNE2,
    "chatter-heldout2": CHATTER_HELDOUT2,
}


def build_chatter_stream(voice: str, heldout: bool = False, kind: str | None = None) -> tuple[np.ndarray, Stream]:
    kind = kind or ("chatter-heldout" if heldout else "chatter")
    rng = _rng_for(kind, voice)
    parts: list[np.ndarray] = [ta.silence(0.5)]
    for rep in range(2):  # every sentence twice, in two styles
        for i, sentence in enumerate(CHATTER_TEXTS[kind]):
            parts.append(_say(sentence, voice, STYLES[(i + 2 * rep) % len(STYLES)]).pcm)
            parts.append(ta.silence(rng.uniform(0.3, 0.9)))
    pcm = np.concatenate(parts)
    name = f"{kind}-{voice}"
    return pcm, Stream(name, "any", voice, "chatter", (), len(pcm) / ta.RATE)


def build_babble(seconds: float = 60.0) -> np.ndarray:
    """Four voices talking at once (background table talk)."""
    tracks = []
    for k, voice in enumerate(ta.VOICES):
        rng = _rng_for("babble", voice)
        parts: list[np.ndarray] = [ta.silence(rng.uniform(0, 1))]
        total = len(parts[0])
        while total < seconds * ta.RATE:
            sp = _say(rng.choice(BABBLE), voice, rng.choice(STYLES))
            parts += [sp.pcm, ta.silence(rng.uniform(0.1, 0.4))]
            total += len(sp.pcm) + len(parts[-1])
        tracks.append(np.concatenate(parts)[: int(seconds * ta.RATE)].astype(np.float64))
    mix = np.sum(tracks, axis=0)
    return (mix / np.max(np.abs(mix)) * 16000).astype(np.int16)


CONDITIONS: tuple[tuple[str, str | None, float | None], ...] = (
    ("clean", None, None),
    ("pink 20 dB", "pink", 20.0),
    ("babble 20 dB", "babble", 20.0),
    ("pink 10 dB", "pink", 10.0),
    ("babble 10 dB", "babble", 10.0),
)


def with_noise(pcm: np.ndarray, kind: str | None, snr: float | None, babble: np.ndarray, seed: int) -> np.ndarray:
    if kind is None or snr is None:
        return pcm
    if kind == "pink":
        noise = ta.pink_noise(min(len(pcm) / ta.RATE, 60.0) + 1.0, seed)
    else:
        noise = np.roll(babble, (seed * 104729) % len(babble))
    return ta.mix_at_snr(pcm, noise, snr)


CORPUS_VERSION = "3"


def _extra_voice_streams(cache: Path, voice: str) -> list[tuple[np.ndarray, Stream]]:
    """Call streams (both games) and the chatter stream of a voice outside `ta.VOICES` (a
    festival voice), built once next to the corpus; the corpus itself is unchanged (its
    chatter and babble voices stay the flite ones)."""
    out = []
    for kind, game in (("calls", "kemps"), ("calls", "kems"), ("chatter", "")):
        name = f"calls-{game}-{voice}" if kind == "calls" else f"chatter-{voice}"
        path, meta = cache / f"{name}.npy", cache / f"{name}.json"
        if not (path.is_file() and meta.is_file()):
            pcm, st = build_call_stream(game, voice) if kind == "calls" else build_chatter_stream(voice)
            tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
            np.save(tmp, pcm)
            tmp.replace(path)
            tmp_meta = meta.with_suffix(f".{os.getpid()}.tmp.json")
            tmp_meta.write_text(json.dumps(asdict(st)))
            tmp_meta.replace(meta)  # atomic as the audio: a crash never leaves half an index
        m = json.loads(meta.read_text())
        truths = tuple(Truth(**t) for t in m.pop("truths"))
        out.append((np.load(path), Stream(truths=truths, **m)))
    return out


def load_corpus(cache: Path, heldout_voices: tuple[str, ...] = (),
                tune_voices: tuple[str, ...] = ()) -> tuple[list[tuple[np.ndarray, Stream]], np.ndarray]:
    """Build (or load from `cache`) every call stream, chatter stream and the babble track,
    plus both held-out chatter texts for `heldout_voices` and the extra tuning chatter for
    `tune_voices` (kept next to the corpus, built once). A voice of either list that is not
    one of the corpus's flite voices (`ta.FESTIVAL_VOICES`) gets its own call and chatter
    streams too."""
    ta.require_tools(heldout_voices + tune_voices)
    cache = cache / f"v{CORPUS_VERSION}"
    index = cache / "index.json"
    if index.is_file():
        meta = json.loads(index.read_text())
        streams = []
        for m in meta["streams"]:
            truths = tuple(Truth(**t) for t in m.pop("truths"))
            streams.append((np.load(cache / f"{m['name']}.npy"), Stream(truths=truths, **m)))
        babble = np.load(cache / "babble.npy")
    else:
        cache.mkdir(parents=True, exist_ok=True)
        jobs = [("calls", g, v) for g in ("kemps", "kems") for v in ta.VOICES] + [("chatter", "", v) for v in ta.VOICES]
        streams = []
        for kind, game, voice in tqdm(jobs, desc="generating speech"):
            pcm, st = build_call_stream(game, voice) if kind == "calls" else build_chatter_stream(voice)
            np.save(cache / f"{st.name}.npy", pcm)
            streams.append((pcm, st))
        babble = build_babble()
        np.save(cache / "babble.npy", babble)
        index.write_text(json.dumps({"streams": [asdict(s) for _, s in streams]}))
    extra = [("chatter-heldout", v) for v in heldout_voices] + [("chatter-heldout2", v) for v in heldout_voices]
    extra += [("chatter-tune2", v) for v in tune_voices]
    for kind, voice in extra:
        path = cache / f"{kind}-{voice}.npy"
        if not path.is_file():
            tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
            np.save(tmp, build_chatter_stream(voice, kind=kind)[0])
            tmp.replace(path)  # atomic: a second benchmark never reads half a file
        pcm = np.load(path)
        streams.append((pcm, Stream(f"{kind}-{voice}", "any", voice, kind, (), len(pcm) / ta.RATE)))
    # last, so the streams before them keep their places (voice_replay.py seeds each
    # stream's noise by its place in this list)
    for voice in dict.fromkeys(heldout_voices + tune_voices):
        if voice not in ta.VOICES:
            streams += _extra_voice_streams(cache, voice)
    return streams, babble
