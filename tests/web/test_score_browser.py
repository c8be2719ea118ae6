"""The score sheet page in a real browser: the docs' three rounds entered by a person, the file
it saves the one `rummikub score` writes for the same rounds, kept across a reload, a round
corrected, a refused round keeping what was typed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from cli.main import cli
from tests.web.conftest import PHONE, Page, Server
from tests.web.test_browser import cut_options


def enter_round(p: Any, winner: str, racks: dict[str, str], never_opened: tuple[str, ...] = ()) -> None:
    p.check(f"input[name='winner'][value='{winner}']")
    for player, rack in racks.items():
        p.fill(f"#racks tr[data-player='{player}'] input.rack", rack)
    for player in never_opened:
        p.check(f"#racks tr[data-player='{player}'] input.never_opened")
    p.click("#enter")


def cli_sheet(folder: Path) -> str:
    """The docs' example at the command line (docs/commands.md), the file it leaves."""
    path = str(folder / "game.json")
    runner = CliRunner()
    for args in (
        ["new", path, "--players", "Ann,Bob,Cy", "--scoring", "club"],
        ["round", path, "--winner", "Ann", "--rack", "Bob=R5 K12 J", "--rack", "Cy=23"],
        ["round", path, "--blocked", "--rack", "Ann=R3 R4", "--rack", "Bob=R2 R3", "--rack", "Cy=O13", "--never-opened", "Cy"],
        ["fix", path, "1", "--winner", "Ann", "--rack", "Bob=R5 K12 J", "--rack", "Cy=25"],
    ):
        assert runner.invoke(cli, ["score", *args]).exit_code == 0
    return (folder / "game.json").read_text()


def test_a_game_scored_as_rummikub_score_scores_it(page: Page, tmp_path: Path) -> None:
    p = page.open("/score")
    p.fill("#players", "Ann, Bob, Cy")
    p.select_option("#scoring", "club")
    p.click("#new-sheet button[type='submit']")
    p.wait_for_selector("#round-card:not([hidden])")
    assert p.inner_text("#sheet-settings") == "club scoring, a joker 100; 0 rounds."
    enter_round(p, "Ann", {"Bob": "R5 K12 J", "Cy": "23"})
    p.wait_for_selector("#sheet tr[data-round='1']")
    assert p.is_disabled("#racks tr[data-player='Ann'] input.rack") is False  # a fresh form
    # A mistake is one line, and what was typed stays.
    page.expect_refusal()
    enter_round(p, "", {"Ann": "R3 R4", "Bob": "R2 R99", "Cy": "O13"}, ("Cy",))
    p.wait_for_selector("#message:not(:empty)")
    assert p.inner_text("#message") == "round 2: racks 'Bob=R2 R99': invalid tile 'R99': numbers run 1..13"
    assert p.input_value("#racks tr[data-player='Ann'] input.rack") == "R3 R4"
    p.fill("#racks tr[data-player='Bob'] input.rack", "R2 R3")
    p.click("#enter")
    p.wait_for_selector("#sheet tr[data-round='2']")
    assert p.inner_text("#sheet tr[data-notes-for='2'] td.notes") == "blocked; Cy never opened"
    assert p.inner_text("#message") == "Round 2 entered."
    # Round 1 corrected: Cy held 25, not 23.
    p.click("#sheet tr[data-round='1'] button")
    assert p.inner_text("#round-title") == "Correct round 1"
    assert p.inner_text("#message") == ""  # round 2's news is stale once a correction starts
    assert p.input_value("#racks tr[data-player='Cy'] input.rack") == "23"
    assert p.is_disabled("#racks tr[data-player='Ann'] input.rack")  # the winner's
    p.fill("#racks tr[data-player='Cy'] input.rack", "25")
    p.click("#enter")
    p.wait_for_selector("text=Round 1 corrected.")
    cells = [c.strip() for c in p.locator("#sheet tr[data-round='1'] td.score").all_inner_texts()]
    assert cells == ["+142 (142)", "-117 (-117)", "-25 (-25)"]
    assert [li.strip() for li in p.locator("#standings li").all_inner_texts()] == [
        "Ann: 1 big point, 140 small points",
        "Bob: 1 big point, -15 small points",
        "Cy: 0 big points, -125 small points",
    ]
    page.shot("score-sheet-desktop")
    with p.expect_download() as download:
        p.click("#download")
    saved = Path(download.value.path()).read_text()
    assert saved == cli_sheet(tmp_path)  # the very file the command writes
    # Kept in this browser: a reload shows the same sheet, ready for round 3.
    p.reload()
    p.wait_for_selector("body[data-ready='true']")
    assert p.inner_text("#round-title") == "Round 3"
    assert not page.unexpected()


def test_a_score_file_from_the_command_line_opens_on_a_phone(browser: Any, server: Server, screenshots: Path, tmp_path: Path) -> None:
    phone = Page(browser, server, screenshots, PHONE)
    p = phone.open("/score")
    assert cut_options(p, "#start") == []
    path = tmp_path / "game.json"
    path.write_text(cli_sheet(tmp_path))
    p.set_input_files("#open-first", str(path))
    p.wait_for_selector("#sheet tr[data-round='2']")
    assert p.inner_text("#message") == "Opened game.json."
    phone.shot("score-sheet-phone")
    assert p.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    # The club round form fits, its "Could have opened" column too (no sideways scrolling).
    assert p.evaluate("(e => e.scrollWidth <= e.clientWidth)(document.querySelector('#round-card .table-scroll'))")
    p.locator("#round-card").screenshot(path=str(phone.screenshots / "score-round-form-phone.png"))
    bad = tmp_path / "notes.json"
    bad.write_text(json.dumps({"format": "rummikub-score-sheet", "version": 2}))
    phone.expect_refusal()
    p.set_input_files("#open", str(bad))
    p.wait_for_selector("text=format version 2 is not supported")
    assert p.inner_text("#message") == (
        "notes.json: score file in the request: format version 2 is not supported (this program reads 1)"
    )
    assert p.locator("#sheet tr[data-round='2']").count() == 1  # the sheet shown stays
    # Equal totals, equal places: as `score show` ranks them (1. Ann, 2. Bob, 2. Cy).
    tied = tmp_path / "tied.json"
    for args in (["new", str(tied), "--players", "Ann,Bob,Cy"], ["round", str(tied), "--winner", "Ann", "--rack", "Bob=30", "--rack", "Cy=30"]):
        assert CliRunner().invoke(cli, ["score", *args]).exit_code == 0
    p.set_input_files("#open", str(tied))
    p.wait_for_selector("text=Opened tied.json.")
    standings = p.locator("#standings li")
    assert standings.evaluate_all("items => items.map(li => [li.value, li.textContent])") == [
        [1, "Ann: 60"], [2, "Bob: -30"], [2, "Cy: -30"]
    ]
    phone.context.close()
    assert not phone.unexpected(), phone.errors


def fits(p: Any, selector: str) -> bool:
    return bool(p.evaluate("s => (e => e.scrollWidth <= e.clientWidth)(document.querySelector(s))", selector))


def test_four_players_sheet_with_notes_fits_400_pixels_and_a_wider_one_shows_it_scrolls(browser: Any, server: Server, screenshots: Path) -> None:
    narrow = Page(browser, server, screenshots, {"width": 400, "height": 844})
    p = narrow.open("/score")
    p.fill("#players", "Ann, Bob, Cy, Dee")
    p.select_option("#scoring", "club")
    p.click("#new-sheet button[type='submit']")
    p.wait_for_selector("#round-card:not([hidden])")
    enter_round(p, "Ann", {"Bob": "R5 K12 J", "Cy": "23", "Dee": "17"})
    p.wait_for_selector("#sheet tr[data-round='1']")
    enter_round(p, "Bob", {"Ann": "R5 K12 J R13 B13", "Cy": "123", "Dee": "12"}, ("Ann", "Cy"))
    p.wait_for_selector("#sheet tr[data-round='2']")
    p.locator("#sheet-card").screenshot(path=str(screenshots / "score-sheet-400.png"))
    # The notes take a row under their round, spanning the sheet: no column cut off.
    assert p.inner_text("#sheet tr[data-notes-for='2'] td.notes") == "Ann never opened; Cy never opened"
    assert p.locator("#sheet th", has_text="Notes").count() == 0
    assert fits(p, "#sheet-card .table-scroll")
    narrow.context.close()
    assert not narrow.unexpected(), narrow.unexpected()
    # Six players' sheet is wider than the screen: it scrolls, a shadow at its edge the cue.
    narrow = Page(browser, server, screenshots, {"width": 400, "height": 844})
    p = narrow.open("/score")
    p.fill("#players", "Annabelle, Bob, Cy, Dee, Ed, Flo")
    p.click("#new-sheet button[type='submit']")
    p.wait_for_selector("#round-card:not([hidden])")
    enter_round(p, "Bob", {"Annabelle": "10", "Cy": "11", "Dee": "12", "Ed": "13", "Flo": "14"})
    p.wait_for_selector("#sheet tr[data-round='1']")
    assert not fits(p, "#sheet-card .table-scroll")
    cue = p.evaluate("getComputedStyle(document.querySelector('#sheet-card .table-scroll')).backgroundImage")
    assert cue.count("radial-gradient") == 2
    narrow.context.close()
    assert not narrow.unexpected(), narrow.unexpected()


def test_a_blocked_round_whose_lowest_racks_tie_names_its_winner(page: Page, tmp_path: Path) -> None:
    p = page.open("/score")
    p.fill("#players", "Ann, Bob, Cy")
    p.click("#new-sheet button[type='submit']")
    p.wait_for_selector("#round-card:not([hidden])")
    assert p.is_hidden("#blocked-winner-field")  # only a blocked round may need it
    page.expect_refusal()
    enter_round(p, "", {"Ann": "10", "Bob": "R10", "Cy": "J"})
    p.wait_for_selector("#message:not(:empty)")
    assert p.inner_text("#message") == "round 1: blocked: Ann and Bob tie for the lowest rack (10): name the winner"
    assert p.is_visible("#blocked-winner-field")
    field = p.get_by_label("If the lowest racks tie, who wins the blocked round?")
    field.select_option("Bob")
    page.shot("score-blocked-tie")
    p.click("#enter")
    p.wait_for_selector("#sheet tr[data-round='1']")
    assert p.inner_text("#sheet tr[data-round='1'] td:nth-child(2)") == "Bob"
    assert p.inner_text("#sheet tr[data-notes-for='1'] td.notes") == "blocked"
    # Corrected (Cy held 40, not a joker), the round keeps the winner it named.
    p.click("#sheet tr[data-round='1'] button")
    assert p.is_checked("input[name='winner'][value='']") and field.input_value() == "Bob"
    p.fill("#racks tr[data-player='Cy'] input.rack", "40")
    p.click("#enter")
    p.wait_for_selector("text=Round 1 corrected.")
    kept = p.evaluate("JSON.parse(localStorage.getItem('rummikub.score-sheet'))")
    assert kept["rounds"] == [{"winner": "Bob", "racks": {"Ann": 10, "Bob": "R10", "Cy": 40}, "blocked": True}]
    # As the command line enters the same round.
    path = str(tmp_path / "game.json")
    for args in (["new", path, "--players", "Ann,Bob,Cy"], ["round", path, "--blocked", "--winner", "Bob", "--rack", "Ann=10", "--rack", "Bob=R10", "--rack", "Cy=40"]):
        result = CliRunner().invoke(cli, ["score", *args])
        assert result.exit_code == 0, result.output
    assert json.loads(Path(path).read_text())["rounds"] == kept["rounds"]
