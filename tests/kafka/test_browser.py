"""A person plays a whole hand in the browser, by clicking, against the real gateway,
processor, timers, bots and broker (headless Chromium from Debian, driven by Playwright).
Screenshots go to .cache/test-artifacts/browser/."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from okey101.app import topics
from okey101.table import messages as E
from tests.kafka.stack import ROOT, Stack
from tests.kafka.support import read_all

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = ROOT / ".cache" / "test-artifacts" / "browser"


@pytest.fixture
async def stack(kafka_bootstrap: str) -> AsyncIterator[Stack]:
    running = Stack(kafka_bootstrap, ("--guest-login",))
    try:
        await running.start()
        yield running
    finally:
        running.stop()


async def test_a_person_logs_in_creates_a_table_fills_it_with_bots_and_plays_a_hand_to_its_end(
        stack: Stack) -> None:
    playwright = pytest.importorskip("playwright.async_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: `make system-deps` installs it")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    async with playwright.async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(
            tempfile.mkdtemp(prefix="okey-chromium-"), executable_path=CHROMIUM, headless=True,
            args=FLAGS, viewport={"width": 1280, "height": 1000})
        try:
            page = context.pages[0] if context.pages else await context.new_page()
            await page.goto(stack.url)
            await page.fill("#login-name", "ayse")
            await page.click("#login-button")
            await page.wait_for_selector("#lobby:not([hidden])")
            player = (await page.text_content("#who") or "").strip()
            assert player.startswith("ayse-")
            await page.select_option("#create-house", "north-sultan")
            await page.fill("#create-hands", "1")
            await page.fill("#create-seconds", "120")
            await page.screenshot(path=ARTIFACTS / "1-lobby.png")
            await page.click("#create-button")

            await page.click('[data-sit="0"]:not([disabled])')
            await page.wait_for_selector("#leave:not([disabled])")
            await page.click("#fill-bots")
            await page.wait_for_selector("#start:not([disabled])", timeout=30000)
            await page.screenshot(path=ARTIFACTS / "2-seated.png")
            await page.click("#start")
            await page.wait_for_selector(".slot .tile", timeout=30000)
            await page.screenshot(path=ARTIFACTS / "3-dealt.png", full_page=True)

            moves = await _play_until_the_hand_ends(page)
            await page.screenshot(path=ARTIFACTS / "4-hand-over.png", full_page=True)
            result = await page.text_content("#hand-result") or ""
            assert "el sonucu" in result
            assert await page.is_visible("#match-result")  # one hand: the match is over
            totals = await page.locator("#standings td.total").all_text_contents()
            assert len(totals) == 4 and all(t.strip().lstrip("-").isdigit() for t in totals)
            assert moves > 0
        finally:
            await context.close()
    outcomes = [E.outcome_decoder.decode(v) for v in
                await read_all(stack.bootstrap, topics.OUTCOMES.name(stack.prefix), timeout=20)]
    mine = [o for o in outcomes if o.command_id.startswith(f"{player}/")]
    assert len(mine) >= 4 + moves  # create, sit, three bots, start, then the moves
    assert [o for o in mine if not o.accepted] == []


async def _play_until_the_hand_ends(page: object, limit: float = 300) -> int:
    """Draw and discard (the first tile of the rack) whenever it is this seat's turn."""
    from playwright.async_api import Page

    assert isinstance(page, Page)
    moves = 0
    deadline = time.monotonic() + limit
    while not await page.is_visible("#hand-result"):
        assert time.monotonic() < deadline, "the hand did not end"
        before = None
        if await page.is_enabled("#deck"):
            before = await _click_seen(page, "#deck")
        elif await page.is_enabled("#discard-button"):
            await page.click(".slot .tile >> nth=0")
            before = await _click_seen(page, "#discard-button")
        if before is None:
            await page.wait_for_timeout(100)
            continue
        moves += 1
        if moves == 2:
            await page.screenshot(path=ARTIFACTS / "3-playing.png", full_page=True)
        await page.wait_for_function(
            "before => document.querySelector('#table-title').textContent !== before",
            arg=before, timeout=30000)
    return moves


async def _click_seen(page: object, selector: str) -> str | None:
    """Click `selector` and return the table's title (its view's version) as it was at the
    click, in one turn of the page's event loop; None if the button was disabled by then. A
    view arriving between reading the title and clicking would otherwise end the wait for
    the move's own view, and the next move would be sent against the old one."""
    from playwright.async_api import Page

    assert isinstance(page, Page)
    seen: str | None = await page.evaluate(
        """selector => {
             const button = document.querySelector(selector);
             if (button.disabled) return null;
             const title = document.querySelector('#table-title').textContent;
             button.click();
             return title;
           }""", selector)
    return seen
