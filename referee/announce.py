"""Short spoken sentences for every referee decision, in English, French and Spanish.

An ``Announcement`` is data (key + params) plus the rendered sentences, so the dashboard
can speak ``text[lang]`` and tests can match on ``key``/``params`` instead of wording.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

LANGS: tuple[str, ...] = ("en", "fr", "es")

# key -> (en, fr, es). Params are formatted by `_fmt` (lists become "N+S").
TEMPLATES: dict[str, tuple[str, str, str]] = {
    "deal": (
        "Hand {hand}: cards dealt, {dealer} deals.",
        "Manche {hand} : cartes distribuées, {dealer} donne.",
        "Mano {hand}: cartas repartidas, reparte {dealer}.",
    ),
    "hunt_open": ("The hunt is open.", "La chasse est ouverte.", "La caza está abierta."),
    "stale": (
        "Market discarded, deal four new cards.",
        "Cartes de la table retirées, posez-en quatre nouvelles.",
        "Mercado descartado, coloca cuatro cartas nuevas.",
    ),
    "market_corrected": (
        "Correction: the market card read as {was} is {now}.",
        "Correction : la carte de la table lue {was} est {now}.",
        "Corrección: la carta del mercado leída como {was} es {now}.",
    ),
    "row_corrected": (
        "Correction: the card in {player}'s row read as {was} is {now}.",
        "Correction : la carte de la rangée de {player} lue {was} est {now}.",
        "Corrección: la carta de la fila de {player} leída como {was} es {now}.",
    ),
    "reshuffle": (
        "Reserve empty: discard pile reshuffled.",
        "Talon épuisé : la défausse est remélangée.",
        "Reserva agotada: se baraja la pila de descarte.",
    ),
    "reveal_request": (
        "{call} by {by}! Show the hands of {seats}.",
        "{call} de {by} ! Montrez les mains de {seats}.",
        "¡{call} de {by}! Mostrad las manos de {seats}.",
    ),
    "call_correct": (
        "{call} by {by} is right.",
        "{call} de {by} : c'est juste.",
        "{call} de {by}: es correcto.",
    ),
    "call_wrong": (
        "{call} by {by} is wrong.",
        "{call} de {by} : c'est faux.",
        "{call} de {by}: es incorrecto.",
    ),
    "call_late": (
        "Late call {call} by {by}: logged, not scored.",
        "Annonce tardive {call} de {by} : notée, sans effet.",
        "Llamada tardía {call} de {by}: anotada, sin puntuar.",
    ),
    "letter": (
        "Team {team} gets a letter: {letters}.",
        "L'équipe {team} prend une lettre : {letters}.",
        "El equipo {team} recibe una letra: {letters}.",
    ),
    "points": (
        "Team {team} scores {points}, total {total}.",
        "L'équipe {team} marque {points}, total {total}.",
        "El equipo {team} suma {points}, total {total}.",
    ),
    "no_score": ("Nobody scores.", "Personne ne marque.", "Nadie puntúa."),
    "team_out": (
        "Team {team} completed the word {word} and is out.",
        "L'équipe {team} a complété le mot {word} et est éliminée.",
        "El equipo {team} completó la palabra {word} y queda eliminado.",
    ),
    "game_over": (
        "Game over. Winner: {winner}.",
        "Partie terminée. Gagnant : {winner}.",
        "Fin de la partida. Gana: {winner}.",
    ),
    "show_request": (
        "Wrong Contre Kem's: {players} show {count} cards each. Team {team} may no longer counter.",
        "Contre Kem's faux : {players} montrent {count} cartes chacun. L'équipe {team} ne peut plus contrer.",
        "Contre Kem's falso: {players} enseñan {count} cartas cada uno. El equipo {team} ya no puede contrar.",
    ),
    "shown": (
        "{player} showed {cards}.",
        "{player} a montré {cards}.",
        "{player} enseñó {cards}.",
    ),
    "redraw_request": (
        "{players}: three or four identical cards, show them and draw again.",
        "{players} : trois ou quatre cartes identiques, montrez-les et repiochez.",
        "{players}: tres o cuatro cartas iguales, enseñadlas y robad otras.",
    ),
    "redraw_waived": (
        "{players}: identical cards, but the stock cannot give as many: keep your hand.",
        "{players} : cartes identiques, mais la pioche n'en a pas assez : gardez votre main.",
        "{players}: cartas iguales, pero el mazo no tiene bastantes: quedaos con la mano.",
    ),
    "redrawn": (
        "{player} put back {cards} and drew again.",
        "{player} a remis {cards} au talon et a repioché.",
        "{player} devolvió {cards} y robó de nuevo.",
    ),
    "new_hand": (
        "New hand. {dealer} deals.",
        "Nouvelle manche. {dealer} donne.",
        "Nueva mano. Reparte {dealer}.",
    ),
    "hand_abandoned": (
        "Hand abandoned without a call.",
        "Manche abandonnée sans annonce.",
        "Mano abandonada sin llamada.",
    ),
    "anomaly": (
        "Check the cards: {detail}.",
        "Vérifiez les cartes : {detail}.",
        "Revisad las cartas: {detail}.",
    ),
    "khmer_deal": (
        "Deal {deal}: {player} plays first.",
        "Donne {deal} : {player} commence.",
        "Partida {deal}: empieza {player}.",
    ),
    "khmer_close": (
        "Close by {player}: the table is {table}.",
        "Fermeture de {player} : la table vaut {table}.",
        "Cierre de {player}: la mesa suma {table}.",
    ),
    "khmer_winner": (
        "{winner} wins the deal with {total} against a table of {table}.",
        "{winner} gagne la donne avec {total} pour une table de {table}.",
        "{winner} gana la partida con {total} frente a una mesa de {table}.",
    ),
    "khmer_nobody": (
        "Both are over the table of {table}: nobody wins.",
        "Les deux dépassent la table de {table} : personne ne gagne.",
        "Los dos superan la mesa de {table}: nadie gana.",
    ),
    "khmer_tie": (
        "Both have {total} against a table of {table}: a tie, nobody wins.",
        "Égalité à {total} pour une table de {table} : personne ne gagne.",
        "Empate a {total} frente a una mesa de {table}: nadie gana.",
    ),
    "khmer_fold": (
        "{player} folds: {opponent} scores {points}.",
        "{player} abandonne : {opponent} marque {points}.",
        "{player} se retira: {opponent} suma {points}.",
    ),
    "khmer_reveal_request": (
        "{player} closes. Lay your hands face up.",
        "{player} ferme. Posez vos mains face visible.",
        "{player} cierra. Poned las manos boca arriba.",
    ),
    "match_score": (
        "Match: {score}.",
        "Match : {score}.",
        "Marcador: {score}.",
    ),
}

CALL_NAMES: dict[str, tuple[str, str, str]] = {
    "kemps": ("Kemps", "Kemps", "Kemps"),
    "cut": ("Cut", "Cut", "Cut"),
    "kems": ("Kem's", "Kem's", "Kem's"),
    "double_kems": ("Double Kem's", "Double Kem's", "Doble Kem's"),
    "contre_kems": ("Contre Kem's", "Contre Kem's", "Contre Kem's"),
}


@dataclass(frozen=True)
class Announcement:
    """One decision to show and speak: ``key`` + ``params`` are the data, ``text`` the words."""

    key: str
    params: dict[str, Any] = field(default_factory=dict)
    text: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "params": dict(self.params), "text": dict(self.text)}


def _fmt(value: Any, lang_index: int, key: str) -> str:
    if key == "call" and isinstance(value, str) and value in CALL_NAMES:
        return CALL_NAMES[value][lang_index]
    if isinstance(value, (list, tuple)):
        return "+".join(str(v) for v in value) if key in ("team", "winner") else ", ".join(
            str(v) for v in value
        )
    if value is None:
        return ("nobody", "personne", "nadie")[lang_index]
    return str(value)


def announce(key: str, **params: Any) -> Announcement:
    """Render ``TEMPLATES[key]`` in every language. Unknown key -> ``KeyError``."""
    templates = TEMPLATES[key]
    text = {
        lang: templates[i].format(**{k: _fmt(v, i, k) for k, v in params.items()})
        for i, lang in enumerate(LANGS)
    }
    return Announcement(key=key, params=params, text=text)
