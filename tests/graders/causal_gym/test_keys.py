"""Keyed derivation: deterministic, injective across namespaces and streams, key precedence."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graders.causal_gym.keys import (
    DEFAULT_KEY_HEX,
    KEY_ENV,
    STREAMS,
    DerivationError,
    derive_block_seed,
    derive_seed,
    derive_streams,
    generator,
    parse_key,
    resolve_key,
)
from graders.causal_gym.manifest import load_manifest

KEY = bytes.fromhex(DEFAULT_KEY_HEX)
OTHER = bytes.fromhex("ab" * 32)


def test_same_inputs_same_seeds_and_draws() -> None:
    a = derive_streams(KEY, "train", "ate", 7)
    b = derive_streams(KEY, "train", "ate", 7)
    assert a.seeds == b.seeds
    assert a.rng("data", 0).random(5).tolist() == b.rng("data", 0).random(5).tolist()


def test_streams_are_distinct_and_each_depends_only_on_its_name() -> None:
    streams = derive_streams(KEY, "train", "adjustment", 3)
    assert len(set(streams.seeds.values())) == len(STREAMS)
    for name in STREAMS:
        assert streams.seeds[name] == derive_seed(KEY, "train", "adjustment", 3, name)


def test_attempts_and_parts_are_independent_children() -> None:
    streams = derive_streams(KEY, "train", "ate", 0)
    draws = {
        (0,): streams.rng("scm", 0).random(),
        (1,): streams.rng("scm", 1).random(),
        (0, 1): streams.rng("scm", 0, 1).random(),
        (): streams.root("scm").random(),
    }
    assert len(set(draws.values())) == len(draws)


def test_train_and_eval_ids_never_share_a_seed() -> None:
    eval_seeds = {
        derive_seed(KEY, "eval-v2", family, task_id, stream)
        for family, task_id in load_manifest()
        for stream in STREAMS
    }
    train_seeds = {
        derive_seed(KEY, "train", family, task_id, stream)
        for family, task_id in load_manifest()
        for stream in STREAMS
    }
    assert len(eval_seeds) == len(train_seeds) == 500 * len(STREAMS)
    assert not eval_seeds & train_seeds


def test_block_seeds_differ_from_task_seeds() -> None:
    assert derive_block_seed(KEY, "train", "null_detect", 0) not in set(
        derive_streams(KEY, "train", "null_detect", 0).seeds.values()
    )


def test_different_key_changes_every_seed() -> None:
    mine = derive_streams(KEY, "train", "ate", 1).seeds
    theirs = derive_streams(OTHER, "train", "ate", 1).seeds
    assert all(mine[name] != theirs[name] for name in STREAMS)


def test_key_precedence_env_then_option_then_default() -> None:
    env_key, option_key = "11" * 16, "22" * 16
    assert resolve_key(option_key, {KEY_ENV: env_key}) == bytes.fromhex(env_key)
    assert resolve_key(option_key, {}) == bytes.fromhex(option_key)
    assert resolve_key(None, {}) == KEY


@pytest.mark.parametrize("blank", ["", "  ", "\t\n", "0x"])
def test_a_blank_key_is_an_error_never_the_public_key(blank: str) -> None:
    with pytest.raises(DerivationError, match=f"{KEY_ENV} is blank"):
        resolve_key(None, {KEY_ENV: blank})
    with pytest.raises(DerivationError, match="--key is blank"):
        resolve_key(blank, {})
    with pytest.raises(DerivationError, match=f"{KEY_ENV} is blank"):
        resolve_key("22" * 16, {KEY_ENV: blank})


@pytest.mark.parametrize("text", ["xyz", "abcd", "0x12"])
def test_bad_keys_are_rejected(text: str) -> None:
    with pytest.raises(DerivationError):
        parse_key(text)


@given(st.text(alphabet="0123456789abcdefABCDEFxyz -!\t", min_size=1, max_size=80))
def test_a_bad_key_is_named_never_shown(text: str) -> None:
    for option, environ, source in ((text, {}, "--key"), (None, {KEY_ENV: text}, KEY_ENV)):
        try:
            resolve_key(option, environ)
        except DerivationError as exc:
            message = str(exc)
            assert message.startswith(source)
            secret = text.strip().lower().removeprefix("0x")
            if len(secret) >= 8:
                assert secret not in message.lower()
                assert text.strip() not in message


def test_a_retired_split_names_its_generator_version() -> None:
    with pytest.raises(DerivationError, match="generator version 1.*use eval-v2"):
        derive_seed(KEY, "eval-v1", "ate", 0, "scm")


@pytest.mark.parametrize(
    ("namespace", "family", "task_id", "stream"),
    [
        ("test", "ate", 0, "scm"),
        ("train", "ate", -1, "scm"),
        ("train", "ate", 2**64, "scm"),
        ("train", "ate", 0, "truth"),
        ("train", "", 0, "scm"),
    ],
)
def test_out_of_domain_references_are_rejected(
    namespace: str, family: str, task_id: int, stream: str
) -> None:
    with pytest.raises(DerivationError):
        derive_seed(KEY, namespace, family, task_id, stream)


def test_generator_is_a_pure_function_of_seed_and_path() -> None:
    seed = derive_seed(KEY, "train", "ate", 0, "data")
    assert generator(seed, 2).integers(1 << 30) == generator(seed, 2).integers(1 << 30)
