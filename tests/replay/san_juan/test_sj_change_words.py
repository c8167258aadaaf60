""""What changed" in San Juan's words, from the stored rows of two steps (``dashboards.diff`` with
``replay/san_juan/change_words.py``): player names, no column names."""

from __future__ import annotations

from dashboards.diff import changes_html, changes_text, step_changes
from replay.san_juan.cards import Good, Role
from replay.san_juan.engine import ENGINE
from replay.san_juan.moves import Build, ChooseRole, Sell

from .positions import CR, FILL, IP, SM, at_role, play, seat

NAMES = ["Ana", "Bruno", "Carla"]


def rows(state):
    """The stored rows of a state, as the database gives them back (seat included)."""
    return dict(ENGINE.global_row(state)), [dict(r, seat=i) for i, r in enumerate(ENGINE.player_rows(state))]


def changes(before, after, public=False):
    (g0, p0), (g1, p1) = rows(before), rows(after)
    return step_changes("san_juan", g0, g1, p0, p1, NAMES, public=public)


def test_a_build_in_words_and_the_public_view_hides_the_cards():
    start = at_role([seat(hand=(CR, "Hero", "Tower", "Chapel", "Well")), seat(), seat()], draw=(FILL,) * 10)
    chosen = play(start, ChooseRole(Role.BUILDER))
    assert changes(start, chosen) == [("Table", ["role \u2013 \u2192 builder", "roles taken: +builder"])]
    built = play(chosen, Build(CR, ("Hero", "Tower", "Chapel")))
    assert changes_text(changes(chosen, built)) == (
        "Table: role builder \u2192 \u2013, discard pile 0 \u2192 3\n"
        "Ana: +Coffee roaster, VP 1 \u2192 3, hand 5 \u2192 1, hand cards: \u2212Coffee roaster, \u2212Chapel, "
        "\u2212Tower, \u2212Hero"
    )
    assert changes_text(changes(chosen, built, public=True)) == (
        "Table: role builder \u2192 \u2013, discard pile 0 \u2192 3\nAna: +Coffee roaster, VP 1 \u2192 3, hand 5 \u2192 1"
    )


def test_a_sale_counts_goods_and_cards_by_player():
    players = [seat(buildings=(IP, SM), goods={0: FILL, 1: FILL}), seat(buildings=(IP,), goods={0: FILL}), seat()]
    chosen = play(at_role(players, draw=(FILL,) * 10), ChooseRole(Role.TRADER))
    sold = play(chosen, Sell((Good.INDIGO, Good.SUGAR)))
    assert changes(chosen, sold, public=True) == [
        ("Table", ["draw pile 10 \u2192 8", "discard pile 0 \u2192 2"]),
        ("Ana", ["hand 0 \u2192 2", "\u22121 indigo", "\u22121 sugar"]),
    ]
    html = changes_html(changes(chosen, sold, public=True))
    assert '<span class="minus">\u22121 indigo</span>' in html and "<b>Ana</b>" in html


def test_names_and_the_governor_are_shown_as_names_and_escaped():
    start = at_role([seat(), seat(), seat()])
    before, after = rows(start)[0], dict(rows(start)[0], governor=1, round=2)
    out = step_changes("san_juan", before, after, [], [], ["<b>Ana</b>", "**Bruno**", "Carla"])
    assert out == [("Table", ["round 1 \u2192 2", "governor <b>Ana</b> \u2192 **Bruno**"])]
    assert "&lt;b&gt;Ana&lt;/b&gt;" in changes_html(out) and "<b>Ana</b>" not in changes_html(out)
