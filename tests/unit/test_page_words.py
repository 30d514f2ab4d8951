"""The browser table's words: every code of proto/codes.json, every label the page uses and
every finish, penalty and status it names has Turkish and English text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import get_args

import pytest

from okey101 import terms
from okey101.table import state

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "services" / "gateway" / "static"
LANGS = ("tr", "en")


def _dict(lang: str) -> dict[str, str]:
    words: dict[str, str] = json.loads((STATIC / "lang" / f"{lang}.json").read_text())
    return words


def _keys_the_page_uses() -> set[str]:
    js = (STATIC / "table.js").read_text()
    html = (STATIC / "index.html").read_text()
    used = set(re.findall(r'"((?:ui|why|tile|colour|status|finish|penalty|event)\.[a-z_]+)"', js))
    used |= set(re.findall(r'data-i18n="([^"]+)"', html))
    used |= {f"colour.{c}" for c in ("red", "yellow", "blue", "black")}
    used |= {f"finish.{f}" for f in get_args(terms.FinishKind)}
    used |= {f"penalty.{p}" for p in get_args(terms.PenaltyReason)}
    used |= {f"status.{s}" for s in get_args(state.Status)}
    return used


@pytest.mark.parametrize("lang", LANGS)
def test_every_code_in_codes_json_has_words_in_each_language(lang: str) -> None:
    codes = json.loads((ROOT / "proto" / "codes.json").read_text())
    words = _dict(lang)
    missing = [c for group in ("gateway", "rejections", "matchmaking")
               for c in codes[group]
               if not words.get(c, "").strip()]
    assert missing == []


@pytest.mark.parametrize("lang", LANGS)
def test_every_label_the_page_uses_has_words_in_each_language(lang: str) -> None:
    words = _dict(lang)
    assert sorted(k for k in _keys_the_page_uses() if not words.get(k, "").strip()) == []


def test_both_languages_have_the_same_keys_and_placeholders() -> None:
    tr, en = _dict("tr"), _dict("en")
    assert set(tr) == set(en)
    slots = re.compile(r"\{(\w+)\}")
    assert [k for k in tr if set(slots.findall(tr[k])) != set(slots.findall(en[k]))] == []
