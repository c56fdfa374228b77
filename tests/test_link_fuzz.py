"""Fuzzing (tests/link_fuzz.py makes the inputs): mutated valid frames through every wire
decoder, mutated messages of a board through the host's BoardClient and of a host through
the board's BoardLink, mutated saves with valid checksums through the save loader and the
game after it. Only the documented errors may escape: none from the decoders (they return
WireError values), the client, the board's link and the loader; BadPayload from the
payload helpers; BadSave from saved_game.parse_game.

Hypothesis draws the seeds of the mutations (and shrinks a failure to its seed);
bench/fuzz_link.py runs the same targets over a million inputs."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import link_fuzz
from vora_host.log.store import GameLog

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.randoms(use_true_random=False))
def test_decoders_return_errors_as_values_and_helpers_raise_only_bad_payload(rng):
    for _ in range(4):
        link_fuzz.fuzz_decoders(rng)


@FUZZ
@given(st.randoms(use_true_random=False))
def test_the_host_client_takes_any_mutated_message_without_raising(rng):
    link_fuzz.fuzz_host(rng, count=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2 ** 32 - 1))
def test_the_host_client_with_its_game_log_takes_any_mutated_message(tmp_path_factory, seed):
    folder = tmp_path_factory.mktemp("fuzzlog")
    with GameLog(folder / "g.sqlite3") as log:
        target = link_fuzz.HostTarget(log=log)
        link_fuzz.fuzz_host(random.Random(seed), target, count=10)


@FUZZ
@given(st.randoms(use_true_random=False))
def test_the_board_link_takes_any_mutated_message_without_raising(rng):
    link_fuzz.fuzz_board(rng, count=6)


@FUZZ
@given(st.randoms(use_true_random=False))
def test_a_mutated_save_with_a_valid_checksum_is_resumed_or_ignored_never_a_crash(rng):
    link_fuzz.fuzz_save(rng)


def test_the_fuzz_reaches_the_handlers():
    # Not only parse errors: the mutated messages are taken, refused for their fields,
    # switch games, and some mutated saves still make a game that resumes and plays on.
    target = link_fuzz.HostTarget()
    for seed in range(1500):
        link_fuzz.fuzz_host(random.Random(seed), target, count=1)
    kinds = target.client.problem_kinds
    assert kinds.get("malformed", 0) > 300 and kinds.get("mismatch", 0) > 10, kinds
    resumed = sum(bool(link_fuzz.fuzz_save(random.Random(seed))) for seed in range(600))
    assert 10 < resumed < 300, resumed
