"""A person plays a whole match in the browser, by tapping and clicking, against the real
gateway, processor, timers, bots and broker (headless Chromium from Debian, driven by
Playwright): on a phone (390x844, touch) and on a desktop (1366x768, mouse) at once.

Checked as a person would see it: nothing wider than the screen, every control of the move
at hand on the screen, Turkish letters kept in names and no bot told from a person, tiles
moved by tap and by drag, the end-of-hand sheet and the match's places, and an axe-core
scan of the lobby and the table with no serious or critical violation. Screenshots go to
.cache/test-artifacts/browser/ (docs/screenshots/ when OKEY_SCREENSHOTS=docs), and the
click-to-view latencies the page measured to latency.json there (median and p95 printed)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import statistics
from pathlib import Path
from typing import Any

import pytest

from okey101.app import topics
from okey101.table import messages as E
from tests.kafka.stack import ROOT, Stack
from tests.kafka.support import read_all

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = ROOT / ".cache" / "test-artifacts" / "browser"
DOCS = ROOT / "docs" / "screenshots"
SIZES = {"phone": (390, 844), "desktop": (1366, 768)}
HEX_ID = re.compile(r"[0-9a-f]{16,}")

# every element on the screen in use whose box reaches past the viewport's right edge
OVERFLOW = """() => {
  const doc = document.documentElement, w = doc.clientWidth, out = [];
  if (doc.scrollWidth > w) out.push('document ' + doc.scrollWidth);
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('[hidden]') || el.id === 'ghost') continue;
    const r = el.getBoundingClientRect();
    if (r.width && (r.right > w + 1 || r.left < -1))
      out.push(`${el.tagName}#${el.id}.${el.className} ${r.left | 0}-${r.right | 0}`);
  }
  return out.slice(0, 5);
}"""
# every enabled control of the table (the moves open now, the rack) outside the viewport
OFF_SCREEN = """() => {
  const out = [];
  for (const el of document.querySelectorAll('#table button, #rack .slot')) {
    if (el.closest('[hidden]') || el.disabled) continue;
    const r = el.getBoundingClientRect();
    if (!r.width) continue;
    if (r.left < -1 || r.top < -1 || r.right > innerWidth + 1 || r.bottom > innerHeight + 1)
      out.push(`${el.id || el.className} ${Math.round(r.top)}-${Math.round(r.bottom)}`);
  }
  return out;
}"""
# every disabled control shown without a reason (its title)
NO_REASON = """() => [...document.querySelectorAll('button:disabled')]
  .filter((el) => !el.closest('[hidden]') && el.getBoundingClientRect().width && !el.title.trim())
  .map((el) => el.id || el.textContent)"""


async def test_a_person_on_a_phone_and_one_on_a_desktop_each_play_a_whole_match_against_bots(
        guest_stack: Stack) -> None:
    playwright = pytest.importorskip("playwright.async_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: `make system-deps` installs it")
    try:
        from axe_playwright_python.async_playwright import Axe
    except ImportError:
        pytest.fail("axe-playwright-python is not installed (pyproject's dev dependencies)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shots = DOCS if os.environ.get("OKEY_SCREENSHOTS") == "docs" else ARTIFACTS
    shots.mkdir(parents=True, exist_ok=True)
    async with playwright.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            played = await asyncio.gather(
                _person(browser, Axe(), guest_stack.url, "phone", "Ayşe", shots),
                _person(browser, Axe(), guest_stack.url, "desktop", "Gökhan", shots))
        finally:
            await browser.close()
    latencies = sorted(x for p in played for x in p["latencies"])
    assert latencies, "the page measured no click-to-view latency"
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    figures = {"clicks": len(latencies), "median_ms": round(statistics.median(latencies), 1),
               "p95_ms": round(p95, 1), "by_size": {p["size"]: p["moves"] for p in played}}
    (ARTIFACTS / "latency.json").write_text(json.dumps(figures, indent=1) + "\n")
    print(f"\nclick to view: {figures}")
    outcomes = [E.outcome_decoder.decode(v) for v in
                await read_all(guest_stack.bootstrap, topics.OUTCOMES.name(guest_stack.prefix),
                               timeout=20)]
    for p in played:
        mine = [o for o in outcomes if o.command_id.startswith(f"{p['player']}/")]
        assert len(mine) >= 4 + p["moves"]  # create, sit, three bots, start, then the moves
        refused = [o.code for o in mine if not o.accepted]
        assert len(refused) == (1 if p["size"] == "phone" else 0), refused  # the one tried


async def _person(browser: Any, axe: Any, url: str, size: str, typed: str, shots: Path
                  ) -> dict[str, Any]:
    width, height = SIZES[size]
    phone = size == "phone"
    context = await browser.new_context(viewport={"width": width, "height": height},
                                        has_touch=phone, is_mobile=phone)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        await page.goto(url)
        await page.fill("#login-name", typed)
        await page.click("#login-button")
        await page.wait_for_selector("#lobby:not([hidden])")
        player = await page.evaluate("() => state.player")
        assert (await page.text_content("#who") or "").strip() == typed  # ş and ö kept
        assert player.startswith(f"{typed}-")
        # the house's own defaults: 11 hands (never below okeygg's minimum of 7), its turn time
        await page.select_option("#create-house", "okeygg")
        assert (await page.input_value("#create-hands"), await page.get_attribute(
            "#create-hands", "min"), await page.input_value("#create-seconds")) == ("11", "7", "45")
        assert await page.is_visible("#opt-escalating")  # okey.gg's setup switches
        assert await page.is_visible("#opt-penalties") and await page.is_visible("#opt-partners")
        await page.select_option("#create-house", "north-sultan")
        assert not await page.is_visible("#opt-escalating")  # a house without them
        # the player's own standing in the house: SP, weekly league, level (XP), board place
        await page.wait_for_selector("#me-level")
        standing = await page.locator("#me-figures").text_content() or ""
        assert "SP1000" in standing and "1 · 0 XP" in standing and "Acemi" in standing, standing
        assert "listede değil" in standing  # no finished match yet: not on the board
        await _on_screen(page, size)
        await _accessible(page, axe, f"lobby at {size}")
        await page.screenshot(path=shots / f"lobby-{size}.png")
        if not phone:
            await _okeygg_switches_make_the_table(page)
        await page.fill("#create-hands", "1")
        await page.fill("#create-seconds", "120")
        if not phone:  # a private room: its invite link, and its owner fills it with bots
            await page.check("#create-private")
        await page.click("#create-button")

        await page.click('[data-sit="0"]:not([disabled])')
        await page.wait_for_selector("#leave:not([disabled])")
        if not phone:
            invite = await page.get_attribute("#invite-link", "href") or ""
            table_id = await page.evaluate("() => state.tableId")
            assert await page.is_visible("#invite") and invite.endswith(f"#t={table_id}")
            assert await page.is_enabled("#fill-bots")  # the owner's own
        await page.click("#fill-bots")
        await page.wait_for_selector("#start:not([disabled])", timeout=30000)
        await page.click("#start")
        await page.wait_for_selector(".slot .tile", timeout=30000)
        names = await page.locator(".seat .name").all_text_contents()
        assert len(names) == 4 and all(n.strip() for n in names)
        assert not [n for n in names if HEX_ID.search(n)]  # north-sultan: bots look like people
        await _moves_a_tile(page, phone)
        await _clock_runs_to_the_servers_deadline(page)

        moves = await _play_until_the_match_ends(page, axe, size, shots)
        await page.wait_for_selector("#sheet:not([hidden])")
        assert "el sonucu" in (await page.text_content("#sheet-title") or "")
        assert await page.locator("#sheet .places li").count() == 4  # the match's places
        assert await page.is_visible("#new-match")
        await page.wait_for_function(  # every seat's score broken down: rack x multiplier
            "() => [...document.querySelectorAll('#sheet-table .parts')].every("
            "c => c.textContent.includes('×') || c.textContent === 'eşi bitirdi')")
        parts = await page.locator("#sheet-table .parts").all_text_contents()
        assert len(parts) == 4, parts
        # what the match moved for this player, from the leaderboards: a one-hand match is
        # unranked, and the sheet says it moved nothing
        await page.wait_for_selector("#sheet-moved #moved-unranked", timeout=30000)
        assert "Sıralamasız" in (await page.text_content("#sheet-moved") or "")
        await _on_screen(page, size)
        await _accessible(page, axe, f"the match's sheet at {size}")
        await page.screenshot(path=shots / f"result-{size}.png")
        await page.click("#lang")  # English one switch away
        await page.wait_for_function(
            "() => document.querySelector('#sheet-title').textContent.includes('result')")
        await page.wait_for_selector("#sheet-moved #moved-unranked")
        assert "Unranked" in (await page.text_content("#sheet-moved") or "")
        await _accessible(page, axe, f"the match's sheet in English at {size}")
        assert errors == []
        # the views came as patches (contract v2), each applied to the view held: none
        # missed, none that failed to apply (either would have watched the table again)
        patches = await page.evaluate("() => window.okeyPatches")
        assert patches["applied"] >= moves and patches["resynced"] == 0, patches
        return {"size": size, "player": player, "moves": moves,
                "latencies": await page.evaluate("() => window.okeyLatencies")}
    finally:
        await context.close()


async def _okeygg_switches_make_the_table(page: Any) -> None:
    """okey.gg's setup switches and turn time, set in the lobby, are the table's profile."""
    await page.select_option("#create-house", "okeygg")
    await page.fill("#create-hands", "7")
    await page.fill("#create-seconds", "30")
    await page.set_checked("#opt-escalating", False)
    await page.set_checked("#opt-penalties", True)
    await page.set_checked("#opt-partners", True)
    await page.click("#create-button")
    await page.wait_for_function("() => state.view && state.view.profile")
    profile = await page.evaluate("() => state.view.profile")
    assert {k: profile[k] for k in ("id", "hands_per_match", "escalating_openings",
                                    "penalties", "partners", "turn_seconds")} == {
        "id": "okeygg", "hands_per_match": 7, "escalating_openings": False,
        "penalties": True, "partners": True, "turn_seconds": 30}
    await page.click("#back-to-lobby")
    await page.wait_for_selector("#lobby:not([hidden])")
    await page.select_option("#create-house", "north-sultan")


async def _clock_runs_to_the_servers_deadline(page: Any) -> None:
    """A view with `turn_by` (the server's deadline, ms since the epoch) sets the clock to
    it, whatever the turn's start; a view without it keeps the page's own reckoning."""
    shown = await page.evaluate("""() => {
        const v = { ...state.view, turn_by: Date.now() + 33000 - (state.offset || 0) };
        clockFrom({ view: v, events: [] }); tick();
        const by = document.querySelector('#clock').textContent;
        clockFrom({ view: { ...v, turn_by: null }, events: [] }); tick();
        const none = document.querySelector('#clock').textContent;
        state.turnKey = ''; clockFrom({ view: state.view, events: [] }); tick();
        return [by, none, document.querySelector('#clock').textContent];
      }""")
    by, none, own = shown
    assert by in ("33 sn", "32 sn"), shown
    assert none == "" and own.endswith(" sn") and own not in ("33 sn", "32 sn"), shown


async def _on_screen(page: Any, where: str) -> None:
    assert await page.evaluate(OVERFLOW) == [], f"wider than the screen at {where}"
    assert await page.evaluate(OFF_SCREEN) == [], f"a control off the screen at {where}"
    assert await page.evaluate(NO_REASON) == [], f"a disabled control with no reason at {where}"


async def _accessible(page: Any, axe: Any, where: str) -> None:
    results = await axe.run(page)
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
           for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert bad == [], f"axe-core at {where}: {bad}"


async def _moves_a_tile(page: Any, phone: bool) -> None:
    """A tap on a tile and then on an empty slot moves it there; so does a drag (mouse)."""
    empty = await page.evaluate("() => state.slots.lastIndexOf(null)")
    tile = await page.evaluate("() => state.slots[0]")
    tap = page.tap if phone else page.click
    await tap('[data-slot="0"] .tile')
    await tap(f'[data-slot="{empty}"]')
    assert await page.evaluate(f"() => state.slots[{empty}]") == tile
    if not phone:
        source = page.locator(f'[data-slot="{empty}"] .tile')
        target = page.locator('[data-slot="0"]')
        await source.drag_to(target)
        assert await page.evaluate("() => state.slots[0]") == tile


async def _play_until_the_match_ends(page: Any, axe: Any, size: str, shots: Path,
                                     limit: float = 420) -> int:
    """Draw, then discard the first tile of the rack (tap it, tap the discard pile),
    whenever it is this seat's turn; every turn checked for what is off the screen."""
    moves, rejected, phone, penalised = 0, False, size == "phone", 0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while await page.evaluate("() => !state.view || state.view.status !== 'over'"):
        assert loop.time() < deadline, f"the match did not end at {size}"
        clicked = None
        if await page.is_enabled("#deck"):
            await _on_screen(page, f"{size}, a draw")
            clicked = await _click_seen(page, "#deck")
        elif await page.is_enabled("#discard-zone"):
            if phone and not rejected and await page.is_enabled("#open-button"):
                rejected = await _is_refused_in_words(page)
            await page.click(".slot .tile >> nth=0")
            penalised += await _held_tile_shows_its_targets_and_costs(page)
            await _on_screen(page, f"{size}, a discard")
            clicked = await _click_seen(page, "#discard-zone")
        if clicked is None:
            await page.wait_for_timeout(100)
            continue
        moves += 1
        await page.wait_for_function(
            "before => String(state.version) !== before || state.view.status === 'over'",
            arg=clicked, timeout=30000)
        await page.wait_for_function(  # an accepted move clears a refusal's words
            "() => document.querySelector('#message').textContent === ''", timeout=10000)
        if moves == 5:
            await page.screenshot(path=shots / f"table-{size}.png")
            await _accessible(page, axe, f"the table at {size}")
            if phone:  # the narrowest phone the page is made for, a short one too
                await page.set_viewport_size({"width": 360, "height": 640})
                await _on_screen(page, "360x640")
                await page.screenshot(path=ARTIFACTS / "table-360.png")
                await page.set_viewport_size({"width": SIZES[size][0], "height": SIZES[size][1]})
    assert rejected or not phone, "the phone never tried a refused opening"
    print(f"\n{size}: {moves} moves, {penalised} penalised discards marked on held racks")
    return moves


async def _held_tile_shows_its_targets_and_costs(page: Any) -> int:
    """A tile held: the discard pile and the empty slots are highlighted as its targets
    (and the melds it may be laid off on, from the seat's rules); every discard the rules
    say costs a penalty carries its amount on the tile before it is thrown. Returns how
    many such discards the rack showed. The detail is the `rules` frame the page asks for
    the version it holds (views carry only the next move's gates)."""
    await page.wait_for_function(
        "() => state.detail && state.detail.version === state.version", timeout=10000)
    seen = await page.evaluate("""() => {
        const r = detail(), out = { bad: [] };
        if (state.detail.version !== state.version) out.bad.push('an answer for another version');
        if (!document.querySelector('#discard-zone.target')) out.bad.push('discard pile');
        const empty = document.querySelectorAll('#rack .slot:not(:has(.tile))').length;
        if (document.querySelectorAll('#rack .slot.target').length !== empty) out.bad.push('slots');
        const held = state.slots[[...state.selected][0]];
        const offs = r.lay_offs.filter((o) => o.tile === held).map((o) => String(o.meld));
        const lit = [...document.querySelectorAll('.meld.target')].map((m) => m.dataset.meld);
        if ([...new Set(offs)].sort().join() !== lit.sort().join())
          out.bad.push('melds ' + offs + '/' + lit);
        for (const p of r.penalised_discards) {
          const tile = document.querySelector(`#rack .tile[data-tile="${p.tile}"] .cost`);
          if (!tile || tile.textContent !== String(p.points)) out.bad.push('cost of ' + p.tile);
        }
        out.costs = r.penalised_discards.length;
        return out;
      }""")
    assert seen["bad"] == [], seen
    return int(seen["costs"])


async def _is_refused_in_words(page: Any) -> bool:
    """Opening with one tile is refused: the reason is shown in words by the rack."""
    await page.click(".slot .tile >> nth=0")
    await page.click("#open-button")
    await page.wait_for_selector("#message.bad", timeout=30000)
    text = await page.text_content("#message") or ""
    words = json.loads((ROOT / "services/gateway/static/lang/tr.json").read_text())
    assert text in words.values(), text  # Turkish words, not a code
    assert await page.evaluate("() => state.selected.size") == 0
    return True


async def _click_seen(page: Any, selector: str) -> str | None:
    """Click `selector` and return the view's version as it was at the click, in one turn
    of the page's event loop; None if the control was disabled by then. A view arriving
    between reading the version and clicking would otherwise end the wait for the move's
    own view, and the next move would be sent against the old one."""
    seen: str | None = await page.evaluate(
        """selector => {
             const button = document.querySelector(selector);
             if (button.disabled) return null;
             const version = String(state.version);
             button.click();
             return version;
           }""", selector)
    return seen
