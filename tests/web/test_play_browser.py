"""Playing and reviewing in a real browser (Chromium through Playwright) against ``rummikub serve``:
a short game against the easy AI played to its end by dragging tiles (a refused move, an undo, a
reload mid-turn), the AI's changed sets checked against the game's record, the record reviewed
turn by turn; screenshots in tests/web/screenshots/."""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.game.records import parse_record
from solver.rules import RuleSet
from tests.web.conftest import DESKTOP, PHONE, Page, Server
from tests.web.moves import easy_move
from tests.web.test_browser import cut_options, drag, found, tab_to, tiles

# As in test_play_api: with these rules and seed a person playing as the easy AI goes out on turn 21.
RULES = RuleSet(numbers=6, meld_threshold=0)


def until(p: Any, function: str, arg: Any = None, seconds: float = 30) -> None:
    """Wait until ``function(arg)`` is true in the page (polled: the page's policy forbids the
    string evaluation Playwright's wait_for_function would need)."""
    deadline = time.monotonic() + seconds
    while not p.evaluate(function, arg):
        assert time.monotonic() < deadline, f"timed out waiting for {function} ({arg!r})"
        time.sleep(0.03)


def new_game(p: Any, seed: int = 131) -> None:
    p.select_option("#seat-2", "easy")
    p.fill("#seed", str(seed))
    p.fill("#rack-size", "6")
    p.click("#rules-box summary")
    p.fill("#rules [name='numbers']", "6")
    p.fill("#rules [name='meld-threshold']", "0")
    p.press("#rules [name='meld-threshold']", "Tab")
    assert p.inner_text("#rules-summary") == "numbers=6, meld-threshold=0"
    p.click("#start")
    p.wait_for_selector("#game:not([hidden])")
    your_turn(p)


def your_turn(p: Any) -> None:
    """Wait until the person is to move (the AI's turns come by themselves) or the round is over."""
    until(p, "() => document.body.dataset.toMove === '1' || !document.querySelector('#end').hidden")


def table(p: Any) -> list[list[str]]:
    count = p.locator("#board [data-set]").count()
    return [tiles(p, f"#board [data-set='{i}']") for i in range(count)]


def lay_first_by_keyboard(p: Any, rack: list[str]) -> None:
    """The rack's first tile laid as a new set with the keyboard alone (Enter picks, Enter lays)."""
    tab_to(p, f"#board .rack-zone [data-tile='{rack[0]}']")
    p.keyboard.press("Enter")
    tab_to(p, "#board [data-move-to='new']")
    p.keyboard.press("Enter")
    wait_count(p, "#board .rack-zone", len(rack) - 1)


def wait_count(p: Any, selector: str, count: int) -> None:
    until(p, "([s, n]) => document.querySelectorAll(s).length === n", [f"{selector} [data-tile]", count])


def lay(p: Any, new_set: tuple[str, ...]) -> None:
    """A new set by dragging: the first tile onto the new-set area, the others onto that set."""
    index = p.locator("#board [data-set]").count()
    drag(p, f"#board .rack-zone [data-tile='{new_set[0]}']", "#board .new-set")
    wait_count(p, f"#board [data-set='{index}']", 1)
    for k, tile in enumerate(new_set[1:], 2):
        drag(p, f"#board .rack-zone [data-tile='{tile}']", f"#board [data-set='{index}']")
        wait_count(p, f"#board [data-set='{index}']", k)


def add(p: Any, index: int, added: tuple[str, ...]) -> None:
    for tile in added:
        before = len(tiles(p, f"#board [data-set='{index}']"))
        drag(p, f"#board .rack-zone [data-tile='{tile}']", f"#board [data-set='{index}']")
        wait_count(p, f"#board [data-set='{index}']", before + 1)


def end_turn(p: Any, button: str) -> None:
    turn = p.evaluate("document.body.dataset.turn")
    p.click(button)
    until(
        p,
        "t => document.body.dataset.turn !== t && (document.body.dataset.toMove === '1' || !document.querySelector('#end').hidden)",
        turn,
    )


def sets_key(sets: Any) -> list[tuple[str, ...]]:
    return sorted(tuple(sorted(s)) for s in sets)


def test_a_short_game_played_to_its_end_by_dragging_tiles(
    browser: Any, server: Server, screenshots: Path, tmp_path: Path
) -> None:
    page = Page(browser, server, screenshots, DESKTOP)
    p = page.open("/play")
    page.shot("play-new-game-desktop")
    new_game(p)
    game_url = p.url
    assert "/play?id=" in game_url
    highlighted: dict[int, list[tuple[str, ...]]] = {}  # turn -> sets framed as changed since yours
    ai_played: dict[int, list[str]] = {}
    refused = reloaded = False
    human_turns = 0
    while p.locator("#end").is_hidden():
        human_turns += 1
        assert human_turns < 30, "the game does not end"
        turn = int(p.evaluate("document.body.dataset.turn"))
        # The AI's turn since yours: its tiles, and the sets it changed framed on your board.
        for item in p.locator("#since-list .since-turn").all():
            laid = found(item, ".since-head-line .tile")
            if laid:
                ai_played[int(item.get_attribute("data-turn"))] = laid
                highlighted[turn] = sets_key(
                    [found(s, "[data-tile]") for s in p.locator("#board .set.others-changed").all()]
                )
                assert sets_key([found(s, "[data-tile]") for s in item.locator(".since-table .set.touched").all()]) == highlighted[turn]
                if len(ai_played) == 1:
                    # Its steps, one at a time (the library's, from the table before and after).
                    item.locator("button[data-steps]").click()
                    item.locator(".steps [data-step='next']").click()
                    assert item.locator(".step-now").inner_text().startswith("Step 1 of ")
                    page.shot("play-ai-turn-desktop")
                elif len(ai_played) == 2:
                    # All at once: every step with the table after it.
                    p.select_option("#steps-mode", "all")
                    item.locator("button[data-steps]").click()
                    item.locator(".steps-all li").first.wait_for()
                    shown = item.locator(".steps-all > li").count()
                    assert shown >= 1 and item.locator(".steps-all > li .sets").count() == shown
        rack = tiles(p, "#board .rack-zone")
        opened = p.inner_text("#players [data-player='1'] .opened") == "opened"
        assert p.get_attribute("#players [data-player='1']", "data-rack") == str(len(rack))
        if not refused:
            # A move the rules refuse: one tile alone in a new set. Every problem is listed and the
            # set is marked; Undo takes the tile back.
            page.expect_refusal()
            count = len(table(p)) + 1
            drag(p, f"#board .rack-zone [data-tile='{rack[0]}']", "#board .new-set")
            wait_count(p, f"#board [data-set='{count - 1}']", 1)
            p.click("#done")
            p.wait_for_selector("#problems [data-verdict='refused']")
            bad = p.locator(f"#board [data-set='{count - 1}']")
            assert "bad" in (bad.get_attribute("class") or "") and bad.get_attribute("aria-invalid") == "true"
            assert "too short: 1 tile" in bad.locator(".reasons li").first.inner_text()
            assert "too short: 1 tile" in p.inner_text("#problems")
            page.shot("play-refused-desktop")
            p.click("#undo")
            wait_count(p, "#board .rack-zone", len(rack))
            assert p.locator("#board .set.bad").count() == 0 and not p.inner_text("#problems").startswith("The turn")
            refused = True
        move = easy_move(rack, table(p), opened, RULES)
        if move is None:
            end_turn(p, "#draw")
            continue
        steps: list[tuple[str, Any]] = [("add", a) for a in move.added] + [("lay", s) for s in move.laid]
        for k, (kind, what) in enumerate(steps):
            if kind == "add":
                add(p, what[0], what[1])
            else:
                lay(p, what)
            if not reloaded and k == 0:
                # A reload in the middle of the turn: the same game, the turn as it was left.
                before = (table(p), tiles(p, "#board .rack-zone"))
                page.shot("play-mid-turn-desktop")
                p.reload()
                p.wait_for_selector("body[data-ready='true']")
                your_turn(p)
                assert p.url == game_url and (table(p), tiles(p, "#board .rack-zone")) == before
                reloaded = True
        end_turn(p, "#done")
    assert refused and reloaded and ai_played, (refused, reloaded, ai_played)
    end_text = p.inner_text("#end-text")
    assert p.locator("#scores tr[data-player]").count() == 2
    page.shot("play-end-desktop")
    with p.expect_download() as download:
        p.click("#download")
    saved = tmp_path / "game.jsonl"
    saved.write_text(Path(download.value.path()).read_text())
    record = parse_record(saved.read_text())
    assert record.result is not None and len(record.turns) < 40
    assert f"· turn {len(record.turns)} ·" in p.inner_text("#round-info")  # the last turn played
    said = {
        (0, "rack_empty"): "You emptied your rack: you win.",
        (1, "rack_empty"): "easy emptied the rack and wins.",
        (0, "blocked"): "You have the lowest rack: you win (the pool is empty and everybody passed).",
        (1, "blocked"): "easy has the lowest rack and wins (the pool is empty and everybody passed).",
    }
    assert end_text == said.get((record.result.winner, record.result.reason), end_text)
    assert record.result.winner is not None or end_text.startswith("Blocked: a tie")
    # The AI's turns as the page showed them: the tiles it played and the sets it changed.
    for number, laid in ai_played.items():
        turn = record.turns[number - 1]
        assert turn.player == 2 and Counter(laid) == Counter(str(t) for t in turn.played)
        before = Counter(tuple(sorted(str(t) for t in s)) for s in turn.table)
        changed = [tuple(sorted(str(t) for t in s)) for s in turn.table_after]
        expected = sorted((Counter(changed) - before).elements())
        assert highlighted[number + 1] == expected, number
    assert CliRunner().invoke(cli, ["analyze", str(saved)]).exit_code == 0  # analyze reads it
    # Review this game: every turn judged, stepped through one by one.
    expected_labels = [t["label"] for t in json.loads(CliRunner().invoke(cli, ["analyze", str(saved), "--json"]).stdout)["turns"]]
    p.click("#review")
    p.wait_for_url("**/review?id=*")
    p.wait_for_selector("body[data-judged='true']", timeout=60_000)
    labels = [b.get_attribute("data-label") for b in p.locator("#turns .label").all()]
    assert labels == expected_labels
    assert p.inner_text("#turn-title").startswith(f"Turn 1 of {len(record.turns)}")
    for number in range(2, 6):
        p.keyboard.press("ArrowRight")
        until(p, "n => document.querySelector('#turn-title').textContent.startsWith(`Turn ${n} of`)", number)
        p.wait_for_selector(f"#verdict[data-label='{expected_labels[number - 1]}']")
    assert p.locator("#summary tr[data-player]").count() == 2
    page.shot("review-of-the-game-desktop")
    page.context.close()
    assert not page.unexpected(), page.unexpected()


def test_a_recorded_game_uploaded_and_reviewed_turn_by_turn(page: Page, tmp_path: Path) -> None:
    made = CliRunner().invoke(
        cli, ["selfplay", "--games", "1", "--ai", "hard,easy", "--seed", "5", "--record", str(tmp_path), "--numbers", "8"]
    )
    assert made.exit_code == 0, made.output
    [path] = tmp_path.glob("*.jsonl")
    analysed = json.loads(CliRunner().invoke(cli, ["analyze", str(path), "--json"]).stdout)
    p = page.open("/review")
    p.set_input_files("#upload", files=[{"name": path.name, "mimeType": "text/plain", "buffer": path.read_bytes()}])
    p.wait_for_selector("body[data-judged='true']", timeout=60_000)
    turns = analysed["turns"]
    assert [b.get_attribute("data-label") for b in p.locator("#turns .label").all()] == [t["label"] for t in turns]
    # Step to a turn that was not the best move: played and better side by side.
    worse = next(t for t in turns if t["label"] not in ("best", "illegal") and t["better"]["played"])
    p.click(f"#turns button[data-turn='{worse['turn']}']")
    p.wait_for_selector(f"#verdict[data-label='{worse['label']}']")
    assert sorted(found(p, "#better .sets .tile.played")) == sorted(worse["better"]["played"])
    assert sorted(found(p, "#played .sets .tile.played")) == sorted(worse["played"])
    page.shot("review-desktop")
    p.click("#previous")
    until(p, "n => document.querySelector('#turn-title').textContent.startsWith(`Turn ${n} of`)", worse["turn"] - 1)
    summary = {s["player"]: s for s in analysed["summary"]}
    for row in p.locator("#summary tr[data-player]").all():
        cells = [c.inner_text() for c in row.locator("td").all()]
        want = summary[int(row.get_attribute("data-player"))]
        assert cells[1] == f"{want['accuracy']}%" and cells[4] == str(want["turns"])
    # Judged by points instead: every label again, as `analyze --objective points` gives them.
    by_points = json.loads(CliRunner().invoke(cli, ["analyze", str(path), "--json", "--objective", "points"]).stdout)
    p.select_option("#objective", "points")
    p.wait_for_selector("body[data-judged='true']", timeout=60_000)
    assert [b.get_attribute("data-label") for b in p.locator("#turns .label").all()] == [t["label"] for t in by_points["turns"]]
    assert "Points played" in p.inner_text("#summary")
    for row in p.locator("#summary tr[data-player]").all():
        want = next(s for s in by_points["summary"] if s["player"] == int(row.get_attribute("data-player")))
        cells = [c.inner_text() for c in row.locator("td").all()]
        assert cells[1:4] == [f"{want['accuracy']}%", str(want["points_played"]), str(want["optimal_points"])]
    page.shot("review-by-points-desktop")
    # A reload keeps the review, the turn shown and the measure.
    p.reload()
    p.wait_for_selector("body[data-ready='true']")
    assert p.inner_text("#turn-title").startswith(f"Turn {worse['turn'] - 1} of")
    assert p.input_value("#objective") == "points"
    # A link to a turn past the record's end opens its last turn, and says so.
    review = re.search(r"[?&]id=([^&]+)", p.url)
    assert review is not None
    count = len(turns)
    p = page.open(f"/review?id={review[1]}&turn=999")
    assert p.inner_text("#message") == f"in the link: turn=999: the record has {count} turns"
    assert p.inner_text("#turn-title").startswith(f"Turn {count} of {count}")
    # A record of a game quit before the first move: said so, with no board and no accuracy.
    empty = tmp_path / "quit.jsonl"
    quit = CliRunner().invoke(cli, ["play", "--seed", "3", "--record", str(empty)], input="quit\n")
    assert quit.exit_code == 0, quit.output
    p.set_input_files("#upload", files=[{"name": empty.name, "mimeType": "text/plain", "buffer": empty.read_bytes()}])
    p.wait_for_selector("#about .note")
    assert p.inner_text("#about .note") == "This record has no turns: there is nothing to review."
    assert p.is_hidden("#review") and "%" not in p.inner_text("body")
    page.shot("review-no-turns-desktop")


def test_a_player_with_no_turn_has_no_accuracy_in_the_review(page: Page, tmp_path: Path) -> None:
    """medium starts (seed 1) and the person quits at once: the person's accuracy is a dash."""
    record = tmp_path / "quit.jsonl"
    assert CliRunner().invoke(cli, ["play", "--seed", "1", "--record", str(record)], input="quit\n").exit_code == 0
    p = page.open("/review")
    p.set_input_files("#upload", files=[{"name": record.name, "mimeType": "text/plain", "buffer": record.read_bytes()}])
    p.wait_for_selector("body[data-judged='true']", timeout=60_000)
    rows = {row.get_attribute("data-player"): row for row in p.locator("#summary tr[data-player]").all()}
    assert rows["1"].locator("td").nth(1).inner_text() == "—"
    assert rows["2"].locator("td").nth(1).inner_text() == "100.0%"
    assert not page.unexpected(), page.unexpected()


def test_a_review_link_names_what_it_does_not_read(page: Page) -> None:
    p = page.open("/review?objective=score&turn=x&colour=3")
    p.wait_for_selector("#message:not(:empty)")
    assert p.inner_text("#message") == (
        "in the link: objective=score: expected tiles or points; turn=x: expected a turn number from 1;"
        " colour=3: not a part of a review's link (id, turn and objective are)"
    )
    assert p.input_value("#objective") == "tiles"
    unknown = page.open("/review?id=nope&turn=0")
    unknown.wait_for_selector("body[data-ready='true']")
    page.expected.append("status of 404")
    message = unknown.inner_text("#message")
    assert message.startswith("no review 'nope' here") and message.endswith(
        "; in the link: turn=0: expected a turn number from 1"
    )


def test_a_turn_by_keyboard_swap_and_sort(page: Page) -> None:
    p = page.open("/play")
    new_game(p, seed=131)
    rack = tiles(p, "#board .rack-zone")
    p.click("#sort-number")
    by_number = tiles(p, "#board .rack-zone")
    assert sorted(by_number) == sorted(rack)
    numbers = [99 if t == "J" else int(t[1:]) for t in by_number]
    assert numbers == sorted(numbers)
    p.click("#sort-colour")
    assert tiles(p, "#board .rack-zone") == rack
    # Two tiles picked with the keyboard, moved into a new set, undone with Ctrl+Z.
    for tile in rack[:2]:
        tab_to(p, f"#board .rack-zone [data-tile='{tile}']")
        p.keyboard.press("Enter")
    assert p.locator("#board .tile.selected").count() == 2
    count = len(table(p)) + 1
    tab_to(p, "#board [data-move-to='new']")
    p.keyboard.press("Enter")
    wait_count(p, f"#board [data-set='{count - 1}']", 2)
    assert sorted(tiles(p, f"#board [data-set='{count - 1}']")) == sorted(rack[:2])
    assert found(p, f"#board [data-set='{count - 1}'] .tile.played") != []  # your tiles, highlighted
    assert p.evaluate("document.activeElement.dataset.set") == str(count - 1)  # the focus went with them
    p.keyboard.press("Control+z")
    wait_count(p, "#board .rack-zone", len(rack))
    # A rack tile and a table tile picked: Swap puts yours in its place, the other goes aside.
    tab_to(p, f"#board .rack-zone [data-tile='{rack[0]}']")
    p.keyboard.press("Enter")
    tab_to(p, f"#board .rack-zone [data-tile='{rack[1]}']")
    p.keyboard.press("Enter")
    tab_to(p, "#board [data-move-to='new']")
    p.keyboard.press("Enter")
    wait_count(p, f"#board [data-set='{count - 1}']", 2)
    tab_to(p, f"#board [data-set='{count - 1}'] [data-tile='{rack[0]}']")
    p.keyboard.press("Enter")
    tab_to(p, f"#board .rack-zone [data-tile='{rack[2]}']")
    p.keyboard.press("Enter")
    tab_to(p, f"#board [data-swap='{count - 1}']")
    p.keyboard.press("Enter")
    wait_count(p, "#board .workspace-zone", 1)
    assert found(p, "#board .workspace-zone [data-tile]") == [rack[0]]
    assert sorted(tiles(p, f"#board [data-set='{count - 1}']")) == sorted([rack[1], rack[2]])
    p.click("#reset")
    wait_count(p, "#board .rack-zone", len(rack))
    # What the turn came to stays while the AI moves, until the person acts again.
    end_turn(p, "#draw")
    assert p.inner_text("#notice").startswith("You drew ")
    drawn = tiles(p, "#board .rack-zone")
    lay_first_by_keyboard(p, drawn)
    assert p.inner_text("#notice") == ""


def test_undo_redo_and_reset_keep_the_focus_on_the_turn(page: Page) -> None:
    """A button that disables itself as it is pressed hands the focus on (not to the page's body)."""
    p = page.open("/play")
    new_game(p, seed=131)
    rack = tiles(p, "#board .rack-zone")
    lay_first_by_keyboard(p, rack)
    tab_to(p, "#undo")
    p.keyboard.press("Enter")  # nothing left to undo: on to Redo
    wait_count(p, "#board .rack-zone", len(rack))
    until(p, "() => document.activeElement.id === 'redo'")
    p.keyboard.press("Enter")  # nothing left to redo: back to Undo
    wait_count(p, "#board .rack-zone", len(rack) - 1)
    until(p, "() => document.activeElement.id === 'undo'")
    tab_to(p, "#reset")
    p.keyboard.press("Enter")  # the turn as it began: Undo brings it back
    wait_count(p, "#board .rack-zone", len(rack))
    until(p, "() => document.activeElement.id === 'undo'")
    p.keyboard.press("Enter")
    wait_count(p, "#board .rack-zone", len(rack) - 1)
    assert focused(p, "#undo")  # still something to undo: it stays
    p.keyboard.press("Enter")
    wait_count(p, "#board .rack-zone", len(rack))
    until(p, "() => document.activeElement.id === 'redo'")


def test_a_game_link_names_what_it_does_not_read(page: Page) -> None:
    p = page.open("/play")
    new_game(p)
    p = page.open(p.url.removeprefix(page.server.url).replace("/play?", "/play?foo=1&"))
    assert p.inner_text("#message") == "in the link: foo=1: not a part of a game's link (id and seat are)"
    assert p.is_visible("#game")  # the rest is read
    p = page.open("/play?level=hard")
    assert p.inner_text("#message") == "in the link: level=hard: not a part of a game's link (id and seat are)"
    assert p.is_visible("#setup")
    # A seat on a game played on one screen: named, and the game opens all the same.
    p = page.open("/play")
    new_game(p)
    page.expect_refusal()
    p = page.open(p.url.removeprefix(page.server.url) + "&seat=abc")
    p.wait_for_selector("#message:not(:empty)")
    assert p.inner_text("#message") == "in the link: seat=abc: this game is played on one screen (it has no seats' links)"
    assert p.is_visible("#game")


@pytest.mark.parametrize("seed", ["99999999999999999999", "9007199254740993", "1.5"])
def test_a_seed_past_what_the_page_holds_exactly_is_quoted_as_typed(page: Page, seed: str) -> None:
    p = page.open("/play")
    p.evaluate("document.querySelector('#new-game').noValidate = true")  # past the browser's own check
    p.fill("#seed", seed)
    p.click("#start")
    p.wait_for_selector("#message:not(:empty)")
    assert p.inner_text("#message") == f"'seed' must be a whole number from 0 to 9007199254740991, got {seed}"
    assert p.is_visible("#setup") and p.url.endswith("/play")


def ann_and_bob(p: Any) -> Any:
    """The new-game form filled for Ann and Bob, two persons, seed 7 (not started)."""
    p.select_option("#seat-2", "person")
    p.fill("#seat-1-name", "Ann")
    p.fill("#seat-2-name", "Bob")
    p.fill("#seed", "7")
    return p


def test_each_seats_name_field_says_its_seat(page: Page) -> None:
    p = page.open("/play")
    for seat in range(1, 5):
        field = p.get_by_role("textbox", name=f"Seat {seat} name (optional)", exact=True)
        assert field.get_attribute("id") == f"seat-{seat}-name"


def test_two_persons_sharing_one_screen(page: Page) -> None:
    """Between two persons' turns the page asks for the hand-over, shows nothing private of the
    one who moved (not the tile drawn), and asks again after a reload."""
    p = ann_and_bob(page.open("/play"))
    p.click("#start")
    p.wait_for_selector("#game:not([hidden])")
    names = {"1": "Ann", "2": "Bob"}
    mover = p.evaluate("document.body.dataset.toMove")
    # Whoever pressed Start may not be the one drawn to begin: the card first, no rack yet.
    assert p.is_visible("#handover") and p.is_hidden("#turn") and p.is_hidden("#watch")
    assert p.inner_text("#handover-text") == f"{names[mover]}'s turn: pass the screen to them."
    p.click("#handover-ready")
    assert p.is_visible("#turn")
    p.click("#draw")
    p.wait_for_selector("#handover:not([hidden])")
    following = names["2" if mover == "1" else "1"]
    assert p.inner_text("#handover-text") == f"{following}'s turn: pass the screen to them."
    assert p.inner_text("#notice") == "" and "You drew" not in p.inner_text("body")
    assert p.is_hidden("#turn") and p.is_hidden("#watch")
    assert p.inner_text("#whose-turn") == f"{following}'s turn"  # not "Your turn" to whoever holds it
    page.shot("play-hot-seat-handover")
    # A reload while the card is up: the card again, not the next person's rack.
    p.reload()
    p.wait_for_selector("body[data-ready='true']")
    assert p.is_visible("#handover") and p.is_hidden("#turn") and p.is_hidden("#watch")
    assert p.inner_text("#handover-text") == f"{following}'s turn: pass the screen to them."
    p.click("#handover-ready")
    assert p.is_visible("#turn") and p.inner_text("#notice") == ""
    assert p.locator("#players li.you .name").inner_text() == following
    # The second person draws: at the card, the log names no tile the first one drew (the view,
    # theirs already, holds it) while the second still holds the screen.
    p.click("#draw")
    p.wait_for_selector("#handover:not([hidden])")
    log = p.locator("#log").text_content() or ""
    assert f"{names[mover]} drew a tile" in log and "drew a tile" in log
    assert not re.search(r"drew [RBOK]\d", log), log
    p.click("#handover-ready")
    assert re.search(rf"{names[mover]} drew [RBOK]\d", p.locator("#log").text_content() or "")  # theirs to see now


def test_the_play_pages_at_phone_size(browser: Any, server: Server, screenshots: Path, tmp_path: Path) -> None:
    page = Page(browser, server, screenshots, PHONE)
    p = page.open("/play")
    assert p.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert cut_options(p, "#setup") == []
    page.shot("play-new-game-phone")
    new_game(p)
    assert p.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.shot("play-phone")
    made = CliRunner().invoke(
        cli, ["selfplay", "--games", "1", "--ai", "hard,easy", "--seed", "5", "--record", str(tmp_path), "--numbers", "8"]
    )
    [path] = tmp_path.glob("*.jsonl")
    assert made.exit_code == 0
    p = page.open("/review")
    p.set_input_files("#upload", files=[{"name": path.name, "mimeType": "text/plain", "buffer": path.read_bytes()}])
    p.wait_for_selector("body[data-judged='true']", timeout=60_000)
    # The summary fits, its headings short (the labels' marks), the words kept for screen readers.
    assert p.evaluate("(e => e.scrollWidth <= e.clientWidth)(document.querySelector('#summary'))")
    heading = p.locator("#summary th[title='Inaccuracies']")
    assert heading.locator(".short").is_visible() and heading.locator(".short").inner_text() == "?!"
    assert heading.locator(".long").bounding_box()["width"] <= 1 and heading.locator(".long").text_content() == "Inaccuracies"
    p.click("#turns button[data-turn='18']")
    p.wait_for_selector("#verdict[data-label]")
    page.shot("review-phone")
    wide = p.evaluate("[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 5).map(e => e.tagName + '.' + e.className + '#' + e.id)")
    assert p.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), wide
    page.context.close()
    assert not page.unexpected(), page.unexpected()


def test_two_persons_each_on_their_own_device(browser: Any, server: Server, screenshots: Path) -> None:
    """Ann starts a game for Ann, Bob and the easy AI, each person on their own device: Bob opens
    the link Ann sends, each page shows its own seat, and a move on one shows on the other."""
    ann = Page(browser, server, screenshots, DESKTOP)
    a = ann_and_bob(ann.open("/play"))
    a.select_option("#seat-3", "easy")
    a.check("#devices")
    a.click("#start")
    a.wait_for_selector("#invite:not([hidden])")
    link = a.input_value("#invite-links li[data-player='2'] input")
    assert "&seat=" in link and "&seat=" in a.url and link.split("&seat=")[1] not in a.url
    assert a.is_visible("#invite-local")  # the test server listens on 127.0.0.1: say so
    ann.shot("play-devices-invite")
    a.click("#invite-close")
    assert a.is_hidden("#invite")
    a.click("#invite-again")  # the links are there again when Ann needs them
    assert a.input_value("#invite-links li[data-player='2'] input") == link
    a.reload()
    a.wait_for_selector("body[data-ready='true']")
    assert a.is_hidden("#invite") and a.is_visible("#invite-again")
    bob = Page(browser, server, screenshots, PHONE)
    b = bob.page
    b.goto(link)
    b.wait_for_selector("body[data-ready='true']")
    assert b.locator("#players li.you").get_attribute("data-player") == "2"
    assert a.locator("#players li.you").get_attribute("data-player") == "1"
    assert b.is_hidden("#invite") and b.is_hidden("#handover")
    for moves in range(4):  # whoever is to move draws; the other page sees it without a reload
        until(a, "() => ['1', '2'].includes(document.body.dataset.toMove)")  # past the AI's turn
        mover, watcher = (a, b) if a.evaluate("document.body.dataset.toMove") == "1" else (b, a)
        turn = mover.evaluate("document.body.dataset.turn")
        assert mover.is_visible("#turn") and watcher.is_hidden("#turn") and watcher.is_visible("#watch")
        mover.click("#draw")
        until(watcher, "t => Number(document.body.dataset.turn) > Number(t)", turn, seconds=10)
        if moves == 1:
            bob.shot("play-devices-phone")
    b.reload()
    b.wait_for_selector("body[data-ready='true']")
    assert b.locator("#players li.you").get_attribute("data-player") == "2"
    for opened in (ann, bob):
        opened.context.close()
        assert not opened.unexpected(), opened.errors


def test_when_the_page_that_asks_for_the_ai_is_gone_another_takes_over(browser: Any, server: Server, screenshots: Path) -> None:
    """Ann starts a game on several devices (with seed 2 the AI moves first) and closes her page
    at once: Bob's page, seeing nothing happen, asks for the AI's turn itself."""
    ann = Page(browser, server, screenshots, DESKTOP)
    a = ann.open("/play")
    a.select_option("#seat-2", "person")
    a.select_option("#seat-3", "easy")
    a.fill("#seed", "2")
    a.check("#devices")
    a.route("**/ai?*", lambda route: route.abort())  # Ann's page never gets to ask
    a.click("#start")
    a.wait_for_selector("#invite:not([hidden])")
    link = a.input_value("#invite-links li[data-player='2'] input")
    assert a.evaluate("document.body.dataset.toMove") == "3"
    ann.context.close()
    bob = Page(browser, server, screenshots, DESKTOP)
    b = bob.page
    b.goto(link)
    b.wait_for_selector("body[data-ready='true']")
    until(b, "() => document.body.dataset.turn === '2'", seconds=20)  # the AI moved: turn 2
    assert b.evaluate("document.body.dataset.toMove") == "1"
    bob.context.close()
    assert not bob.unexpected(), bob.errors


def test_a_tab_left_behind_is_told_the_game_moved_on(page: Page) -> None:
    # Two tabs on one game: the first draws (the AI answers); the second, still showing the first
    # turn, presses Draw: it must not draw in a turn its player never saw.
    p = page.open("/play")
    new_game(p)
    behind = page.context.new_page()
    behind.goto(p.url)
    behind.wait_for_selector("body[data-ready='true']")
    shown = behind.evaluate("document.body.dataset.turn")
    p.click("#draw")
    until(p, "(t) => document.body.dataset.turn !== t && document.body.dataset.toMove === '1'", shown)
    log = p.locator("#log li").count()
    page.expected.append("status of 409")
    behind.click("#draw")
    behind.wait_for_selector("#message:not(:empty)")
    assert "the game has moved on since this page showed round 1, turn" in behind.inner_text("#message")
    until(behind, "(t) => document.body.dataset.turn !== t", shown)  # and it shows the game as it is now
    p.reload()
    p.wait_for_selector("body[data-ready='true']")
    assert p.locator("#log li").count() == log  # nothing drawn for the page left behind


def ann_against(p: Any, level: str) -> None:
    """Ann against one AI, seed 7 (her rack holds K12 B12 O12, an initial meld), on her turn."""
    p.fill("#seat-1-name", "Ann")
    p.select_option("#seat-2", level)
    p.fill("#seed", "7")
    p.click("#start")
    p.wait_for_selector("#game:not([hidden])")
    your_turn(p)


def test_a_tab_that_did_not_see_the_turns_edits_cannot_play_them(page: Page) -> None:
    # Ann (seed 7: K12 B12 O12 are an initial meld) in two tabs on her turn: tab B lays the 12s,
    # tab A, its table still empty, presses Done; then tab B undoes them and tab A, showing them
    # laid, presses Done. Each time tab A is refused, nothing is played, and it shows the turn as it is.
    a = page.open("/play")
    ann_against(a, "medium")
    b = page.context.new_page()
    b.goto(a.url)
    b.wait_for_selector("body[data-ready='true']")
    log = a.locator("#log li").count()
    assert table(a) == []
    for tile in ("K12", "B12", "O12"):
        b.click(f"#board .rack-zone [data-tile='{tile}']")
    b.click("#board [data-move-to='new']")
    wait_count(b, "#board [data-set='0']", 3)
    page.expected.append("status of 409")
    a.click("#done")
    a.wait_for_selector("#message:not(:empty)")
    assert a.inner_text("#message") == (
        "the turn has changed on another page since this one showed it (at edit 0): it is at edit 1 now"
    )
    wait_count(a, "#board [data-set='0']", 3)  # refreshed: the 12s tab B laid
    assert sorted(tiles(a, "#board [data-set='0']")) == ["B12", "K12", "O12"]
    assert a.inner_text("#notice") == "" and a.locator("#log li").count() == log
    b.click("#undo")
    wait_count(b, "#board [data-set]", 0)
    a.click("#done")
    until(a, "() => document.querySelector('#message').textContent.includes('at edit 1): it is at edit 2 now')")
    wait_count(a, "#board [data-set]", 0)  # refreshed: the table as tab B left it
    assert "cannot end yet" not in a.inner_text("#turn")
    # The tab that saw it all plays the turn.
    b.click("#redo")
    wait_count(b, "#board [data-set='0']", 3)
    end_turn(b, "#done")
    assert b.inner_text("#notice") == "You played K12 B12 O12."
    b.reload()
    b.wait_for_selector("body[data-ready='true']")
    assert (b.locator("#log li").first.text_content() or "").startswith("Ann played 3 tiles")
    assert tiles(b, "#log li:first-child") == ["K12", "B12", "O12"]


def test_back_and_forward_between_the_form_and_the_game(page: Page) -> None:
    p = page.open("/play")
    new_game(p)
    game = p.url
    p.go_back()
    p.wait_for_selector("#setup:not([hidden])")
    assert p.is_hidden("#game") and p.url.endswith("/play")
    p.go_forward()
    p.wait_for_selector("#game:not([hidden])")
    assert p.url == game and p.is_hidden("#setup")


def seconds_shown(p: Any) -> int:
    return int(p.inner_text("#timer").removesuffix(" s left"))


def test_on_a_shared_screen_the_timer_shown_is_the_servers(page: Page) -> None:
    """The clock of the person to move runs while the screen is handed over: "Show my rack" must
    not start the page's countdown again from the turn's full time."""
    p = ann_and_bob(page.open("/play"))
    p.select_option("#turn-time", "40")
    p.click("#start")
    p.wait_for_selector("#handover:not([hidden])")
    time.sleep(3)
    p.click("#handover-ready")
    game = p.url.split("id=")[1]
    left = p.request.get(f"{page.server.url}/api/games/{game}").json()["timer"]["left"]
    assert left <= 37 and abs(seconds_shown(p) - left) <= 2, (seconds_shown(p), left)  # not 40


def test_on_a_shared_screen_a_time_out_at_the_card_asks_for_the_next_person(page: Page) -> None:
    """The next person's time runs out while the card is up: the screen may be in their hands, so
    the person now to move is asked for before their rack is shown."""
    p = ann_and_bob(page.open("/play"))
    p.select_option("#turn-time", "40")
    p.click("#start")
    p.click("#handover-ready")
    mover = p.locator("#players li.you .name").inner_text()
    p.click("#draw")
    p.wait_for_selector("#handover:not([hidden])")
    turn = p.evaluate("document.body.dataset.turn")
    until(p, "t => document.body.dataset.turn !== t", turn, seconds=50)  # the following person timed out
    assert "ran out of time" in (p.locator("#log").text_content() or "")
    assert p.is_visible("#handover") and p.is_hidden("#turn") and p.is_hidden("#watch")
    assert p.inner_text("#handover-text") == f"{mover}'s turn: pass the screen to them."
    assert p.inner_text("#whose-turn") == f"{mover}'s turn"
    p.click("#handover-ready")
    assert p.is_visible("#turn") and p.locator("#players li.you .name").inner_text() == mover


def focused(p: Any, selector: str) -> bool:
    return bool(p.evaluate("s => document.activeElement?.matches(s) ?? false", selector))


def test_the_focus_goes_to_the_work_when_a_turn_begins(browser: Any, server: Server, screenshots: Path) -> None:
    """Keyboard only: after Start and Draw the focus is on the rack (or the card, or the links),
    not left on the page's body ~20 Tabs away."""
    page = Page(browser, server, screenshots, DESKTOP)
    p = page.open("/play")
    p.select_option("#seat-2", "easy")
    p.fill("#seed", "21")
    p.focus("#start")
    p.keyboard.press("Enter")
    your_turn(p)
    assert focused(p, "#board .rack-zone [data-tile]")
    for _ in range(2):
        tab_to(p, "#draw")
        turn = p.evaluate("document.body.dataset.turn")
        p.keyboard.press("Enter")
        until(p, "t => document.body.dataset.turn !== t && document.body.dataset.toMove === '1'", turn)
        assert focused(p, "#board .rack-zone [data-tile]")
    # A shared screen: the card's button first, then the rack.
    p = ann_and_bob(page.open("/play"))
    p.focus("#start")
    p.keyboard.press("Enter")
    p.wait_for_selector("#handover:not([hidden])")
    assert focused(p, "#handover-ready")
    p.keyboard.press("Enter")
    assert focused(p, "#board .rack-zone [data-tile]")
    # Several devices: the links to send first.
    p = ann_and_bob(page.open("/play"))
    p.check("#devices")
    p.focus("#start")
    p.keyboard.press("Enter")
    p.wait_for_selector("#invite:not([hidden])")
    assert focused(p, "#invite-links input")
    page.context.close()
    assert not page.unexpected(), page.unexpected()


def test_the_play_form_and_turn_say_what_a_joker_and_a_zero_meld_mean(page: Page) -> None:
    p = page.open("/play")
    label = p.locator("#rules label", has=p.locator("[name='joker-penalty']")).text_content() or ""
    assert label.startswith("What a joker left on a rack costs") and "objective" not in label
    new_game(p)  # meld threshold 0
    assert p.inner_text("#problems") == "You have not opened yet: lay any new set from your rack (no minimum of points)."


def test_a_triple_click_on_draw_draws_once(page: Page) -> None:
    """Clicks waiting behind the first went out with the turn its answer showed: a click aimed at
    turn 1 drew in turn 3 too, and the first draw's notice was wiped."""
    p = page.open("/play")
    ann_against(p, "easy")
    p.click("#draw", click_count=3)
    until(p, "() => document.querySelectorAll('#log li').length >= 2")  # Ann drew, easy moved
    your_turn(p)
    time.sleep(0.5)  # what a waiting click would have done by now
    log = p.locator("#log li").all_text_contents()
    assert sum(1 for line in log if "Ann drew" in line) == 1, log
    assert p.inner_text("#notice").startswith("You drew ") and p.inner_text("#message") == ""


def test_the_end_card_takes_the_focus_of_the_done_that_ended_the_round(page: Page) -> None:
    p = page.open("/play")
    p.select_option("#seat-2", "easy")
    p.fill("#seed", "9")
    p.fill("#rack-size", "3")
    p.click("#rules-box summary")
    for name, value in (("numbers", "5"), ("colours", "2"), ("copies", "1"), ("jokers", "0"), ("meld-threshold", "0")):
        p.fill(f"#rules [name='{name}']", value)
    p.press("#rules [name='meld-threshold']", "Tab")
    p.click("#start")
    p.wait_for_selector("#game:not([hidden])")
    your_turn(p)
    rack = tiles(p, "#board .rack-zone")
    for tile in rack:
        p.click(f"#board .rack-zone [data-tile='{tile}']")
    p.click("#board [data-move-to='new']")
    wait_count(p, "#board [data-set='0']", len(rack))
    p.focus("#done")
    p.keyboard.press("Enter")
    p.wait_for_selector("#end:not([hidden])")
    time.sleep(0.3)
    # One round: the match is over, and the next thing to do is to keep its record.
    assert p.evaluate("document.activeElement.id || document.activeElement.tagName") == "download"


def test_the_board_says_it_is_busy_while_an_action_is_on_its_way(page: Page) -> None:
    """On a slow network nothing showed that a drop was on its way: a second drag of the same tile
    was refused "not on your rack", and picks made meanwhile vanished."""
    p = page.open("/play")
    new_game(p)
    released: list[Any] = []
    p.route("**/api/games/*/edit*", lambda route: released.append(route))  # held until released
    rack = tiles(p, "#board .rack-zone")
    p.click(f"#board .rack-zone [data-tile='{rack[0]}']")
    p.click("#board [data-move-to='new']")
    until(p, "() => document.querySelector('#board').getAttribute('aria-busy') === 'true'")
    assert released
    released[0].continue_()
    until(p, "() => document.querySelector('#board').getAttribute('aria-busy') === 'false'")
    p.unroute("**/api/games/*/edit*")


def test_tiles_picked_while_an_action_is_on_its_way_stay_picked(page: Page) -> None:
    p = page.open("/play")
    new_game(p)
    held: list[Any] = []
    p.route("**/api/games/*/edit*", lambda route: held.append(route))
    rack = tiles(p, "#board .rack-zone")
    p.click(f"#board .rack-zone [data-tile='{rack[0]}']")
    p.click("#board [data-move-to='new']")
    until(p, "() => document.querySelector('#board').getAttribute('aria-busy') === 'true'")
    p.click("#board .rack-zone [data-key='rack:2']")  # picked while the first move is on its way
    picked = p.get_attribute("#board .rack-zone [data-key='rack:2']", "data-tile")
    held[0].continue_()
    until(p, "() => document.querySelector('#board').getAttribute('aria-busy') === 'false'")
    p.unroute("**/api/games/*/edit*")
    assert [b.get_attribute("data-tile") for b in p.locator("#board .rack-zone .selected").all()] == [picked]


def ann_opens_keeping_a_second_r5(p: Any) -> int:
    """Seed 7: Ann opens with R3 R4 R5, K6 B6 R6 and K12 B12 O12, keeps a second R5, and is to
    move again; the run's set number."""
    ann_against(p, "easy")
    for meld in (("R3", "R4", "R5"), ("K6", "B6", "R6"), ("K12", "B12", "O12")):
        index = p.locator("#board [data-set]").count()
        for tile in meld:
            p.click(f"#board .rack-zone [data-tile='{tile}']")
        p.click("#board [data-move-to='new']")
        wait_count(p, f"#board [data-set='{index}']", 3)
    end_turn(p, "#done")
    your_turn(p)
    return next(i for i, s in enumerate(table(p)) if s == ["R3", "R4", "R5"])


def test_the_table_copy_picked_in_a_set_is_the_one_taken(page: Page) -> None:
    # The rack's R5 added to R3 R4 R5: the table's R5 (not highlighted) picked and laid apart.
    p = page.open("/play")
    run = ann_opens_keeping_a_second_r5(p)
    p.click("#board .rack-zone [data-tile='R5']")
    p.click(f"#board [data-move-to='set:{run}']")
    wait_count(p, f"#board [data-set='{run}']", 4)
    table_copy = p.locator(f"#board [data-set='{run}'] [data-tile='R5']:not(.played)")
    table_copy.click()
    new = p.locator("#board [data-set]").count()  # a new set goes at the end
    p.click("#board [data-move-to='new']")
    wait_count(p, f"#board [data-set='{new}']", 1)
    assert p.locator(f"#board [data-set='{new}'] .played").count() == 0  # the table's R5
    assert p.locator(f"#board [data-set='{run}'] .played").count() == 1  # yours stays in the run
    assert p.locator("#board .selected").count() == 0


def test_the_rack_tile_picked_is_the_one_laid_though_a_copy_lies_in_the_workspace(page: Page) -> None:
    p = page.open("/play")
    run = ann_opens_keeping_a_second_r5(p)
    rack = tiles(p, "#board .rack-zone")
    assert "R5" in rack
    p.click(f"#board [data-set='{run}'] [data-tile='R5']")
    p.click("#board [data-move-to='workspace']")
    wait_count(p, "#board .workspace-zone", 1)
    p.click("#board .rack-zone [data-tile='R5']")  # the rack's copy, not the loose one
    p.click("#board [data-move-to='new']")
    wait_count(p, "#board .rack-zone", len(rack) - 1)
    assert tiles(p, "#board .workspace-zone") == ["R5"]  # the table's R5 still lies loose
    # Your R5 taken off again: two loose R5s; the one picked, yours, goes back onto R3 R4.
    mine = p.locator("#board [data-set]").count() - 1
    p.click(f"#board [data-set='{mine}'] [data-tile='R5']")
    p.click("#board [data-move-to='workspace']")
    wait_count(p, "#board .workspace-zone", 2)
    own = p.evaluate("[...document.querySelectorAll('#board .workspace-zone [data-tile]')].findIndex((b) => b.classList.contains('played'))")
    assert own >= 0
    p.click(f"#board .workspace-zone [data-key='ws:{own}']")
    p.click(f"#board [data-move-to='set:{run}']")
    wait_count(p, "#board .workspace-zone", 1)
    assert p.locator(f"#board [data-set='{run}'] .played").count() == 1  # your R5 is in the run


def test_undo_and_redo_by_shortcut_keep_the_focus_on_the_work(page: Page) -> None:
    p = page.open("/play")
    new_game(p, seed=131)
    rack = tiles(p, "#board .rack-zone")
    lay_first_by_keyboard(p, rack)  # the focus follows the tile to its new set
    p.keyboard.press("Control+z")
    wait_count(p, "#board .rack-zone", len(rack))
    until(p, "() => document.activeElement !== document.body && document.querySelector('#board').contains(document.activeElement)")
    p.keyboard.press("Control+y")
    wait_count(p, "#board .rack-zone", len(rack) - 1)
    until(p, "() => document.activeElement !== document.body")
    # On the Undo button, which the shortcut disables: the focus goes on (to Redo), not to the body.
    p.focus("#undo")
    p.keyboard.press("Control+z")
    wait_count(p, "#board .rack-zone", len(rack))
    p.wait_for_timeout(300)
    assert p.evaluate("document.activeElement.id") == "redo"


def test_an_emptied_number_field_is_named_not_sent_as_zero(page: Page) -> None:
    p = page.open("/play")
    p.fill("#rack-size", "")
    p.click("#start")
    until(p, "() => document.querySelector('#message').textContent !== ''")
    assert p.inner_text("#message") == "Tiles dealt to each player: empty or not a number; give a whole number from 1 to 40"
    assert not p.locator("#setup").is_hidden()
