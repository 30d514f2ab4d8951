"""Names: Turkish letters kept, a bot's id shaped like a person's, names unique per table."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from okey101 import names
from okey101.app.gateway import identity


def test_a_typed_name_keeps_its_turkish_letters() -> None:
    pid = names.account_id("Ayşe", b"\xa9\x4d\x0c")
    assert pid == "Ayşe-a94d0c"
    assert names.display_name(pid) == "Ayşe"
    assert identity.verify("k" * 32, identity.mint("k" * 32, pid, 0), 1) == pid


def test_a_name_is_cut_to_the_display_length_and_loses_what_is_not_a_letter() -> None:
    assert names.clean_name("  Gül  Şen <b>!") == "Gül-Şen-b"
    assert len(names.clean_name("Ğ" * 80)) == names.NAME_LENGTH
    assert names.account_id("<>", b"\0\0\1") == "Misafir-000001"


@given(st.binary(min_size=8, max_size=8), st.text(max_size=40), st.binary(min_size=3, max_size=3))
def test_a_bot_id_has_the_shape_of_a_guest_id_and_the_page_never_shows_hex(
        bot: bytes, typed: str, guest: bytes) -> None:
    bot_id, guest_id = names.bot_id(bot), names.account_id(typed, guest)
    shape = re.compile(r"^[^\W_][\w.-]{0,19}-[0-9a-f]{6}$")
    assert shape.match(bot_id) and shape.match(guest_id)
    assert identity.PLAYER_ID.match(bot_id) and identity.PLAYER_ID.match(guest_id)
    assert names.display_name(bot_id) in names.FIRST_NAMES


def test_the_same_bot_seed_gives_the_same_name() -> None:
    assert names.bot_name(b"x" * 8) == names.bot_name(b"x" * 8)
    assert len({names.bot_name(bytes([i])) for i in range(200)}) > 20


def test_a_legacy_hex_bot_id_is_shown_as_a_first_name() -> None:
    assert names.display_name("c3a7e55b0f6d4e1d9b2a41f0e8c6d7a2") in names.FIRST_NAMES


def test_two_equal_names_at_one_table_are_told_apart() -> None:
    shown = names.table_names(["Ayşe-000001", "", "ayşe-000002", "Ayşe-000003"])
    assert shown == ["Ayşe", "", "ayşe 2", "Ayşe 3"]
