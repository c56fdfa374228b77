"""What a player needs at every step, on the screens of every game (issue 38, "The
companion screen shows everything a player needs, at 80x24"): whose turn, what to do,
the scores and the player's own hidden things, in the panel beside an 80x24 board (some
26 columns by 14 rows) or one key (Tab) away, and above the typed prompt; help pages
that lose nothing; Tossing Tiger's revealed cards and dice; Boars' diets where the diet
is chosen; typed lists numbered so that a number cannot be read as a count; one word for
Gaia-Vora's planet; one thing, one noun ("1 move", "1 die").

The pty tests of the same at 80x24 are in tests/test_newcomer.py."""

import io
import random
import re
from pathlib import Path

import pytest
from rich.console import Console

from shared_rules import games
from vora_host import games as host_games
from vora_host.bots import RandomBot
from vora_host.play.board import BoardGame
from vora_host.play.board_keys import KeyPad
from vora_host.play.board_session import BoardGameCompanion
from vora_host.play.terminal import (Human, TerminalGame, in_shown_order, moves_summary,
                                     resolve_entry)
from vora_host.virtual import screen as sim

from test_board_games import FakeClient

ROOT = Path(__file__).resolve().parents[1]
BOARD_GAMES = ("vorcept", "gaia-vora", "tossing-tiger", "boars")


def flat(text):
    return " ".join(text.split())


def printed(renderable, width):
    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None).print(renderable)
    return buf.getvalue()


# ---------------------------------------------------------------- the facts to find

def facts(name, state, viewer=0, who=None):
    """{what: regex} a player (`viewer`) must find on their screen: every player's score
    (or standing), and their own hidden things, read from the rules' own view, in words a
    screen may write them (the old screens' words count too: a fact missing is one not
    shown, not one written otherwise)."""
    who = who or {}
    view = host_games.host_game(name).VIEW
    v = state.view(viewer)
    out = {}

    def label(p):
        return r"\s+".join(re.escape(w) for w in view.seat_label(state, p, who.get(p)).split())

    if name == "vora":
        for p, score in enumerate(state.scores()):
            out["score of P%d" % p] = r"%s\s+(?:score\s+)?%s(?!\d)" % (
                label(p), re.escape("%+d" % score))
    elif name == "vorcept":
        for p in (0, 1):
            n = state.pieces_left(p)
            out["pieces of P%d" % p] = r"%s\s+(?:reserve:[^;]*;\s+)?%d(?!\d)" % (label(p), n)
    elif name == "gaia-vora":
        b = state.board()
        for p, colour in enumerate(b["colours"]):
            out["score of P%d" % p] = r"%s\s+(?:score\s+)?%d(?!\d)" % (label(p),
                                                                      b["scores"][colour])
        out["stars"] = r"Stars:?\s+(?:%s|%s)" % (
            "/".join(str(n) for n in b["stars"]),
            r",\s+".join("%s %d" % (c, n) for c, n in zip(b["colours"], b["stars"])))
        pool = b["pools"][b["colours"][viewer]]
        out["own pool"] = r"pool:?\s+C%d\s+H%d\s+P%d" % (
            pool["carnivore"], pool["herbivore"], pool["plant"])
    elif name == "tossing-tiger":
        owned = owned_cards(state)
        for p, n in enumerate(owned):
            out["cards of P%d" % p] = r"%s\s+%d(?!\d)" % (label(p), n)
        hand = v["info"]["hand"]
        if hand:
            out["own hand"] = r"Your\s+hand(?:\s+\(P%d\))?:\s+%s" % (viewer, r",?\s+".join(
                re.escape(c) + (r"\s+x%d" % n if n > 1 else "") for c, n in sorted(
                    hand.items(), key=lambda cn: _natural(cn[0]))))
        build = (v["war"] or {}).get("build")
        if build is not None and build["p"] == viewer:
            for card in build["pool"] + build["cur"]:
                out["%s to place or in the die made" % card] = \
                    r"(?:Still\s+to\s+place|The\s+die\s+you\s+make):[^\n]*\b%s\b" % card
    elif name == "boars":
        for p, pos in enumerate(v["positions"]):
            out["space of P%d" % p] = r"%s\s+(?:space\s+)?%d(?!\d)" % (label(p), pos)
        bag = [("%s%d" % (c, n)) for c, n in zip("rbygk", v["bag"]) if n]
        out["own bag"] = r"bag:?\s+" + r"\s+".join(bag) if bag else r"bag"
    return out


def ends_sentence(line):
    text = re.sub("\x1b\\[[0-9;]*m", "", line).rstrip()
    return not text or text.endswith((".", ":", ";", ")", "!", "?"))


def _natural(word):
    from vora_host.games.base import word_order
    return word_order(word)


def owned_cards(state):
    """Each player's cards, hand and dice (Tossing Tiger's score), from the rules."""
    return [len(state._owned(p)) for p in range(len(state.scores()))]


def missing(name, state, text, viewer=0, who=None):
    """The facts of `state` not found in `text` (its whitespace folded)."""
    text = flat(text)
    return [what for what, pattern in facts(name, state, viewer, who).items()
            if not re.search(pattern, text)]


# ---------------------------------------------------------------- mid-game positions

def played(name, seed, moves, until=None):
    """P0 a human, P1 a random bot, `moves` random moves in or more, P0 to act (and
    `until(state)` true, when given); None when the game ends first."""
    module = games.load(name)
    state = module.new_game(2, seed=seed)
    start = state.clone()
    if name == "vora":  # played on the board by the firmware, not a companion: a state
        companion = type("Typed", (), {"state": state, "moves": []})()
        companion.game = companion
        companion.play = lambda move, now: (state.play(move), companion.moves.append(move))
    else:
        companion = BoardGameCompanion(name, state, [Human(), RandomBot(seed)])
        companion.game = BoardGame(name, state, [Human(), RandomBot(seed)], FakeClient(),
                                   bot_delay_ms=0, on_event=companion._event)
    companion.start = start
    rnd = random.Random(seed)
    for _ in range(moves * 4 + 400):
        if state.is_over():
            return None
        if state.to_act() == 0 and len(companion.game.moves) >= moves \
                and (until is None or until(state)):
            return companion
        legal = [m for m in state.legal_moves() if m != "concede"] or state.legal_moves()
        companion.game.play(rnd.choice(legal), 0)
    return None


def mid_game(name, moves=40, until=None, seeds=range(1, 60)):
    for seed in seeds:
        companion = played(name, seed, moves, until)
        if companion is not None and (until is None or until(companion.state)):
            return companion
    pytest.fail("no game of %s reached the position looked for" % name)


def panel_pages(companion, cols=80, rows=24, most=12):
    """The pages of the panel beside the virtual board at cols x rows, as a player turns
    them with Tab (read back through pyte, as the screen draws them)."""
    from test_board_screen import _panel
    out = []
    for _ in range(most):
        lines = _panel(companion, cols, rows)
        if out and lines == out[0]:
            break
        out.append(lines)
        if not hasattr(companion, "page_side"):
            break  # a panel without pages: what it cuts is out of reach
        companion.page_side()
    return out


# ---------------------------------------------------------------- beside the board

@pytest.mark.parametrize("name", BOARD_GAMES)
def test_beside_an_80x24_board_the_first_page_has_the_turn_the_scores_and_your_secrets(name):
    companion = mid_game(name, 12 if name == "tossing-tiger" else 40)
    state = companion.state
    first = panel_pages(companion)[0]
    text = flat(" ".join(first))
    view = companion.game.view
    turn = "%s to %s" % (view.seat_label(state, 0, "you"), view.prompt(state))
    assert flat(turn) in text, first
    assert not missing(name, state, text), (missing(name, state, text), first)


@pytest.mark.parametrize("name", BOARD_GAMES)
@pytest.mark.parametrize("cols,rows", ((80, 24), (120, 40)))
def test_what_the_panel_cuts_is_a_tab_away(name, cols, rows):
    # Every line of the game's picture, as it is drawn in the panel's width, is on some
    # page; every page keeps the turn; a page that is not the whole panel says Tab.
    companion = mid_game(name, 12 if name == "tossing-tiger" else 40)
    state = companion.state
    width = cols - sim.SIDE_COL
    picture = [line.rstrip() for line in printed(companion.game.view.render(
        state, 0, None, companion.game.history, width=width), width).splitlines()]
    book = panel_pages(companion, cols, rows)
    shown = set(line for page in book for line in page)
    assert [line for line in picture if line not in shown] == [], book
    view = companion.game.view
    turn = flat("%s to %s" % (view.seat_label(state, 0, "you"), view.prompt(state)))
    for n, page in enumerate(book, 1):
        assert flat(" ".join(page)).startswith(turn), page
        if len(book) > 1:
            assert "Tab: %s (%d/%d)" % ("more" if n < len(book) else "page 1", n,
                                         len(book)) in flat(" ".join(page)), page


@pytest.mark.parametrize("name", BOARD_GAMES)
def test_the_help_beside_an_80x24_board_is_paged_not_cut(name):
    # `?`: the help of the step, every line of it on some page (? again or Tab turns
    # them), each page under the turn and saying which page it is; where a sentence ends
    # near a page's end, the page ends with it.
    companion = mid_game(name, 12 if name == "tossing-tiger" else 40)
    state = companion.state
    companion.help_shown = True
    book = panel_pages(companion)
    width = 80 - sim.SIDE_COL
    whole = [line.rstrip() for line in printed(companion.help_renderable(),
                                               width).splitlines() if line.strip()]
    shown = [line for page in book for line in page]
    assert [line for line in whole if line not in shown] == [], (whole, book)
    assert len(book) > 1  # the help of every game is longer than 14 rows of 26 columns
    view = companion.game.view
    turn = flat("%s to %s" % (view.seat_label(state, 0, "you"), view.prompt(state)))
    for n, page in enumerate(book, 1):
        text = [line for line in page if line]
        assert flat(" ".join(text)).startswith(turn), page
        assert text[-1].strip() == "? or Tab: %s (%d/%d)" % (
            "more" if n < len(book) else "page 1", n, len(book)), page
        body = [line for line in text[:-1] if line in whole]
        # A page that stops mid-sentence is full: no sentence ended in its lower part.
        if n < len(book) and not ends_sentence(body[-1]):
            assert not any(ends_sentence(line) for line in body[len(body) // 3:]), page


def test_a_key_pressed_beside_an_80x24_board_shows_what_it_chose_and_what_comes_next():
    # Tossing Tiger's first war, b7 (fight) pressed: the panel's first page says the
    # preview and what each key chooses now, besides the turn and the cards; what it cut
    # of the picture is on the next page. (The body left after the first page once fitted
    # on one page, which then was shown alone: without the keys or the message.)
    from vora_host.games.base import cell_key
    state = games.load("tossing-tiger").new_game(2, seed=3)
    companion = BoardGameCompanion("tossing-tiger", state, [Human(), RandomBot(1)])
    companion.game = BoardGame("tossing-tiger", state, [Human(), RandomBot(1)],
                               FakeClient(), bot_delay_ms=0, on_event=companion._event)
    companion.follower = type("Link", (), {"client": type("Client", (), {
        "status_line": lambda self: "connected to virtual board (Raspberry Pi Pico "
                                    "(RP2040)), firmware 0.1.0"})()})()
    companion.game.key(cell_key("b7"), True, 0)
    companion.game.key(cell_key("b7"), False, 30)
    book = panel_pages(companion)
    first = flat(" ".join(book[0]))
    assert "preview: 3 moves start this way" in first and "keys: b6 vs P1" in first, book
    assert not missing("tossing-tiger", state, first), book
    assert len(book) > 1 and "Tab: more (1/%d)" % len(book) in first


# ---------------------------------------------------------------- typed

@pytest.mark.parametrize("name", ("vora",) + BOARD_GAMES)
def test_typed_the_scores_and_your_secrets_sit_just_above_the_prompt(name):
    # However long the list of moves (Vora's 150, a Sun's 60), the last rows of an 80x24
    # terminal at the prompt say the scores, the player's own secrets, whose turn and
    # what to do. A position with a long list where the game has one.
    host = host_games.host_game(name)

    def long_list(state):
        if name == "tossing-tiger":  # its lists are short, its secrets many
            return True
        words = getattr(getattr(host, "BOARD", None), "word_text", None)
        listed = moves_summary(in_shown_order(state.legal_moves()), 80,
                               host.VIEW.compact_family,
                               words and (lambda before, word: words(state, before, word)))
        return len(listed.plain.splitlines()) >= (10 if name == "vorcept" else 15)
    companion = mid_game(name, 12 if name == "tossing-tiger" else 30, until=long_list)
    state = companion.state
    console = Console(record=True, width=80, color_system=None)
    lines = iter(["q", "y"])
    game = TerminalGame(companion.start, [Human(), RandomBot(1)], console, game=name,
                        read=lambda prompt: next(lines), echo=False)
    game.replay_moves(companion.game.moves)  # the moves so far, as a resumed game has
    assert game.state == state
    game.run()
    printed_lines = console.export_text().splitlines()
    quits = max(i for i, line in enumerate(printed_lines) if "quits: the game stops" in line)
    screen = "\n".join(printed_lines[max(0, quits - 23):quits])  # 23 rows, the prompt's
    view = companion.game.view if name != "vora" else host_games.host_game(name).VIEW
    turn = "%s to %s" % (view.seat_label(state, 0, "you"), view.prompt(state))
    assert flat(turn) in flat(screen), screen
    assert not missing(name, state, screen, who=game.who), (
        missing(name, state, screen, who=game.who), screen)


def test_moves_are_numbered_with_a_hash_and_a_bare_number_is_the_count():
    # Boars: "5" beside "draw" read as 5 cubes but picked the fifth move (draw 4).
    draws = ["draw %d" % n for n in range(12)]
    assert "#5 4 cubes" in flat(moves_summary(draws, 80, None, lambda b, w: "%s cubes" % w)
                                .plain)
    assert resolve_entry("#5", draws) == ("draw 4", None)
    assert resolve_entry("5", draws) == ("draw 5", None)  # the count itself
    assert resolve_entry("# 5", draws) == ("draw 4", None)
    assert "no move is 'draw 12' now (draw 0 to draw 11); #12 picks the move numbered 12" \
        == resolve_entry("12", draws)[1]
    # Gaia-Vora's rotations: "2" is rotate 2 (two steps).
    assert resolve_entry("2", ["rotate 1", "rotate 2", "rotate 3"]) == ("rotate 2", None)
    # Moves of several kinds with numbers among them: a bare number is refused.
    mixed = ["pass", "steal 1 crow", "steal 1 pig"]
    assert resolve_entry("1", mixed)[1].startswith("1 alone could be a count")
    assert resolve_entry("#2", mixed) == ("steal 1 crow", None)
    # No number among the words: a bare number is the list's, as ever.
    assert resolve_entry("2", ["pass", "push crow E1"]) == ("push crow E1", None)
    assert resolve_entry("9", ["pass"])[1] == \
        "there is no move number 9 (the moves are numbered #1 to #1)"


def test_gaia_vora_rotations_read_as_steps_in_the_typed_list():
    state = games.load("gaia-vora").new_game(2, seed=3)
    console = Console(record=True, width=80, color_system=None)
    lines = iter(["2", "q", "y"])
    game = TerminalGame(state, [Human(), RandomBot(1)], console, game="gaia-vora",
                        read=lambda prompt: next(lines), echo=False)
    record = {"moves": [], "digests": []}
    game.record = record
    game.run()
    assert "rotate  #1 1 step  #2 2 steps  #3 3 steps" in console.export_text()
    assert record["moves"][0] == "rotate 2"


def test_the_how_tos_say_how_moves_are_numbered():
    for name in ("vora", "vorcept", "gaia-vora", "tossing-tiger", "boars"):
        text = (ROOT / "host" / "vora_host" / "howto" / ("%s.md" % name)).read_text()
        typed = text[text.index("## Typed moves"):]
        assert "`#1`, `#2`" in typed, name


# ---------------------------------------------------------------- Tossing Tiger

def _tiger_building():
    return mid_game("tossing-tiger", 6, until=lambda s: s.phase() == "build"
                    and s.to_act() == 0 and s.view(0)["war"]["build"]["cur"])


def test_tiger_while_you_make_dice_your_dice_and_cards_to_place_are_shown():
    # Your hand is in your dice meanwhile: they read "face down" and your hand "-".
    companion = _tiger_building()
    state = companion.state
    build = state.view(0)["war"]["build"]
    view = companion.game.view
    for width in (26, 80):
        text = flat(printed(view.render(state, 0, width=width), width))
        assert "The die you make: " + ", ".join(sorted(build["cur"])) in text or \
            all(card in text.split("The die you make: ")[1] for card in build["cur"]), text
        for card in build["pool"]:
            assert card in text.split("Still to place: ")[1], text
    # ... and never for another's eyes: P1 sees how many, not which.
    other = flat(printed(view.render(state, 1, width=80), 80))
    assert "Still to place" not in other and "The die you make" not in other


def test_tiger_revealed_cards_stay_on_the_war_table_and_the_last_war_after_it():
    def fought(s):
        war = s.view(0)["war"]
        return war is not None and any(bt["done"] == 2 for bt in war["b"])
    companion = mid_game("tossing-tiger", 6, until=fought)
    state = companion.state
    war = state.view(0)["war"]
    view = companion.game.view
    wide = printed(view.render(state, 0, width=80), 80)
    narrow = flat(printed(view.render(state, 0, width=26), 26))
    for n, bt in enumerate(war["b"], 1):
        if bt["done"] != 2:
            continue
        a, d = (side["shown"] for side in bt["s"])
        won = {1: "attacker", 2: "defender", 3: "both", 0: "nobody"}[bt["res"]]
        assert re.search(r"^\s*%d\s+%s\b.*\b%s\b.*\b%s\s*$" % (n, a, d, won), wide, re.M), \
            wide
        assert re.search(r"%d: %s\b.* vs %s\b.*, won by %s" % (n, a, d, won), narrow), narrow
    # Once the war is over, the next player still reads how it went.
    rnd = random.Random(1)
    while state.view(0)["war"] is not None and not state.is_over():
        state.play(rnd.choice(state.legal_moves()))
    if not state.is_over():
        text = printed(view.render(state, 1, width=80), 80)
        assert "Last war: P%d attacked P%d with" % tuple(war["sides"]) in text, text


# ---------------------------------------------------------------- Boars

def test_boars_diets_are_said_where_the_diet_is_chosen():
    companion = mid_game("boars", 20, until=lambda s: any(
        m.startswith("diet ") for m in s.legal_moves()) and s.to_act() == 0)
    state = companion.state
    v = state.view(0)
    boar = [c for c in games.load("boars").cards_list() if c["id"] == v["boars"][0]][0]
    top = "pay %s: move %d" % (boar["pay"], boar["move"])
    bottom = "pay %s: move %d" % (boar["pay2"], boar["move2"])
    diets = [m.split(" ")[1] for m in state.legal_moves() if m.startswith("diet ")]
    said = {"top": top, "bottom": bottom}
    # Typed: the list of moves says each diet's cost and distance.
    view = companion.game.view
    board = companion.game.mapping
    listing = moves_summary(in_shown_order(state.legal_moves()), 80, None,
                            lambda before, word: board.word_text(state, before, word)).plain
    for diet in diets:
        if diet in said:
            assert "%s (%s)" % (diet, said[diet]) in listing, listing
    # The player's own Boar card with both diets, on the first page beside the board.
    first = flat(" ".join(panel_pages(companion)[0]))
    assert flat("Boar: %s (top: %s; bottom: %s)" % (v["boars"][0], top, bottom)) in first
    # On the board: pressing the diet key, the keys line says each diet's.
    game = companion.game
    path = board.key_path(state, "diet " + diets[0])
    game.key(path[0], True, 0)
    game.key(path[0], False, 30)
    keys = companion.key_choices()
    for diet in diets:
        if diet in said:
            assert "%s (%s)" % (diet, said[diet]) in keys, keys
    assert "keys: " + keys in flat(" ".join(panel_pages(companion)[0]))


# ---------------------------------------------------------------- words

def test_gaia_vora_says_planet_as_its_rulebook_does_never_carousel():
    view = host_games.host_game("gaia-vora").VIEW
    state = games.load("gaia-vora").new_game(2, seed=1)
    seen = [view.prompt(state), view.step_help(state), view.help_text,
            printed(view.render(state, 0, width=80), 80)]
    seen.append((ROOT / "host" / "vora_host" / "howto" / "gaia-vora.md").read_text())
    readme = (ROOT / "README.md").read_text()
    seen.append(next(line for line in readme.splitlines() if "**Gaia-Vora**" in line))
    assert view.prompt(state) == "rotate the planet"
    assert not [text for text in seen if "carousel" in text.lower()]


def test_one_thing_one_noun():
    # "1 moves start this way", "1 lava blocks are down", "with 1 dice", "1 pieces left".
    from shared_rules.errors import IllegalMove
    vorcept = games.load("vorcept").new_game(2, seed=1)
    vorcept.play(vorcept.legal_moves()[0])  # the Pylon
    vorcept.play(next(m for m in vorcept.legal_moves() if m != "lava done"))
    with pytest.raises(IllegalMove) as refused:
        vorcept.clone().play("lava done")
    assert refused.value.reason.startswith("1 lava block is down;"), refused.value.reason
    tiger = games.load("tossing-tiger").new_game(2, seed=3)
    tiger.play("fight 1 1")
    view = host_games.host_game("tossing-tiger").VIEW
    assert "with 1 die" in printed(view.render(tiger, 0, width=80), 80)
    # A key that names one longer move: "1 move starts this way".
    board = host_games.host_game("gaia-vora").BOARD
    for seed in range(40):
        gaia = games.load("gaia-vora").new_game(2, seed=seed)
        rnd = random.Random(seed)
        while not gaia.is_over():
            pad = KeyPad(board)
            paths = pad.paths(gaia)
            firsts = [p[0] for p in paths.values()]
            single = [k for k in set(firsts) if firsts.count(k) == 1
                      and any(len(p) > 1 and p[0] == k for p in paths.values())
                      and k not in pad.confirm_keys(gaia)]
            if single:
                assert pad.press(gaia, single[0], 0)[0] == "partial"
                assert pad.message.startswith("1 move starts this way: go on"), pad.message
                return
            gaia.play(rnd.choice(gaia.legal_moves()))
    pytest.fail("no key named a single longer move")
