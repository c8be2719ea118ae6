// A game against the AI players: the new-game form (seats, every rule option of `rummikub play`,
// timer, seed, rounds), then the game as the server keeps it (/api/games/ID): the person's turn
// on a board of their own, the AI turns shown as they come (tiles played, sets changed, steps),
// rack sizes and the pool, the timer, and the end of each round. The game's address is its id,
// so a reload (or a server restart) continues it. Persons share the screen, or each plays on their
// own device: then the address also holds the seat's key (`&seat=`), the page shows that seat,
// and it asks the server every few seconds whether the game has moved on.

import { ApiError, get, post } from "./api.js";
import { $, el, plural, say, unreadParts } from "./dom.js";
import { GameBoard, sortRack } from "./game-board.js";
import { rulesForm } from "./rules.js";
import { setColours, tileElement } from "./tiles.js";
import { setsView, showHint, stepsView } from "./views.js";

const SEAT_CHOICES = [
  ["", "nobody"],
  ["person", "a person"],
  ["easy", "AI: easy"],
  ["medium", "AI: medium"],
  ["hard", "AI: hard"],
];
const PREFS = "rummikub.play"; // rack order and how steps are shown, kept in this browser

let info; // GET /api/rules
let rulesControls;
let view = null; // the latest answer of the server
let viewAt = 0; // when it came (performance.now()): its timer's "left" counts from then
let board;
let hintLevel = 0;
let hintTurn = 0;
let timerId = null;
let aiBusy = false;
let shownViewer = null; // the person the screen was last shown to (0: unknown, after a reload or at the card)
let focusedAt = ""; // the moment (round, turn, person, card) the page last put the focus on the work
let noticeFor = null; // the seat whose notice ("You drew O9.") the page shows
let seatKey = null; // with devices: this page's seat
let pollId = null;
let lastChange = 0; // when a poll last saw the game move on
let aiDuty = false; // this page asks for the AI's turns (it took over from a page gone quiet)
const POLL_MS = 1500;
const AI_WAIT_MS = 6000; // an AI to move and nothing happening this long: this page asks for it
const aiTimes = []; // milliseconds from asking the server for an AI turn to that turn on screen
let acting = Promise.resolve(); // the action being sent: the next waits for its answer
// The actions that act on the turn in progress, sent with the edit count the page last saw.
const ON_THE_TURN = new Set(["edit", "undo", "redo", "reset", "done", "draw"]);

function prefs() {
  try {
    return { order: "colour", steps: "one", ...JSON.parse(localStorage.getItem(PREFS) ?? "{}") };
  } catch {
    return { order: "colour", steps: "one" };
  }
}

function savePrefs(change) {
  localStorage.setItem(PREFS, JSON.stringify({ ...prefs(), ...change }));
}

function tilesOf(tiles, played = []) {
  const row = el("span", "tiles");
  tiles.forEach((t, i) => row.append(tileElement(t, { played: Boolean(played[i]) })));
  return row;
}

// ---------------------------------------------------------------- a new game

function seatRows() {
  const defaults = ["person", "medium", "", ""];
  $("seats").replaceChildren(
    ...defaults.map((chosen, i) => {
      const row = el("div", "seat-row");
      const label = el("label", "field seat");
      label.append(el("span", null, `Seat ${i + 1}`));
      const select = document.createElement("select");
      select.id = `seat-${i + 1}`;
      for (const [value, words] of SEAT_CHOICES) {
        if (i < 2 && value === "") continue; // two seats at least
        const option = document.createElement("option");
        option.value = value;
        option.textContent = words;
        select.append(option);
      }
      select.value = chosen;
      label.append(select);
      const name = el("label", "field seat-name");
      name.append(el("span", null, "Name (optional)"));
      const input = document.createElement("input");
      input.id = `seat-${i + 1}-name`;
      // Four "Name (optional)" fields read alike out of their row: each says its seat.
      input.setAttribute("aria-label", `Seat ${i + 1} name (optional)`);
      input.maxLength = 20;
      input.autocomplete = "off";
      name.append(input);
      row.append(label, name);
      return row;
    }),
  );
}

function settings() {
  const seats = [];
  for (let i = 1; i <= 4; i++) {
    const value = $(`seat-${i}`).value;
    const name = $(`seat-${i}-name`).value.trim();
    const seat = value === "person" ? { kind: "person" } : { kind: "ai", level: value };
    if (name) seat.name = name;
    if (value) seats.push(seat);
  }
  const rules = rulesControls.read();
  const changed = Object.fromEntries(Object.entries(rules).filter(([key, value]) => info.defaults[key] !== value));
  const body = {
    seats,
    rules: changed,
    scoring: $("scoring").value,
    rack_size: wholeNumber("rack-size", "Tiles dealt to each player"),
    redeal_three_pairs: $("redeal-three-pairs").checked,
    joker_each: $("joker-each").checked,
    devices: $("devices").checked,
    turn_time: $("turn-time").value ? Number($("turn-time").value) : null,
    rounds: wholeNumber("rounds", "Rounds"),
  };
  // The seed as typed: one past 2^53 would reach the server rounded, and be quoted back so.
  const seed = $("seed").value.trim();
  if (seed !== "") {
    body.seed = Number(seed);
    if (!Number.isSafeInteger(body.seed) || body.seed < 0) {
      throw new Error(`'seed' must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, got ${seed}`);
    }
  }
  return body;
}

/** A number field's value; an empty one (or one a number field cannot read) is named, not sent as 0. */
function wholeNumber(id, label) {
  const field = $(id);
  if (field.value.trim() === "") {
    throw new Error(`${label}: empty or not a number; give a whole number from ${field.min} to ${field.max}`);
  }
  return Number(field.value);
}

async function start(event) {
  event.preventDefault();
  say("");
  try {
    const created = await post("/api/games", settings());
    seatKey = created.seat ?? null;
    const address = `/play?id=${encodeURIComponent(created.id)}`;
    history.pushState(null, "", seatKey ? `${address}&seat=${encodeURIComponent(seatKey)}` : address);
    $("setup").hidden = true;
    // On a shared screen the person to move may not be the one who started it: the hand-over card first.
    if (!seatKey) shownViewer = 0;
    if (created.seat_links) {
      const others = created.seat_links.filter((link) => link.seat !== seatKey);
      localStorage.setItem(`rummikub.invite.${created.id}`, JSON.stringify(others));
      showInvite(created.id, others);
    }
    show(created);
    // The links are the first thing to do on several devices (Start, gone with the form, had the focus).
    if (!$("invite").hidden) $("invite-links").querySelector("input").focus();
  } catch (error) {
    say(error.message);
  }
}

function showSetup() {
  seatRows();
  rulesControls = rulesForm(
    $("rules"),
    info,
    (rules) => {
      const special = Object.entries(rules).filter(([key, value]) => info.defaults[key] !== value);
      $("rules-summary").textContent = special.length ? special.map(([k, v]) => `${k}=${v}`).join(", ") : "standard rules";
    },
    { withObjective: false },
  );
  rulesControls.show(info.defaults, "tiles");
  $("new-game").addEventListener("submit", start);
  $("setup").hidden = false;
}

// ---------------------------------------------------------------- talking to the game

function path(action = "") {
  const seat = seatKey ? `?seat=${encodeURIComponent(seatKey)}` : "";
  return `/api/games/${encodeURIComponent(view.id)}${action ? `/${action}` : ""}${seat}`;
}

/** The game as its link opens it. A seat in the link of a game played on one screen is refused
 * (400: a view takes nothing else): named with the link's other parts, and the game opens. */
async function firstView(unread) {
  try {
    return await get(path());
  } catch (error) {
    if (!seatKey || !(error instanceof ApiError) || error.status !== 400) throw error;
    unread.push(`seat=${seatKey}: this game is played on one screen (it has no seats' links)`);
    say(`in the link: ${unread.join("; ")}`);
    seatKey = null;
    shownViewer = 0;
    return await get(path());
  }
}

/** The links for the other persons' seats (shown to whoever started the game, until closed). */
function showInvite(id, links) {
  $("invite").hidden = !links.length;
  $("invite-local").hidden = !["127.0.0.1", "localhost", "[::1]"].includes(location.hostname);
  $("invite-links").replaceChildren(
    ...links.map((link) => {
      const url = `${location.origin}/play?id=${encodeURIComponent(id)}&seat=${encodeURIComponent(link.seat)}`;
      const item = el("li", "invite-link");
      item.dataset.player = String(link.player);
      const field = document.createElement("input");
      field.readOnly = true;
      field.value = url;
      field.setAttribute("aria-label", `${link.name}'s link`);
      field.addEventListener("focus", () => field.select());
      const copy = el("button", null, "Copy");
      copy.type = "button";
      copy.addEventListener("click", async () => {
        field.select();
        try {
          await navigator.clipboard.writeText(url);
          copy.textContent = "Copied";
        } catch {
          copy.textContent = "Selected: copy it";
        }
      });
      item.append(el("span", "name", link.name), field, copy);
      return item;
    }),
  );
  // Closed, the links stay in this browser, a button away (this page started the game).
  $("invite-close").onclick = () => {
    $("invite").hidden = true;
    $("invite-again").hidden = false;
    (workPlace() ?? $("invite-again")).focus(); // not lost with the card
  };
  $("invite-again").onclick = () => {
    $("invite").hidden = false;
    $("invite-again").hidden = true;
  };
}

/** With devices: while another seat moves, ask the server again in a moment. */
function poll() {
  clearTimeout(pollId);
  if (!seatKey || !view || (view.over && view.match.over)) return;
  if (!view.over && view.to_move === view.you) return;
  pollId = setTimeout(async () => {
    try {
      const next = await get(path());
      const moved = ["round", "turn", "over", "to_move"].some((key) => next[key] !== view[key]);
      if (moved) {
        lastChange = performance.now();
        show(next);
        return;
      }
      if (!view.over && !person(view.to_move) && performance.now() - lastChange > AI_WAIT_MS) {
        aiDuty = true; // the page that should ask has gone quiet (closed, asleep): this one asks
        setTimeout(aiTurns, 0);
      }
      poll();
    } catch {
      poll(); // the server is busy or restarting: try again
    }
  }, POLL_MS);
}

/** Who asks for an AI's turn: on one screen the page; with devices the seat of the last person to move. */
function asksForAi() {
  if (!seatKey || aiDuty) return true;
  const persons = view.players.filter((p) => p.kind === "person").map((p) => p.player);
  const last = [...view.log].reverse().find((turn) => persons.includes(turn.player));
  return (last ? last.player : Math.min(...persons)) === view.you;
}

/** One action at a time: each is sent with the view the one before it answered (its edit count
 * above all: two drops in quick succession must not read as a page left behind). */
let pending = 0; // actions sent or waiting: the board says it is busy meanwhile

function act(action, body) {
  // The turn the person acted in: an action still waiting when that turn has ended (a second
  // click on Draw while the first was answered) is dropped, never sent into a turn not seen.
  const seen = view ? `${view.round}/${view.turn}` : null;
  busy(+1);
  const sent = acting
    .then(() => (view && seen !== `${view.round}/${view.turn}` ? undefined : actNow(action, body)))
    .finally(() => busy(-1));
  acting = sent.catch(() => {}); // a failure is said where it happened; the next action still goes
  return sent;
}

/** On a slow network the board shows that what was just done is on its way (and says so to a
 * screen reader): a tile dragged again meanwhile would be refused as no longer on the rack. */
function busy(change) {
  pending += change;
  $("board").setAttribute("aria-busy", pending > 0 ? "true" : "false");
}

async function actNow(action, body) {
  say("");
  $("notice").textContent = ""; // the person acts again: what was said of their last move is old
  try {
    // The turn this page shows, and how far its editing went: a page left behind (another tab)
    // must not act in a later turn, nor on edits its player has not seen.
    const moment = view ? { round: view.round, turn: view.turn } : {};
    if (view?.editing && ON_THE_TURN.has(action)) moment.edits = view.editing.edits;
    show(await post(path(action), { ...(body ?? {}), ...moment }));
  } catch (error) {
    say(error.message);
    if (error instanceof ApiError) await refresh();
  }
}

/** Undo, Redo, Reset: a button that disables itself as it is pressed (nothing left to undo) would
 * leave the focus on the page's body; it goes to the other of undo and redo, else to the rack. */
async function control(action) {
  const button = $(action);
  const focused = document.activeElement === button;
  await act(action);
  if (!focused || !button.disabled) return;
  const other = $(action === "undo" ? "redo" : "undo"); // a reset is undone
  (other.disabled ? workPlace() : other)?.focus();
}

/** Ctrl+Z, Ctrl+Y: the focus was on what the undo or redo took away (a set laid, a tile
 * picked), it goes to the work, not to the page's body. */
async function shortcut(action) {
  const before = document.activeElement;
  await act(action);
  const active = document.activeElement;
  // Gone with a redraw, or a button the shortcut disabled (some browsers drop its focus at once,
  // others later: which one it was is read from before the action).
  if (!active || active === document.body || active.disabled) {
    const was = active && active !== document.body ? active : before;
    const other = was?.id === "undo" ? $("redo") : was?.id === "redo" ? $("undo") : null;
    (other && !other.disabled ? other : workPlace())?.focus();
  }
}

async function refresh() {
  try {
    show(await get(path()));
  } catch (error) {
    say(error.message);
  }
}

/** While an AI is to move, ask for its turn; each is shown as it comes. */
async function aiTurns() {
  if (aiBusy) return;
  aiBusy = true;
  try {
    while (view && !view.over && view.players[view.to_move - 1].kind === "ai") {
      const asked = performance.now();
      if (!asksForAi()) break;
      const next = await post(path("ai"), {});
      show(next);
      await new Promise((done) => requestAnimationFrame(() => done()));
      aiTimes.push(performance.now() - asked);
      document.body.dataset.aiTurns = JSON.stringify(aiTimes.map((ms) => Math.round(ms * 10) / 10));
    }
  } catch (error) {
    // On several devices another page may have asked for the same turn: look again, quietly.
    if (seatKey) await refresh();
    else say(error.message);
  } finally {
    aiBusy = false;
  }
}

// ---------------------------------------------------------------- drawing the game

function person(seat) {
  return view.players[seat - 1].kind === "person";
}

function show(next) {
  if (next !== view) viewAt = performance.now(); // the card's "Show my rack" shows the same view again
  view = next;
  lastChange = performance.now();
  document.title = `Round ${view.round}, turn ${view.turn} · Play Rummikub`;
  $("game").hidden = false;
  const persons = view.players.filter((p) => p.kind === "person").length;
  const mine = !view.over && view.to_move === view.you;
  // Hot seat: a new person at the screen first says they are there (the others look away).
  const handover = !seatKey && persons > 1 && shownViewer !== null && shownViewer !== view.you && !view.over;
  $("handover").hidden = !handover;
  if (handover) {
    $("handover-text").textContent = `${view.players[view.you - 1].name}'s turn: pass the screen to them.`;
  }
  showStatus(mine && !handover); // at a hand-over the screen is not yet the next person's: "Bob's turn"
  showNotice(handover);
  $("turn").hidden = !mine || handover;
  $("watch").hidden = mine || handover;
  if (mine) showTurn();
  else showWatch();
  showSince();
  showLog(handover);
  showEnd();
  showTimer();
  // At the card the screen is on its way to someone: whoever is to move next (after a time-out
  // there too) says they are at it first.
  shownViewer = handover ? 0 : view.you;
  focusWork(handover, mine);
  document.body.dataset.turn = String(view.turn);
  document.body.dataset.toMove = view.over ? "" : String(view.to_move);
  if (!view.over && !person(view.to_move) && asksForAi()) setTimeout(aiTurns, 0);
  poll();
}

/** Where a keyboard user's work is: the card's button, else the rack's first tile on their turn. */
function workPlace() {
  if (!$("handover").hidden) return $("handover-ready");
  if ($("turn").hidden) return null;
  return $("board").querySelector(".rack-zone [data-tile]") ?? $("done");
}

/** The focus stays where the work is: when a turn (or its card) begins on this screen and the
 * focus went with what was hidden (Start, Draw, Done, the card's button), it goes to the work. */
function focusWork(handover, mine) {
  const moment = `${view.round}:${view.turn}:${view.you}:${handover}:${mine}`;
  const active = document.activeElement;
  const lost = !active || active === document.body || !active.getClientRects().length;
  if (moment === focusedAt || !lost) return;
  focusedAt = moment;
  workPlace()?.focus();
}

/** The server tells of the person's own move once ("You drew O9."): the notice stays while the
 * others move, until that person acts again or a newer one comes. It is private (a tile drawn):
 * never shown to the next person at a shared screen. */
function showNotice(handover) {
  if (view.notice && !handover) {
    $("notice").textContent = view.notice;
    noticeFor = view.you;
  } else if (handover || noticeFor !== view.you) {
    $("notice").textContent = "";
    noticeFor = null;
  }
}

function showStatus(mine) {
  const moving = view.over ? null : view.players[view.to_move - 1];
  $("whose-turn").textContent = view.over
    ? `Round ${view.round} is over`
    : mine
      ? "Your turn"
      : moving.kind === "ai"
        ? `${moving.name} is thinking…`
        : `${moving.name}'s turn`;
  // A round over says its last turn (the view's turn is the one that would have come next).
  const turn = view.over && view.result?.turns ? view.result.turns : view.turn;
  $("round-info").textContent = `Round ${view.round} of ${view.rounds} · turn ${turn} · seed ${view.settings.seed}`;
  $("pool").textContent = `Pool: ${plural(view.pool, "tile")}`;
  $("pool").dataset.pool = String(view.pool);
  $("players").replaceChildren(
    ...view.players.map((p) => {
      const item = el("li", "player");
      item.dataset.player = String(p.player);
      item.dataset.rack = String(p.rack);
      if (p.player === view.to_move && !view.over) item.classList.add("to-move");
      if (p.player === view.you) item.classList.add("you");
      const name = el("span", "name", p.name + (p.kind === "ai" ? " (AI)" : ""));
      const count = el("span", "count", plural(p.rack, "tile"));
      const opened = el("span", "opened", p.opened ? "opened" : "not opened");
      item.append(name, count, opened);
      item.setAttribute(
        "aria-label",
        `${p.name}: ${plural(p.rack, "tile")} on the rack, ${p.opened ? "opened" : "not opened yet"}${p.player === view.to_move && !view.over ? ", to move" : ""}`,
      );
      return item;
    }),
  );
}

function showTurn() {
  if (hintTurn !== view.turn) {
    hintTurn = view.turn;
    hintLevel = 0;
    $("hints").replaceChildren();
    $("hint").textContent = "Hint 1";
    $("hint").disabled = false;
  }
  const editing = view.editing;
  const refused = view.refused ?? [];
  const marks = new Map();
  refused.forEach((p) => p.sets.forEach((i) => marks.set(i, [...(marks.get(i) ?? []), p.message])));
  board.show(editing, { changedSets: view.changed, marks, workspaceMarked: refused.length > 0 && editing.workspace.length > 0 });
  $("undo").disabled = !editing.can_undo;
  $("redo").disabled = !editing.can_redo;
  $("reset").disabled = !editing.changed;
  if (refused.length) {
    const box = el("div", "verdict illegal");
    box.dataset.verdict = "refused";
    box.append(el("p", null, `The turn cannot end yet (${plural(refused.length, "problem")}):`));
    const list = el("ul");
    refused.forEach((p) => list.append(el("li", null, p.message)));
    box.append(list);
    $("problems").replaceChildren(box);
  } else {
    $("problems").replaceChildren();
  }
  const opened = view.players[view.you - 1].opened;
  if (!opened && !editing.changed && !refused.length) {
    const meld = view.settings.rules["meld-threshold"];
    const lay = meld ? `new sets from your rack worth ${meld} points or more` : "any new set from your rack (no minimum of points)";
    $("problems").replaceChildren(el("p", "note", `You have not opened yet: lay ${lay}.`));
  }
}

function showWatch() {
  $("watch-table").replaceChildren(
    view.table.length ? setsView(view.table, { changed: view.changed, changedLabel: "changed" }) : el("p", "empty", "The table is empty."),
  );
  const order = prefs().order;
  $("watch-rack").replaceChildren(view.rack.length ? tilesOf(sortRack(view.rack, order).map((t) => t.tile)) : el("p", "empty", "empty"));
}

/** A turn in words; `hidden`: the screen is being handed over, so the next person's own draws
 * (the view is theirs) are not named to whoever still holds it. */
function describe(turn, hidden = false) {
  const who = view.players[turn.player - 1].name;
  if (turn.timed_out) {
    const kept = turn.played.length ? `, left ${plural(turn.played.length, "tile")} on the table` : "";
    const drew = turn.penalty ? `drew ${plural(turn.penalty, "penalty tile")}` : "drew no penalty tile (the pool is empty)";
    return `${who} ran out of time${kept} and ${drew}`;
  }
  if (turn.played.length) return `${who} played ${plural(turn.played.length, "tile")}`;
  if (turn.drew) return typeof turn.drew === "string" && !hidden ? `${who} drew ${turn.drew}` : `${who} drew a tile`;
  return `${who} passed (the pool is empty)`;
}

function showSince() {
  const since = view.since;
  $("since").hidden = !since.length;
  $("since-list").replaceChildren(
    ...since.map((turn) => {
      const item = el("li", "since-turn");
      item.dataset.turn = String(turn.turn);
      item.dataset.player = String(turn.player);
      const head = el("p", "since-head-line");
      head.append(el("strong", null, `Turn ${turn.turn}: `), describe(turn));
      if (turn.played.length) head.append(": ", tilesOf(turn.played, turn.played.map(() => true)));
      item.append(head);
      if (turn.played.length && !turn.timed_out) {
        const after = el("div", "since-table");
        after.append(setsView(turn.table_after, { played: turn.from_rack, changed: turn.changed, changedLabel: "changed" }));
        item.append(after);
        const button = el("button", null, "Show the steps");
        button.type = "button";
        button.dataset.steps = String(turn.turn);
        const steps = el("div", "since-steps");
        button.addEventListener("click", () => showSteps(turn, steps, button));
        item.append(button, steps);
      }
      return item;
    }),
  );
}

async function showSteps(turn, box, button) {
  try {
    const answer = await get(path(`turns/${turn.turn}/steps`));
    button.hidden = true;
    if (prefs().steps === "all") {
      const all = el("ol", "steps-all");
      all.setAttribute("aria-label", "Steps");
      answer.steps.forEach((step) => {
        const item = el("li", "step");
        item.append(el("p", null, step.text));
        item.append(setsView(step.after.table, { changed: step.after.changed, moving: step.tiles }));
        all.append(item);
      });
      box.replaceChildren(all);
    } else {
      box.replaceChildren(stepsView(answer.steps, turn.table_before, answer.tiles_moved));
    }
  } catch (error) {
    say(error.message);
  }
}

function showLog(handover) {
  $("log").replaceChildren(
    ...view.log.map((turn) => {
      const item = el("li");
      item.value = turn.turn;
      item.append(describe(turn, handover));
      if (turn.played.length) item.append(": ", tilesOf(turn.played));
      item.append(` (pool ${turn.pool})`);
      return item;
    }),
  );
}

function showEnd() {
  const appearing = $("end").hidden && view.over;
  $("end").hidden = !view.over;
  if (!view.over) return;
  const result = view.result;
  const names = view.players.map((p) => p.name);
  const winner = result.winner ? names[result.winner - 1] : null;
  // In play's words.
  const you = result.winner === view.you;
  const how =
    result.reason === "rack_empty"
      ? you ? "emptied your rack: you win" : "emptied the rack and wins"
      : you ? "have the lowest rack: you win (the pool is empty and everybody passed)" : "has the lowest rack and wins (the pool is empty and everybody passed)";
  $("end-title").textContent = `Round ${view.round} of ${view.rounds} is over`;
  $("end-text").textContent = winner
    ? `${you ? "You" : winner} ${how}.`
    : `Blocked: a tie between ${result.tied.map((p) => names[p - 1]).join(", ")}.`;
  const club = view.settings.scoring === "club";
  const head = el("tr");
  for (const words of ["Player", "Rack left", "This round", "Total", ...(club ? ["Big points"] : [])]) head.append(el("th", null, words));
  const rows = view.players.map((p, i) => {
    const row = el("tr");
    row.dataset.player = String(p.player);
    row.append(el("th", null, p.name));
    const rack = el("td");
    if (result.racks[i].length) rack.append(tilesOf(result.racks[i]));
    else rack.textContent = "—";
    row.append(rack, el("td", "score", String(result.scores[i])), el("td", "total", String(view.match.totals[i])));
    if (club) row.append(el("td", null, String(view.match.big_totals[i])));
    return row;
  });
  $("scores").replaceChildren(head, ...rows);
  $("standings").textContent = view.match.over && view.rounds > 1
    ? `Final standings: ${view.match.standings.map((p, k) => `${k + 1}. ${names[p - 1]}`).join(", ")}.`
    : "";
  $("next-round").hidden = view.match.over;
  $("download").href = path(`rounds/${view.round}/record`);
  $("download").setAttribute("download", `rummikub-round-${view.round}.jsonl`);
  // The Done that ended the round goes away: a keyboard user goes on from the end card (unless
  // typing somewhere else).
  if (appearing && !document.activeElement?.matches("input, textarea, select")) {
    (view.match.over ? $("download") : $("next-round")).focus();
  }
}

function showTimer() {
  clearInterval(timerId);
  const timer = view.timer;
  $("timer").hidden = !timer;
  if (!timer) return;
  const deadline = viewAt + timer.left * 1000;
  const tick = () => {
    const left = Math.max(0, (deadline - performance.now()) / 1000);
    $("timer").textContent = `${Math.ceil(left)} s left`;
    $("timer").title = timer.rule;
    $("timer").classList.toggle("low", left <= 10);
    if (left <= 0) {
      clearInterval(timerId);
      if (view.to_move === view.you) act("timeout"); // the others see it when they ask next
    }
    return left > 0;
  };
  if (tick()) timerId = setInterval(tick, 250);
}

async function nextHint() {
  const level = hintLevel + 1;
  try {
    const hint = await post(path("hint"), { level });
    hintLevel = level;
    showHint($("hints"), $("hint"), hint);
  } catch (error) {
    say(error.message);
  }
}

async function reviewThisGame() {
  try {
    const made = await post(path("review"), { round: view.round });
    location.href = `/review?id=${encodeURIComponent(made.id)}`;
  } catch (error) {
    say(error.message);
  }
}

function setOrder(order) {
  savePrefs({ order });
  board.setOrder(order);
  $("sort-colour").setAttribute("aria-pressed", String(order === "colour"));
  $("sort-number").setAttribute("aria-pressed", String(order === "number"));
  if (view && !$("watch").hidden) showWatch();
}

async function main() {
  info = await get("/api/rules");
  setColours(info.colours);
  board = new GameBoard($("board"), { send: (commands) => act("edit", { commands }), onError: say });
  setOrder(prefs().order);
  $("steps-mode").value = prefs().steps;
  $("steps-mode").addEventListener("change", () => savePrefs({ steps: $("steps-mode").value }));
  $("sort-colour").addEventListener("click", () => setOrder("colour"));
  $("sort-number").addEventListener("click", () => setOrder("number"));
  for (const action of ["undo", "redo", "reset"]) $(action).addEventListener("click", () => control(action));
  $("done").addEventListener("click", () => act("done"));
  $("draw").addEventListener("click", () => act("draw"));
  $("hint").addEventListener("click", nextHint);
  $("next-round").addEventListener("click", () => act("next-round"));
  $("review").addEventListener("click", reviewThisGame);
  $("handover-ready").addEventListener("click", () => {
    shownViewer = view.you;
    show(view);
  });
  document.addEventListener("keydown", (event) => {
    if (!(event.ctrlKey || event.metaKey) || event.target.closest("input, select, textarea") || $("turn").hidden) return;
    const key = event.key.toLowerCase();
    if (key === "z" && !event.shiftKey) shortcut("undo");
    else if (key === "y" || key === "z") shortcut("redo");
    else return;
    event.preventDefault();
  });
  // Back and Forward move between the new-game form and a game's address: the page follows.
  window.addEventListener("popstate", () => location.reload());
  const params = new URLSearchParams(location.search);
  const unread = unreadParts(params, ["id", "seat"], "a game's link");
  const id = params.get("id");
  seatKey = params.get("seat");
  if (unread.length) say(`in the link: ${unread.join("; ")}`);
  if (id) {
    try {
      view = { id };
      // On a shared screen the next person may not be the one at it: the hand-over card first.
      if (!seatKey) shownViewer = 0;
      const invite = JSON.parse(localStorage.getItem(`rummikub.invite.${id}`) ?? "[]");
      if (seatKey && invite.length) {
        showInvite(id, invite);
        $("invite").hidden = true; // a reload: the links a button away
        $("invite-again").hidden = false;
      }
      show(await firstView(unread));
    } catch (error) {
      view = null;
      const link = unread.length ? ` In the link: ${unread.join("; ")}.` : "";
      say(`${error.message}. Start a new game below.${link}`);
      showSetup();
    }
  } else {
    showSetup();
  }
  document.body.dataset.ready = "true";
}

main().catch((error) => say(error.message));
