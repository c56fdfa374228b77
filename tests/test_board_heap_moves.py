"""What the board's play keeps and allocates, under real MicroPython (the WebAssembly
port: 32-bit, like the RP2040), for the two things that weighed most in issue 25's
figures (docs/benchmarks.md, "The firmware under MicroPython"):

- the legal moves the board keeps between key events: move codes (vora.legal_codes(),
  vora_fw.vora_ui.LegalMoves) in an array('H'), 2 bytes each, where a list of strings
  took some 40 bytes a move (about 11 KB at 263 moves);
- the PRNG's draws: a 32-bit state of 2**30 or more is a heap object on a 32-bit
  MicroPython, and xorshift32 on whole words made a new one at every shift and xor (a
  4-player deal's 30 draws took 9 KB); shared_rules.prng steps on 16-bit halves, and
  only splitting the state and joining the result allocate;
- and, from issue 40, what a move's save and digest and the end's scores allocate.
"""

import textwrap

import pytest

from mpy import run_micropython

SCRIPT = textwrap.dedent("""
    import gc, sys
    sys.path.insert(0, "/app/firmware")
    from shared_rules import prng, vora
    from vora_fw.vora_ui import VoraUI

    def allocated(fn):
        gc.collect()
        gc.disable()
        before = gc.mem_alloc()
        fn()
        used = gc.mem_alloc() - before
        gc.enable()
        return used

    # The most legal moves of the first 4-player games' positions (random moves).
    best, most, r = None, 0, prng.seed_state(3)
    for seed in range(6):
        st = vora.new_game(4, seed)
        while not st.is_over():
            codes = st.legal_codes()
            if len(codes) > most:
                best, most = st.clone(), len(codes)
            i, r = prng.below(r, len(codes))
            st.play(vora.move_text(codes[i]))
    # What the board's application allocates to hold them, as it enters the position (a
    # collection could free nothing of it: the application keeps the list).
    ui = VoraUI()
    print("kept", most, allocated(lambda: ui._enter_game(best)))
    x = prng.seed_state(7)
    def draws():
        y = x
        for _ in range(1000):
            y = prng.step(y)
    print("steps", allocated(draws))
    print("deal", allocated(lambda: vora.new_game(4, 1)))
    over = vora.new_game(4, 5)
    while not over.is_over():
        codes = over.legal_codes()
        i, r = prng.below(r, len(codes))
        over.play(vora.move_text(codes[i]))
    print("scores", allocated(over.scores), allocated(over.winner))
    # The save's and the PC digest's JSON of a state, as the board makes it a move.
    pieces = []
    print("json", allocated(lambda: over.json_pieces(pieces)),
          allocated(lambda: vora.digest_pieces(pieces, 0, len(pieces))), len(over.to_json()))
""")


@pytest.fixture(scope="session")
def figures():
    out = run_micropython(SCRIPT, check=True, timeout=240).stdout.split("\n")
    return {line.split()[0]: [int(v) for v in line.split()[1:]] for line in out if line}


def test_the_board_keeps_its_legal_moves_in_a_few_bytes_each(figures):
    moves, kept = figures["kept"]
    assert moves >= 200  # a position with many moves, as the bench's 263
    # An array of 2-byte codes, with what its growth left behind and the position's
    # drawing: 688 bytes here; a list of codes took 2,208 (in one block of 2 KB), a string
    # a move 11,392.
    assert kept <= 4 * moves, figures


def test_a_prng_step_allocates_half_what_whole_words_did(figures):
    (used,) = figures["steps"]
    # Splitting the state and joining the result make some 120 bytes of big ints a step;
    # on whole words every shift, mask and xor made one: 250 a step.
    assert used <= 1000 * 150, figures


def test_a_four_player_deal_allocates_under_8_kb(figures):
    (used,) = figures["deal"]
    assert used <= 8 * 1024, figures  # it was 11,216 bytes


def test_the_scores_of_a_finished_game_allocate_little(figures):
    # Issue 40: scoring a farm made a divmod tuple per cube type (9 a farm, scored again
    # for the winner): 1,872 bytes of the game's last step went to the end screen's
    # scores. Now a farm's summary is one tuple (176 bytes for four farms' scores here).
    scores, winner = figures["scores"]
    assert scores <= 256, figures
    assert winner <= 512, figures


def test_a_states_json_for_the_save_and_its_digest_allocate_little_more_than_the_text(figures):
    # Issue 40: the board makes its state's JSON once a move, in three pieces, for the save
    # and the PC's digest; it was made whole twice (about 3 KB each, 460 bytes of text).
    made, hashed, size = figures["json"]
    assert made <= 5 * size, figures
    assert hashed <= 512, figures
