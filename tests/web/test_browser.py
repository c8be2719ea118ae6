"""The pages as a person uses them, in a real browser (Chromium, driven by Playwright), against
``rummikub serve``. Tests find things by the stable hooks: ``data-tile``, ``data-set``, ids.
Screenshots of every page go to tests/web/screenshots/ (look at them)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from puzzles.library import library
from tests.web.conftest import DESKTOP, PHONE, Page, Server


def tiles(page: Any, selector: str) -> list[str]:
    """The tiles inside what ``selector`` finds, in order."""
    return found(page, f"{selector} [data-tile]")


def found(page: Any, selector: str) -> list[str]:
    """The tiles ``selector`` finds, in order."""
    return [str(t) for t in page.locator(selector).evaluate_all("els => els.map(e => e.dataset.tile)")]


def tab_to(page: Any, selector: str, presses: int = 200) -> None:
    """Press Tab until the focus is on ``selector``: how a keyboard user gets somewhere."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement?.matches(s) ?? false", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def cut_options(page: Any, within: str) -> list[str]:
    """The options of the selects in ``within`` whose words do not fit their select (a select
    cannot wrap them: they are cut at its edge)."""
    return [
        str(o)
        for o in page.evaluate(
            """within => [...document.querySelectorAll(`${within} select`)].flatMap(s => {
                const c = document.createElement('canvas').getContext('2d');
                c.font = getComputedStyle(s).font;
                const room = s.clientWidth - 24;  // less the arrow
                return [...s.options].filter(o => c.measureText(o.text).width > room).map(o => o.text);
            })""",
            within,
        )
    ]


def in_view(page: Any, selector: str) -> bool:
    return bool(
        page.evaluate(
            "s => { const r = document.querySelector(s).getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }",
            selector,
        )
    )


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
@pytest.mark.parametrize(("path", "name"), [("/", "analysis"), ("/puzzles", "puzzles"), ("/puzzles?id=rebuild", "puzzle-rebuild")])
def test_each_page_loads_without_console_errors(
    browser: Any, server: Server, screenshots: Path, path: str, name: str, viewport: str
) -> None:
    opened = Page(browser, server, screenshots, DESKTOP if viewport == "desktop" else PHONE)
    page = opened.open(path)
    # Nothing wider than the screen: a phone scrolls down, never sideways.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    if name == "puzzles":
        assert page.locator("#levels a[data-puzzle]").count() >= 85  # the library, by level
    else:
        assert page.locator("[data-tile]").count() > 0
    opened.shot(f"{name}-{viewport}")
    opened.context.close()
    assert not opened.errors, opened.errors


def test_tiles_are_labelled_and_told_apart_without_hue(page: Page) -> None:
    p = page.open("/?rack=R7+J+K1+B1+O1")
    rack = p.locator("#board .rack-zone")
    assert rack.locator("[data-tile='R7']").get_attribute("aria-label") == "red 7"
    assert rack.locator("[data-tile='J']").get_attribute("aria-label") == "joker"
    shapes = [rack.locator(f"[data-tile='{t}'] .shape").inner_text() for t in ("K1", "B1", "R7", "O1", "J")]
    assert len(set(shapes)) == 5, shapes  # a shape per colour, and the joker's own
    assert p.locator("#palette [data-tile='O13']").get_attribute("aria-label") == "add orange 13 to the rack"


def test_a_position_typed_in_notation_is_solved_with_played_tiles_highlighted(page: Page) -> None:
    p = page.open("/")
    p.fill("#board .rack-zone input", "R5 b7 O7")
    p.press("#board .rack-zone input", "Enter")
    p.wait_for_selector("#board .rack-zone [data-tile='O7']")
    for count, typed in enumerate(("R4 J R6", "K1-3"), 1):
        p.fill("#board .new-set input", typed)
        p.press("#board .new-set input", "Enter")
        p.wait_for_selector(f"#board [data-set='{count - 1}']")
    assert tiles(p, "#board .rack-zone") == ["B7", "R5", "O7"]
    assert tiles(p, "#board [data-set='1']") == ["K1", "K2", "K3"]
    p.click("#solve")
    p.wait_for_selector("#result .headline")
    assert p.inner_text("#result .headline") == "Best move: play 3 tiles (19 points)."
    after = "#result .after"
    assert sorted(found(p, f"{after} .tile.played")) == ["B7", "O7", "R5"]
    assert [p.inner_text(f"{after} [data-set='{i}'] .badge") for i in range(3)] == ["unchanged", "rebuilt", "rebuilt"]
    # The steps one at a time, the table as it stands at each.
    steps = "#result .steps"
    assert p.inner_text(f"{steps} .step-now") == "Before the move (step 0 of 2)"
    p.click(f"{steps} [data-step='next']")
    assert p.inner_text(f"{steps} .step-now").startswith("Step 1 of 2: Put R5 from your rack in place of the J")
    assert tiles(p, f"{steps} .step-board [data-set='0']") == ["R4", "R5", "R6"]
    assert tiles(p, f"{steps} .step-board .aside") == ["J"]
    page.shot("analysis-best-move")
    p.click(f"{steps} [data-step='next']")
    assert tiles(p, f"{steps} .step-board [data-set='2']") == ["B7", "O7", "J"]
    assert p.is_disabled(f"{steps} [data-step='next']")
    p.click(f"{steps} [data-step='previous']")
    assert p.inner_text(f"{steps} .step-now").startswith("Step 1 of 2")
    # The position is in the address: a reload (or a shared link) shows it again.
    assert "rack=B7+R5+O7" in p.url and "set=R4+J+R6" in p.url
    p.reload()
    p.wait_for_selector("body[data-ready='true']")
    assert tiles(p, "#board .rack-zone") == ["B7", "R5", "O7"]
    assert tiles(p, "#board [data-set='0']") == ["R4", "J", "R6"]


def test_hints_come_one_by_one_on_the_analysis_board(page: Page) -> None:
    p = page.open("/?rack=R5+B7+O7&set=R4+J+R6&set=K1+K2+K3")
    p.focus("#hint")  # by the keyboard: the focus stays on the button while it is there to press
    p.keyboard.press("Enter")
    p.wait_for_selector("#hints .hint[data-level='1']")
    assert p.inner_text("#hints .hint[data-level='1']") == "Hint 1: you can play 3 tiles (19 points)."
    assert p.locator("#hints .hint").count() == 1 and p.inner_text("#hint") == "Hint 2"
    assert p.evaluate("document.activeElement.id") == "hint"
    p.keyboard.press("Enter")
    p.wait_for_selector("#hints .hint[data-level='2']")
    assert "Table sets involved: R4 J R6." in p.inner_text("#hints .hint[data-level='2']")
    assert p.evaluate("document.activeElement.id") == "hint"
    p.keyboard.press("Enter")
    p.wait_for_selector("#hints .hint[data-level='3'] li")
    assert p.is_disabled("#hint")
    assert p.evaluate("document.activeElement.dataset.level") == "3"  # on to the last hint


def test_the_rules_and_not_opened_yet_reach_the_solver(page: Page) -> None:
    p = page.open("/?rack=R10+R11+R12+K1+K2+K3")
    # An empty table: this turn is the initial meld, and the box says so.
    assert p.is_checked("#not-opened") and p.is_disabled("#not-opened")
    p.click("#rules-box summary")
    p.fill("#rules [name='meld-threshold']", "40")
    p.press("#rules [name='meld-threshold']", "Tab")
    assert "opened=no" in p.url and "meld-threshold=40" in p.url
    p.focus("#solve")
    p.keyboard.press("Enter")
    p.wait_for_selector("#result .headline")
    assert p.inner_text("#result .headline") == "No move: draw a tile."  # 33 + 6 points: short of 40
    assert p.evaluate("document.activeElement.id") == "solve"  # disabled while asked, then focused again
    p.fill("#rules [name='meld-threshold']", "30")
    p.press("#rules [name='meld-threshold']", "Tab")
    p.click("#solve")
    p.wait_for_selector("#result .headline")
    assert p.inner_text("#result .headline") == "Best move (initial meld): play 6 tiles (39 points)."
    # Sets on the table: the player's own choice again (opened, unless ticked).
    p.fill("#board .new-set input", "B1-3")
    p.press("#board .new-set input", "Enter")
    p.wait_for_selector("#board [data-set='0']")
    assert not p.is_checked("#not-opened") and not p.is_disabled("#not-opened")
    p.check("#not-opened")
    p.click("#clear")
    assert p.is_checked("#not-opened") and p.is_disabled("#not-opened")


def test_on_a_phone_an_error_comes_into_view(browser: Any, server: Server, screenshots: Path) -> None:
    """Best move far down the page, the message box far above it: the error is brought into view,
    and the focus stays on the button."""
    phone = Page(browser, server, screenshots, PHONE)
    p = phone.open("/?rack=B7+R5+R5+R5+R5+O7&set=R4+J+R6&set=K1+K2+K3&set=R1+R2")
    p.locator("#solve").scroll_into_view_if_needed()
    assert p.evaluate("scrollY") > p.evaluate("document.querySelector('#message').offsetTop")  # out of sight
    phone.expect_refusal()
    p.focus("#solve")
    p.keyboard.press("Enter")
    p.wait_for_selector("#message[data-kind='error']:not(:empty)")
    assert in_view(p, "#message"), p.inner_text("#message")
    assert p.evaluate("document.activeElement.id") == "solve"
    phone.shot("analysis-error-phone")
    phone.context.close()
    assert not phone.unexpected(), phone.errors


def test_uploading_a_position_file_fills_the_board(page: Page, tmp_path: Path) -> None:
    p = page.open("/")
    text = "title: Upload\nrules: wrap=american\nopened: no\nrack: R1 B12 B13\ntable:\n  B11 B12 B13\n"
    p.set_input_files("#upload", files=[{"name": "mine.txt", "mimeType": "text/plain", "buffer": text.encode()}])
    p.wait_for_selector("#message[data-kind='info']")
    assert p.inner_text("#message") == "Opened mine.txt: Upload."
    assert tiles(p, "#board .rack-zone") == ["B12", "B13", "R1"]
    assert tiles(p, "#board [data-set='0']") == ["B11", "B12", "B13"]
    assert p.is_checked("#not-opened") and p.input_value("#rules [name='wrap']") == "american"
    assert "wrap=american" in p.url and p.inner_text("#rules-summary") == "wrap=american, most tiles"
    page.shot("analysis-uploaded")
    page.expect_refusal()
    p.set_input_files("#upload", files=[{"name": "bad.txt", "mimeType": "text/plain", "buffer": b"rack: R1 R14\n"}])
    p.wait_for_selector("#message[data-kind='error']:not(:empty)")
    assert p.inner_text("#message") == "invalid tile 'R14' in rack in position file bad.txt line 1: numbers run 1..13"


def drag(p: Any, source: str, target: str) -> None:
    p.locator(source).drag_to(p.locator(target))


@pytest.mark.parametrize(
    ("query", "message", "rack"),
    [
        ("rack=R99+R5&set=R1+R2+R3", "in the link: invalid tile 'R99' in the typed tiles: numbers run 1..13", ["R5"]),
        ("jokers=abc&rack=R5", "in the link: jokers=abc: not a whole number", ["R5"]),
        ("numbers=99&rack=R5", "in the link: numbers=99: this server takes 2..26", ["R5"]),
        ("joker-in-meld=maybe&rack=R5+B5", "in the link: joker-in-meld=maybe: expected yes or no", ["B5", "R5"]),
        ("objective=score&rack=R5", "in the link: objective=score: expected tiles or points", ["R5"]),
        (
            "rack=R5&colors=3",
            "in the link: colors=3: not a part of a position's link (rack, set, opened, objective and the rules are)",
            ["R5"],
        ),
        ("rack=R5&objective=points&objective=tiles", "in the link: objective=tiles: objective is given twice (the first is read)", ["R5"]),
        ("rack=R5&wrap=full&wrap=none", "in the link: wrap=none: wrap is given twice (the first is read)", ["R5"]),
    ],
)
def test_a_link_with_a_bad_part_loads_the_rest_and_keeps_the_address(page: Page, query: str, message: str, rack: list[str]) -> None:
    page.expect_refusal()
    p = page.open(f"/?{query}")
    p.wait_for_selector("#message:not(:empty)")
    assert p.inner_text("#message") == message
    assert tiles(p, "#board .rack-zone") == rack
    assert p.url.endswith(f"/?{query}")  # the link as given, to fix by hand


def test_every_rack_part_of_a_link_is_read(page: Page) -> None:
    p = page.open("/?rack=R5&rack=B7+O7&set=K1+K2+K3")
    assert tiles(p, "#board .rack-zone") == ["B7", "R5", "O7"]
    assert p.inner_text("#message") == ""


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("id=split-run&level=9", "in the link: level=9: not a part of a puzzle's link (id is)"),
        ("id=split-run&id=group-swap", "in the link: id=group-swap: id is given twice (the first is read)"),
    ],
)
def test_a_puzzle_link_names_what_it_does_not_read(page: Page, query: str, message: str) -> None:
    p = page.open(f"/puzzles?{query}")
    assert p.inner_text("#puzzle-title") == "Split a long run"  # the rest is read
    p.wait_for_selector("#message:not(:empty)")
    assert p.inner_text("#message") == message


def test_a_rule_typed_out_of_bounds_says_what_it_became(page: Page) -> None:
    p = page.open("/?rack=R5")
    p.click("#rules-box summary")
    p.fill("#rules [name='jokers']", "2.5")
    p.press("#rules [name='jokers']", "Tab")
    p.wait_for_selector("#message:not(:empty)")
    assert p.inner_text("#message") == "jokers: 2.5 became 3 (whole numbers from 0 to 4 here)"


def test_a_run_keeps_its_joker_in_its_gap_when_tiles_join_it(page: Page) -> None:
    p = page.open("/?rack=R7+O9+B9&set=R4+J+R6")
    drag(p, "#board .rack-zone [data-tile='R7']", "#board [data-set='0']")
    assert tiles(p, "#board [data-set='0']") == ["R4", "J", "R6", "R7"]  # not R4 R6 R7 J
    drag(p, "#board [data-set='0'] [data-tile='J']", "#board .new-set")
    drag(p, "#board .rack-zone [data-tile='O9']", "#board [data-set='1']")
    drag(p, "#board .rack-zone [data-tile='B9']", "#board [data-set='1']")
    assert tiles(p, "#board [data-set='1']") == ["B9", "O9", "J"]  # a group: the joker last


def test_a_joker_keeps_its_place_when_tiles_join_its_run(page: Page) -> None:
    # Under strict jokers the order is what the joker stands for: J R4 R5 R6 holds R3, and R7
    # joining it must not turn it into R8 (R4 R5 R6 R7 J) behind the player's back.
    p = page.open("/?rack=R7+R3&set=J+R4+R5+R6&joker-rules=strict")
    drag(p, "#board .rack-zone [data-tile='R7']", "#board [data-set='0']")
    assert tiles(p, "#board [data-set='0']") == ["J", "R4", "R5", "R6", "R7"]
    assert "set=J+R4+R5+R6+R7" in p.url
    drag(p, "#board .rack-zone [data-tile='R3']", "#board [data-set='0']")
    assert tiles(p, "#board [data-set='0']") == ["R3", "R4", "R5", "R6", "R7", "J"]  # R3 took its place


def test_a_level_2_puzzle_solved_by_dragging_tiles(page: Page) -> None:
    p = page.open("/puzzles?id=shift-run")  # rack B4 K8 R8, table B5 B6 B7 B8
    drag(p, "#board .rack-zone [data-tile='B4']", "#board [data-set='0']")
    assert tiles(p, "#board [data-set='0']") == ["B4", "B5", "B6", "B7", "B8"]
    drag(p, "#board [data-set='0'] [data-tile='B8']", "#board .new-set")
    drag(p, "#board .rack-zone [data-tile='K8']", "#board [data-set='1']")
    drag(p, "#board .rack-zone [data-tile='R8']", "#board [data-set='1']")
    assert tiles(p, "#board [data-set='1']") == ["K8", "B8", "R8"]
    assert sorted(found(p, "#board .table-zone .tile.played")) == ["B4", "K8", "R8"]  # your tiles, highlighted
    p.click("#check")
    p.wait_for_selector("#verdict .verdict")
    assert p.get_attribute("#verdict .verdict", "data-verdict") == "optimal"
    assert p.inner_text("#verdict .verdict").startswith("Optimal! You play 3 tiles (20 points)")
    page.shot("trainer-solved-by-dragging")
    # Marked solved, and it stays so after a reload; the progress can be exported.
    assert p.get_attribute("#levels a[data-puzzle='shift-run']", "data-solved") == "true"
    p.reload()
    p.wait_for_selector("body[data-ready='true']")
    assert p.get_attribute("#levels a[data-puzzle='shift-run']", "data-solved") == "true"
    assert p.inner_text("#progress").startswith("1 of ")
    with p.expect_download() as download:
        p.click("#export")
    saved = Path(download.value.path())
    exported = json.loads(saved.read_text())
    assert exported["format"] == "rummikub-puzzle-progress" and list(exported["solved"]) == ["shift-run"]
    # Another browser (here: this one, forgotten) takes the progress back from the file.
    p.evaluate("localStorage.clear()")
    p.reload()
    p.wait_for_selector("body[data-ready='true']")
    assert p.inner_text("#progress").startswith("0 of ")
    p.set_input_files("#import", files=[{"name": "progress.json", "mimeType": "application/json", "buffer": saved.read_bytes()}])
    p.wait_for_selector("#levels a[data-puzzle='shift-run'][data-solved='true']")
    assert p.inner_text("#progress").startswith("1 of ")


def test_an_illegal_answer_shows_the_offending_set_marked(page: Page) -> None:
    p = page.open("/puzzles?id=split-run")  # rack B8 R2 O13, table B6-B10 and K1-K4
    # The last puzzle of level 2: the next is level 3's first, in the list's order.
    level_2 = [q.id for q in library() if q.difficulty == 2]
    assert level_2[-1] == "split-run"
    first_of_3 = next(q.id for q in library() if q.difficulty == 3)
    assert p.get_attribute("#next", "href") == f"/puzzles?id={first_of_3}"
    drag(p, "#board .rack-zone [data-tile='B8']", "#board [data-set='1']")
    p.click("#check")
    p.wait_for_selector("#verdict .verdict")
    assert p.get_attribute("#verdict .verdict", "data-verdict") == "illegal"
    bad = p.locator("#board [data-set='1']")
    assert "bad" in (bad.get_attribute("class") or "") and bad.get_attribute("aria-invalid") == "true"
    reason = bad.locator(".reasons li").inner_text()
    assert reason.startswith("set 2 'K1 K2 K3 K4 B8' is invalid")
    assert reason in p.inner_text("#verdict .verdict")  # the reason in words, with the verdict
    assert p.locator("#board [data-set='0'].bad").count() == 0
    page.shot("trainer-illegal")
    # Undo takes the tile back; the marks go with the change.
    p.click("#undo")
    assert p.locator("#board .set.bad").count() == 0 and tiles(p, "#board .rack-zone") == ["B8", "R2", "O13"]


def test_a_puzzle_solved_with_the_keyboard_only(page: Page) -> None:
    p = page.open("/puzzles?id=borrow-end")  # rack R6 O6, table K6-K9 and B6-B9
    for tile in ("#board .rack-zone [data-tile='R6']", "#board .rack-zone [data-tile='O6']", "#board [data-set='0'] [data-tile='K6']"):
        tab_to(p, tile)
        p.keyboard.press("Enter")  # picked up
    assert p.locator("#board .tile.selected").count() == 3
    tab_to(p, "#board [data-move-to='new']")
    p.keyboard.press("Enter")
    assert tiles(p, "#board [data-set='2']") == ["K6", "R6", "O6"]
    p.keyboard.press("Control+z")
    assert p.locator("#board [data-set]").count() == 2
    p.keyboard.press("Control+y")
    assert p.locator("#board [data-set]").count() == 3
    tab_to(p, "#check")
    p.keyboard.press("Enter")
    p.wait_for_selector("#verdict .verdict")
    assert p.get_attribute("#verdict .verdict", "data-verdict") == "optimal"
    page.shot("trainer-keyboard")


def test_a_run_split_from_the_keyboard(page: Page) -> None:
    p = page.open("/puzzles?id=split-run")
    tab_to(p, "#board [data-set='0'] [data-tile='B8']")
    p.keyboard.press("Space")
    tab_to(p, "#board [data-split='0']")
    p.keyboard.press("Enter")
    assert tiles(p, "#board [data-set='0']") == ["B6", "B7"] and tiles(p, "#board [data-set='1']") == ["B8", "B9", "B10"]
    tab_to(p, "#board .rack-zone [data-tile='B8']")
    p.keyboard.press("Enter")
    tab_to(p, "#board [data-move-to='set:0']")
    p.keyboard.press("Enter")
    tab_to(p, "#check")
    p.keyboard.press("Enter")
    p.wait_for_selector("#verdict .verdict")
    assert p.get_attribute("#verdict .verdict", "data-verdict") == "optimal"


def test_trainer_hints_then_the_answer_step_by_step(page: Page) -> None:
    p = page.open("/puzzles?id=group-swap")
    for level, words in ((1, "Hint 1: you can play 2 tiles (13 points)."), (2, "Table sets involved: K7 B7 R7; R8 R9 R10.")):
        p.click("#hint")
        p.wait_for_selector(f"#hints .hint[data-level='{level}']")
        assert words in p.inner_text(f"#hints .hint[data-level='{level}']")
    p.click("#hint")
    p.wait_for_selector("#hints .hint[data-level='3'] li")
    assert p.is_disabled("#hint") and p.inner_text("#hint") == "No more hints"
    p.click("#show")
    p.wait_for_selector("#answer .steps")
    assert sorted(found(p, "#answer .after .tile.played")) == ["O7", "R6"]
    p.click("#answer [data-step='next']")
    assert p.inner_text("#answer .step-now").startswith("Step 1 of 2: Swap O7 from your rack for R7 in K7 B7 R7")
    assert tiles(p, "#answer .step-board [data-set='0']") == ["K7", "B7", "O7"]
    page.shot("trainer-answer-steps")


def test_a_seed_that_makes_no_puzzle_is_passed_over_for_another(page: Page) -> None:
    """Seed 365349 makes no level-3 puzzle in its 400 deals: "Make one" landed on a 404."""
    import re

    p = page.open("/puzzles")
    page.expected.append("status of 404")  # the empty seed's answer, logged by the browser
    p.evaluate("sessionStorage.setItem('rummikub.made', '5')")  # as Make one leaves it
    p = page.open("/puzzles?id=gen-3-365349")
    p.wait_for_selector("#workspace:not([hidden])", timeout=120_000)
    assert re.search(r"id=gen-3-[0-9]+$", p.url) and "365349" not in p.url
    assert p.inner_text("#puzzle-info").startswith("Level 3.")


def test_a_new_puzzle_of_a_chosen_level(page: Page) -> None:
    """"Make one" generates a puzzle of the level chosen; its address names it, so a reload (or a
    friend) gets the same puzzle; the next link offers another of that level."""
    import re

    p = page.open("/puzzles")
    p.select_option("#generate-level", "2")
    p.click("#generate")
    p.wait_for_selector("#workspace:not([hidden])")
    made = re.search(r"id=(gen-2-[0-9]+)$", p.url)
    assert made is not None, p.url
    assert p.inner_text("#puzzle-title").startswith("Generated puzzle, seed ")
    assert p.inner_text("#puzzle-info").startswith("Level 2.")
    rack = tiles(p, "#board .rack-zone")
    assert rack and p.inner_text("#next") == "Another level 2 puzzle"
    assert re.fullmatch(r".*/puzzles\?id=gen-2-[0-9]+", p.get_attribute("#next", "href") or "")
    p.click("#show")
    p.wait_for_selector("#answer .steps")
    page.shot("trainer-generated")
    p.reload()
    p.wait_for_selector("#workspace:not([hidden])")
    assert tiles(p, "#board .rack-zone") == rack and p.input_value("#generate-level") == "2"
    # Generated puzzles solved are counted apart from the library's.
    solved = {made[1]: "2026-12-01T00:00:00Z", "split-run": "2026-12-01T00:00:00Z"}
    p.evaluate("s => localStorage.setItem('rummikub.solved', s)", json.dumps(solved))
    p.reload()
    p.wait_for_selector("body[data-ready='true']")
    assert p.inner_text("#progress") == f"1 of {len(library())} solved, and 1 generated puzzle."
    # An unknown puzzle's address: said for a person, not as the API's hint.
    page.expected.append("status of 404")
    p = page.open("/puzzles?id=nope")
    assert p.inner_text("#message") == "No puzzle 'nope': pick one from the list."
    assert not page.unexpected()


def test_on_a_phone_a_finger_drags_and_taps_tiles(browser: Any, server: Server, screenshots: Path) -> None:
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    p = context.new_page()
    errors: list[str] = []
    p.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    p.goto(server.url + "/puzzles?id=shift-run")
    p.wait_for_selector("body[data-ready='true']")
    p.tap("#board .rack-zone [data-tile='K8']")  # a tap picks a tile up, another puts it down
    assert found(p, "#board .tile.selected") == ["K8"]
    p.tap("#board .rack-zone [data-tile='K8']")
    assert found(p, "#board .tile.selected") == []
    source = p.locator("#board .rack-zone [data-tile='B4']").bounding_box()
    target = p.locator("#board [data-set='0']").bounding_box()
    x, y = source["x"] + source["width"] / 2, source["y"] + source["height"] / 2
    to_x, to_y = target["x"] + target["width"] / 2, target["y"] + target["height"] / 2
    touch = context.new_cdp_session(p)  # a finger: touch events, as a phone's screen sends them
    touch.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for i in range(1, 11):
        point = {"x": x + (to_x - x) * i / 10, "y": y + (to_y - y) * i / 10}
        touch.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    p.wait_for_function("document.querySelectorAll(\"#board [data-set='0'] [data-tile]\").length === 5")
    assert tiles(p, "#board [data-set='0']") == ["B4", "B5", "B6", "B7", "B8"]
    p.screenshot(path=str(screenshots / "trainer-phone-after-a-finger-drag.png"), full_page=True)
    context.close()
    assert not errors, errors


def test_building_a_position_from_the_palette(page: Page) -> None:
    p = page.open("/")
    p.click("#palette [data-tile='R5']")  # a click puts a copy on the rack
    p.click("#palette [data-tile='J']")
    assert tiles(p, "#board .rack-zone") == ["R5", "J"]
    drag(p, "#palette [data-tile='K9']", "#board .new-set")  # a drag onto the table makes a set
    drag(p, "#palette [data-tile='K10']", "#board [data-set='0']")
    assert tiles(p, "#board [data-set='0']") == ["K9", "K10"]
    assert p.input_value("#board [data-set-notation='0']") == "K9 K10"
    drag(p, "#board [data-set='0'] [data-tile='K10']", "#palette")  # dropped back: removed
    assert tiles(p, "#board [data-set='0']") == ["K9"]
    tab_to(p, "#board .rack-zone [data-tile='J']")
    p.keyboard.press("Delete")
    assert tiles(p, "#board .rack-zone") == ["R5"]
    # The focus stays on the board (the next tile), not back at the top of the page.
    assert p.evaluate("document.activeElement.dataset.tile") == "K9"
    p.fill("#board [data-set-notation='0']", "K9-11")  # a set retyped
    p.press("#board [data-set-notation='0']", "Enter")
    p.wait_for_selector("#board [data-set='0'] [data-tile='K11']")
    assert "set=K9+K10+K11" in p.url
    p.click("#undo")
    p.click("#undo")
    assert tiles(p, "#board .rack-zone") == ["R5", "J"] and tiles(p, "#board [data-set='0']") == ["K9"]


def set_is_marked(p: Any, index: int) -> bool:
    return bool(p.evaluate("i => document.querySelector(`#board [data-set='${i}']`)?.classList.contains('bad')", index))


def wait_marked(p: Any, count: int) -> None:
    """Wait until ``count`` sets are marked invalid (the server judges them after each change)."""
    deadline = time.monotonic() + 10
    while p.locator("#board .set.bad").count() != count:
        assert time.monotonic() < deadline, f"never {count} sets marked"
        time.sleep(0.03)


def test_every_invalid_table_set_is_marked_with_its_reason(page: Page) -> None:
    p = page.open("/?rack=R5+B7&set=K1+K2&set=R4+J+R6&set=K7+B7+R7+O7+K7")
    wait_marked(p, 2)
    assert [set_is_marked(p, i) for i in range(3)] == [True, False, True]
    assert p.inner_text("#message") == ""  # the link was read whole: the sets are the problem
    first, third = p.locator("#board [data-set='0']"), p.locator("#board [data-set='2']")
    # Said, not only coloured: "✗ not valid" and the reason on the page, both in the set's name.
    assert first.get_attribute("aria-label") == "set 1, 2 tiles, not valid: too short: 2 tiles, a set needs at least 3"
    assert third.get_attribute("aria-label") == "set 3, 5 tiles, not valid: colour repeats in a group (K7 twice)"
    assert first.get_attribute("aria-invalid") == "true" and p.locator("#board [data-set='1']").get_attribute("aria-invalid") is None
    assert first.locator(".reasons li").inner_text() == "too short: 2 tiles, a set needs at least 3"
    assert first.evaluate("e => getComputedStyle(e, '::before').content") == '"✗ not valid"'
    page.shot("board-invalid-sets")
    # A set typed into the new-set box is judged as it lands; one retyped right loses its mark.
    p.fill("#board [data-add-to='new'] input", "K1 K2")
    p.press("#board [data-add-to='new'] input", "Enter")
    wait_marked(p, 3)
    assert set_is_marked(p, 3)
    p.fill("#board [data-set-notation='0']", "K1-3")
    p.press("#board [data-set-notation='0']", "Enter")
    wait_marked(p, 2)
    assert [set_is_marked(p, i) for i in range(4)] == [False, False, True, True]
    # Under other rules, by those rules: sets of two tiles allowed.
    page.open("/?rack=R5&set=K1+K2&set=K1+B2&min-set-size=2")
    wait_marked(p, 1)
    assert [set_is_marked(p, i) for i in range(2)] == [False, True]


def test_marks_follow_the_rules_and_never_outlive_them(page: Page) -> None:
    """Marks of other rules stayed: "a set needs at least 3" under min-set-size 2, and after a
    refused request (fewer colours than the table's tiles) the old marks stayed for good."""
    p = page.open("/?set=K1+K2&set=O11+O12+O13")
    wait_marked(p, 1)
    p.click("#rules-box summary")
    p.fill("#rules [name='min-set-size']", "2")
    p.press("#rules [name='min-set-size']", "Tab")
    wait_marked(p, 0)
    p.fill("#rules [name='min-set-size']", "3")
    p.press("#rules [name='min-set-size']", "Tab")
    wait_marked(p, 1)
    page.expected.append("status of 400")
    p.fill("#rules [name='colours']", "3")  # O11 is a tile of no colour these rules have: refused
    p.press("#rules [name='colours']", "Tab")
    wait_marked(p, 0)


def test_the_palette_refuses_a_tile_of_which_every_copy_is_out(page: Page) -> None:
    """Two copies and two jokers: a third is refused at once, and the palette tile is marked."""
    p = page.open("/?rack=R5&set=R4+R5+R6")
    r5 = "#palette [data-tile='R5']"
    assert p.get_attribute(r5, "aria-disabled") == "true" and "used-up" in (p.get_attribute(r5, "class") or "")
    assert p.get_attribute(r5, "aria-label") == "red 5: all on the board"
    p.click(r5, force=True)  # aria-disabled: Playwright would wait for it to be enabled
    assert p.inner_text("#message") == "no R5 left to add: the rules have 2, all on the board"
    assert tiles(p, "#board .rack-zone") == ["R5"]
    p.locator(r5).drag_to(p.locator("#board .new-set"), force=True)  # nor by a drag
    assert p.locator("#board [data-set]").count() == 1
    p.click("#palette [data-tile='J']")
    p.click("#palette [data-tile='J']")
    assert p.get_attribute("#palette [data-tile='J']", "aria-disabled") == "true"
    p.click("#palette [data-tile='J']", force=True)
    assert tiles(p, "#board .rack-zone") == ["R5", "J", "J"]
    assert p.inner_text("#message") == "no J left to add: the rules have 2, all on the board"
    # One taken off the board: the palette offers it again.
    tab_to(p, "#board .rack-zone [data-tile='R5']")
    p.keyboard.press("Delete")
    assert p.get_attribute(r5, "aria-disabled") == "false" and p.get_attribute(r5, "aria-label") == "add red 5 to the rack"
    page.shot("analysis-palette-used-up")


def test_typed_tiles_past_the_copies_are_refused_and_a_link_holding_them_says_so(page: Page) -> None:
    p = page.open("/?rack=R5&set=R4+R5+R6")
    p.fill("#board .rack-zone input", "K1 R5")
    p.press("#board .rack-zone input", "Enter")
    p.wait_for_selector("#message:not(:empty)")
    assert p.inner_text("#message") == "too many R5: 3 with those typed, the rules have 2"
    assert tiles(p, "#board .rack-zone") == ["R5"] and p.input_value("#board .rack-zone input") == "K1 R5"
    p = page.open("/?rack=R5+R5+R5")
    p.wait_for_selector("#message:not(:empty)")
    assert p.inner_text("#message") == "in the link: R5 3 times: the rules have 2"
    assert tiles(p, "#board .rack-zone") == ["R5", "R5", "R5"]  # shown as given, to mend


def test_the_keyboard_skips_to_the_board_and_past_the_palette(page: Page) -> None:
    """A skip link first; the palette is one Tab stop, its tiles reached with the arrow keys."""
    p = page.open("/?rack=R5")
    p.keyboard.press("Tab")
    assert p.evaluate("document.activeElement.textContent") == "Skip to the board"
    p.keyboard.press("Enter")
    tab_to(p, "#board .rack-zone [data-tile='R5']", presses=5)
    presses = 0
    while not p.evaluate("document.activeElement.id === 'solve'"):
        p.keyboard.press("Tab")
        presses += 1
        assert presses < 30, "Best move is still far from the rack"
    # In the palette: Right goes along a colour, Down to the next colour, Enter adds the tile.
    tab_to(p, "#palette [data-palette]", presses=40)
    assert p.evaluate("document.activeElement.dataset.tile") == "K1"
    for key in ("ArrowRight", "ArrowRight", "ArrowDown"):
        p.keyboard.press(key)
    assert p.evaluate("document.activeElement.dataset.tile") == "B3"
    p.keyboard.press("Enter")
    assert tiles(p, "#board .rack-zone") == ["B3", "R5"]
    p.keyboard.press("Shift+Tab")  # one Tab stop for the whole palette
    assert p.evaluate("document.activeElement.closest('#palette') === null")
    page.open("/puzzles?id=split-run")
    p.keyboard.press("Tab")
    assert p.evaluate("document.activeElement.textContent") == "Skip to the puzzle"
    p.keyboard.press("Enter")
    tab_to(p, "#undo", presses=3)


def test_a_joker_keeps_its_place_in_a_run_written_descending(page: Page) -> None:
    # K6 K5 J fits no ascending reading: read descending, its joker is K4. K7 joining it keeps
    # the joker K4 (J K5 K6 K7), as the game editor does, instead of making it K8.
    p = page.open("/?rack=K7+K4+O1&set=K6+K5+J&joker-rules=strict")
    p.click("#board .rack-zone [data-tile='K7']")
    p.click("#board [data-set='0'] .move-here")
    assert tiles(p, "#board [data-set='0']") == ["J", "K5", "K6", "K7"]
    assert "set=J+K5+K6+K7" in p.url


def test_an_emptied_rule_keeps_its_value_and_says_so(page: Page) -> None:
    p = page.open("/?rack=R5")
    p.click("#rules-box summary")
    numbers = "#rules [name='numbers']"
    p.fill(numbers, "9")
    p.press(numbers, "Tab")
    p.fill(numbers, "")
    p.press(numbers, "Tab")
    p.wait_for_selector("#message:not(:empty)")
    assert p.input_value(numbers) == "9"  # not the minimum, 2
    assert p.inner_text("#message") == "numbers: left empty, it stays 9"
    assert "numbers=9" in p.url
