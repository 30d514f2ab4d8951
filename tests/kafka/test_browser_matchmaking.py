"""A person on a phone, in the browser, against the real gateway, matchmaker, processor,
views, bots and broker: the lobby lists a tournament, and a tap registers for it (the
bracket shown, the button turned to withdraw) and withdraws again; a tap on quick play
seats the person at a table of their hall, the empty seats given to bots after the wait,
and the hand starts on the table screen."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from okey101.app.matchmaker import records as R
from tests.kafka.stack import Stack
from tests.kafka.test_browser import ARTIFACTS, CHROMIUM, FLAGS, OVERFLOW, _accessible
from tests.kafka.test_matchmaker import NS, send


async def test_a_person_on_a_phone_registers_for_a_tournament_and_quick_plays_to_a_seat(
        kafka_bootstrap: str) -> None:
    playwright = pytest.importorskip("playwright.async_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: `make system-deps` installs it")
    from axe_playwright_python.async_playwright import Axe

    stack = Stack(kafka_bootstrap, ("--guest-login",))
    try:
        url = await stack.start(bots=True, timers=False, matchmaker=("--bot-wait-ms", "1500"))
        await send(kafka_bootstrap, stack.prefix, [R.ScheduleTournament(
            request_id="ops/cup", house=NS, tournament_id="cup", name="Aralık Kupası",
            starts_at=int(time.time() * 1000) + 3_600_000, size=16)])
        async with playwright.async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                               args=FLAGS)
            try:
                context = await browser.new_context(viewport={"width": 390, "height": 844},
                                                    has_touch=True, is_mobile=True)
                page = await context.new_page()
                errors: list[str] = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                await page.goto(url)
                await page.fill("#login-name", "Ayşe")
                await page.click("#login-button")
                await page.wait_for_selector("#lobby:not([hidden])")
                cup = page.locator("#tournament-list li", has_text="Aralık Kupası")
                for _ in range(60):  # the gateway has read the schedule: the lobby asks again
                    if await cup.count():
                        break
                    await page.evaluate("() => refreshLobby()")
                    await page.wait_for_timeout(500)
                assert "kayıtlar açık" in (await cup.text_content() or "")
                await cup.locator("button", has_text="Kaydol").tap()
                await page.wait_for_selector("#bracket:not([hidden])")
                await page.wait_for_function(
                    "() => document.querySelector('#tournament-list li').textContent"
                    ".includes('1/16')")
                assert await cup.locator("button", has_text="Kaydı sil").count() == 1
                assert await page.evaluate(OVERFLOW) == []
                await _accessible(page, Axe(), "the lobby's tournaments at phone")
                await page.screenshot(path=ARTIFACTS / "tournaments-phone.png")
                await cup.locator("button", has_text="Kaydı sil").tap()
                await page.wait_for_function(
                    "() => document.querySelector('#tournament-list li').textContent"
                    ".includes('0/16')")

                await page.tap("#quick-play-button")
                await page.wait_for_selector("#quick-play-cancel:not([hidden])")
                assert "Acemi" in (await page.text_content("#quick-play-state") or "")
                await page.wait_for_selector("#table:not([hidden])", timeout=60_000)
                await page.wait_for_selector(".slot .tile", timeout=60_000)
                names = await page.locator(".seat .name").all_text_contents()
                assert len(names) == 4 and "Ayşe" in " ".join(names)
                assert errors == []
            finally:
                await browser.close()
    finally:
        stack.stop()
