"""The views service's compression setting: zstd unless told, and only a codec every
reader of the player-views topic can read."""

from __future__ import annotations

from services.common.settings import load
from services.views.app import ViewsService
from services.views.settings import ViewsSettings


def test_the_player_views_are_compressed_with_zstd_unless_told() -> None:
    settings = load(ViewsSettings, [])
    assert isinstance(settings, ViewsSettings)
    assert ViewsService.from_settings(settings).compression == "zstd"


def test_compression_none_sends_plain_batches() -> None:
    settings = load(ViewsSettings, ["--compression", "none"])
    assert isinstance(settings, ViewsSettings)
    assert ViewsService.from_settings(settings).compression is None


def test_an_unknown_codec_is_refused_naming_the_setting() -> None:
    errors = load(ViewsSettings, ["--compression", "lz77"])
    assert isinstance(errors, list)
    assert any("compression" in line for line in errors), errors
