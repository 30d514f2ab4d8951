"""A view's changes applied (the views contract, version 2): the operations a patch may
hold, what a reader refuses, and the seat chain a gateway keeps."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from okey101.table.viewpatch import PatchError, SeatChain, apply, apply_bytes, decode_update
from okey101.table.views import PatchOp, PlayerPatch


def view() -> dict[str, Any]:
    return {"seq": 3, "rack": ["R1", "K2"], "hand": {"melds": [[1]], "seats": [{"n": 1}]}}


def test_a_replace_sets_a_member_that_exists() -> None:
    assert apply(view(), [{"op": "replace", "path": "/seq", "value": 4}])["seq"] == 4


def test_a_replace_sets_a_nested_array_item() -> None:
    got = apply(view(), [PatchOp(op="replace", path="/hand/seats/0", value={"n": 2})])
    assert got["hand"]["seats"] == [{"n": 2}]


def test_an_add_at_the_end_appends_a_meld() -> None:
    got = apply(view(), [{"op": "add", "path": "/hand/melds/-", "value": [2]}])
    assert got["hand"]["melds"] == [[1], [2]]


def test_an_add_at_an_index_inserts() -> None:
    assert apply(view(), [{"op": "add", "path": "/rack/0", "value": "S5"}])["rack"] == [
        "S5", "R1", "K2"]


def test_operations_apply_in_order() -> None:
    ops = [{"op": "replace", "path": "/rack", "value": []},
           {"op": "add", "path": "/rack/-", "value": "M3"}]
    assert apply(view(), ops)["rack"] == ["M3"]


@pytest.mark.parametrize("op,why", [
    ({"op": "replace", "path": "/missing", "value": 1}, "only replaced"),
    ({"op": "add", "path": "/seq2", "value": 1}, "only replaced"),
    ({"op": "replace", "path": "/rack/2", "value": "R1"}, "index out of range"),
    ({"op": "add", "path": "/rack/3", "value": "R1"}, "index out of range"),
    ({"op": "replace", "path": "/rack/x", "value": "R1"}, "not an array index"),
    ({"op": "replace", "path": "/hand/nothing/0", "value": 1}, "no such member"),
    ({"op": "replace", "path": "seq", "value": 1}, "not a JSON Pointer"),
    ({"op": "replace", "path": "/seq/0", "value": 1}, "no such member"),
    ({"path": "/seq", "value": 1}, "not a patch operation"),
])
def test_an_operation_that_does_not_apply_is_refused_with_its_reason(
        op: dict[str, Any], why: str) -> None:
    with pytest.raises(PatchError, match=why):
        apply(view(), [{"op": "replace", "path": "/seq", "value": 9}, op])


def test_a_refused_operation_names_its_index_and_path() -> None:
    with pytest.raises(PatchError, match=r"op 1: .*'/rack/7'"):
        apply(view(), [{"op": "replace", "path": "/seq", "value": 9},
                       {"op": "replace", "path": "/rack/7", "value": "R1"}])


def test_bytes_patched_are_the_view_encoded() -> None:
    base = msgspec.json.encode(view())
    patch = msgspec.json.encode([{"op": "replace", "path": "/seq", "value": 5}])
    assert msgspec.json.decode(apply_bytes(base, [patch]))["seq"] == 5


def test_a_chain_follows_only_the_version_it_holds() -> None:
    chain = SeatChain()
    assert not chain.is_known and not chain.follows(-1)
    chain.reset(3, msgspec.json.encode(view()))
    assert chain.follows(3) and not chain.follows(2)
    chain.extend(4, msgspec.json.encode([{"op": "replace", "path": "/seq", "value": 4}]))
    assert chain.follows(4) and not chain.follows(3)
    assert msgspec.json.decode(chain.view())["seq"] == 4
    assert chain.patches == []  # applied once, kept as the new base


def test_a_chain_whose_patch_does_not_apply_forgets_its_view() -> None:
    chain = SeatChain()
    chain.reset(3, msgspec.json.encode(view()))
    chain.extend(4, msgspec.json.encode([{"op": "replace", "path": "/gone", "value": 4}]))
    with pytest.raises(PatchError, match="/gone"):
        chain.view()
    assert not chain.is_known and not chain.follows(4)


def test_a_record_is_read_as_a_patch_or_a_whole_view_by_its_kind() -> None:
    patch = PlayerPatch(table_id="t", seat=0, version=4, previous=3, events=[],
                        patch=[PatchOp(op="replace", path="/seq", value=4)])
    assert decode_update(msgspec.json.encode(patch)) == patch
    with pytest.raises(msgspec.ValidationError, match="unknown kind 'diff'"):
        decode_update(b'{"kind":"diff","table_id":"t"}')
