// The analysis board: build a position (palette, drag, typed notation, an uploaded file or a
// shared link), choose the rules, then ask for the best move (with its steps) or for hints.
// The position lives in the page's address, so it can be bookmarked or shared.

import { get, post, upload } from "./api.js";
import { Board } from "./board.js";
import { $, say } from "./dom.js";
import { rulesForm } from "./rules.js";
import { colourList, setColours } from "./tiles.js";
import { showAnswer, showHint } from "./views.js";

let info; // GET /api/rules
let rules; // every rule option's value
let form; // the rules form
let objective = "tiles";
let hintLevel = 0;
let board;

/** Rule options that differ from the standard game (what a request or a link needs to say). */
function ruleChanges() {
  return Object.fromEntries(Object.entries(rules).filter(([key, value]) => info.defaults[key] !== value));
}

function request() {
  return {
    rack: board.rack(),
    table: board.table(),
    initial_meld: $("not-opened").checked,
    rules: ruleChanges(),
    objective,
  };
}

// ---------------------------------------------------------------- the address of the position

function link() {
  const params = new URLSearchParams();
  if (board.rack().length) params.set("rack", board.rack().join(" "));
  for (const set of board.table()) params.append("set", set.join(" "));
  if ($("not-opened").checked) params.set("opened", "no");
  if (objective !== "tiles") params.set("objective", objective);
  for (const [key, value] of Object.entries(ruleChanges())) params.set(key, String(value));
  const query = params.toString();
  return query ? `/?${query}` : "/";
}

/** With an empty table this turn is the initial meld (a player who has opened always has sets on
 * the table), as the library decides: the box shows it and cannot be unticked. With sets on the
 * table it shows the player's own choice (from the box, a link or a file). */
let saidNotOpened = false;
function followTable() {
  const box = $("not-opened");
  const empty = board.table().length === 0;
  box.disabled = empty;
  box.checked = empty || saidNotOpened;
  box.title = empty ? "With an empty table this turn is the initial meld" : "";
}

/** Every invalid table set marked with the server's reason (the library's rules, not the page's):
 * a set typed or dragged wrong is seen at once, not only when the best move is asked for. */
let judging = 0; // the latest table sent: an answer about an older one is not shown
let judged = { rules: "", problems: new Map() }; // a set's tiles -> its problem, under those rules

/** The marks already known for this table: sets judged before under the same rules keep theirs at
 * once (no flicker while the server answers), and a change of rules drops them all (none stale). */
function knownMarks(table, rules) {
  if (judged.rules !== rules) return [];
  return table.flatMap((set, i) => {
    const problem = judged.problems.get(set.join(" "));
    return problem ? [[i, [problem]]] : [];
  });
}

async function judgeSets() {
  const asked = ++judging;
  const table = board.table();
  const rules = ruleChanges();
  board.markInPlace(knownMarks(table, JSON.stringify(rules)));
  if (!table.length) return;
  try {
    const answer = await post("/api/sets", { sets: table, rules });
    if (asked !== judging) return;
    judged = { rules: JSON.stringify(rules), problems: new Map(table.map((set, i) => [set.join(" "), answer.sets[i].problem])) };
    board.markInPlace(answer.sets.flatMap((s, i) => (s.valid ? [] : [[i, [s.problem]]])));
  } catch {
    // A rule or tile the server refuses (said as the board asks for a move): no marks of other rules.
    if (asked === judging) board.markInPlace([]);
  }
}

/** Anything changed: the answer and hints shown are stale, the address is updated. */
function changed() {
  followTable();
  judgeSets();
  $("result").hidden = true;
  $("hints").hidden = true;
  $("hints").replaceChildren();
  hintLevel = 0;
  $("hint").textContent = "Hint 1";
  $("hint").disabled = false;
  const here = link();
  history.replaceState(null, "", here);
  $("share").href = here;
  const special = Object.entries(ruleChanges()).map(([key, value]) => `${key}=${value}`);
  $("rules-summary").textContent = `${special.length ? special.join(", ") : "standard rules"}, most ${objective}`;
}

/** The board and rules from the address; the address itself if some of it could not be read. */
async function fromAddress() {
  const given = location.href;
  const params = new URLSearchParams(location.search);
  const problems = [];
  // Every part of the link is read or named as not read: a value dropped in silence would
  // show another position or objective than the one the link's sender meant.
  const choices = { objective: ["tiles", "points"], opened: ["yes", "no"] };
  const seen = new Set();
  for (const [key, value] of params) {
    let problem = null;
    if (seen.has(key) && key !== "rack" && key !== "set") problem = `${key} is given twice (the first is read)`;
    else if (key in info.defaults) problem = ruleFromLink(key, value);
    else if (key in choices) {
      if (!choices[key].includes(value)) problem = `expected ${choices[key].join(" or ")}`;
    } else if (key !== "rack" && key !== "set") {
      problem = "not a part of a position's link (rack, set, opened, objective and the rules are)";
    }
    if (problem) problems.push(`${key}=${value}: ${problem}`);
    seen.add(key);
  }
  if (params.get("objective") === "points") objective = "points";
  saidNotOpened = params.get("opened") === "no";
  form.show(rules, objective);
  // Each part read on its own (sets need not be valid yet), and a part with a bad tile token by
  // token: the bad ones are named, every other tile loads.
  const readPart = async (text) => {
    if (!text.trim()) return [];
    try {
      return await parse(text);
    } catch {
      const each = text.trim().split(/\s+/).map((token) =>
        parse(token).catch((error) => {
          if (!problems.includes(error.message)) problems.push(error.message);
          return [];
        }),
      );
      return (await Promise.all(each)).flat();
    }
  };
  const parts = [params.getAll("rack").join(" "), ...params.getAll("set")]; // every rack part is read
  const read = await Promise.all(parts.map(readPart));
  board.load(read[0], read.slice(1).filter((s) => s.length));
  problems.push(...board.overCopies());
  if (!problems.length) return null;
  say(`in the link: ${problems.join("; ")}`);
  return given;
}

/** A rule from a link into `rules`; what is wrong with it (the standard value kept), if anything. */
function ruleFromLink(key, value) {
  const base = info.defaults[key];
  if (typeof base === "boolean") {
    if (["yes", "true", "1"].includes(value)) rules[key] = true;
    else if (["no", "false", "0"].includes(value)) rules[key] = false;
    else return "expected yes or no";
  } else if (typeof base === "number") {
    const number = Number(value);
    const [low, high] = info.bounds[key] ?? [-Infinity, Infinity];
    if (!value.trim() || !Number.isInteger(number)) return "not a whole number";
    if (number < low || number > high) return `this server takes ${low}..${high}`;
    rules[key] = number;
  } else if (key in info.choices && !info.choices[key].includes(value)) {
    return `expected ${info.choices[key].join(", ")}`;
  } else {
    rules[key] = value;
  }
  return null;
}

async function parse(text) {
  return (await post("/api/tiles", { text, rules: ruleChanges() })).tiles;
}

// ---------------------------------------------------------------- the palette and the rules

function palette() {
  // Drawn within the server's bounds (a link may ask for more; the server then says what is wrong).
  const numbers = Math.min(rules.numbers, info.bounds.numbers[1]);
  const rows = colourList()
    .slice(0, rules.colours)
    .map((c) => Array.from({ length: numbers }, (_, i) => `${c.letter}${i + 1}`));
  if (rules.jokers > 0) rows.push(["J"]);
  board.renderPalette(rows);
}

function rulesChanged(values, chosenObjective) {
  rules = values;
  objective = chosenObjective;
  palette();
  changed();
}

// ---------------------------------------------------------------- answers

/** A button disabled during its request loses the focus: give it back (without scrolling, so
 * that an error brought into view stays in view). */
function refocus(button, focused) {
  if (focused && !button.disabled && document.activeElement === document.body) button.focus({ preventScroll: true });
}

async function bestMove() {
  say("");
  const focused = document.activeElement === $("solve");
  $("solve").disabled = true;
  try {
    const before = board.table();
    const answer = await post("/api/solve", { ...request(), steps: true });
    showAnswer($("result"), answer, before);
    $("result").hidden = false;
  } catch (error) {
    say(error.message);
  } finally {
    $("solve").disabled = false;
    refocus($("solve"), focused);
  }
}

async function nextHint() {
  say("");
  const level = hintLevel + 1;
  const focused = document.activeElement === $("hint");
  $("hint").disabled = true;
  try {
    const hint = await post("/api/hint", { ...request(), level });
    hintLevel = level;
    showHint($("hints"), $("hint"), hint, focused);
  } catch (error) {
    say(error.message);
    $("hint").disabled = false;
  }
  refocus($("hint"), focused);
}

async function openFile(event) {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  try {
    const position = await upload("/api/position", file);
    rules = { ...info.defaults, ...position.rules };
    saidNotOpened = !position.opened;
    form.show(rules, objective);
    palette();
    board.load(position.rack, position.table);
    changed();
    say(`Opened ${file.name}${position.title ? `: ${position.title}` : ""}.`, "info");
  } catch (error) {
    say(error.message);
  }
}

async function main() {
  info = await get("/api/rules");
  setColours(info.colours);
  rules = { ...info.defaults };
  form = rulesForm($("rules"), info, rulesChanged);
  board = new Board($("board"), {
    mode: "position",
    rackTitle: "Your rack",
    palette: $("palette"),
    parseTiles: parse,
    copies: (tile) => (tile === "J" ? rules.jokers : rules.copies),
    onChange: () => {
      say("");
      changed();
    },
    onError: say,
  });
  const unread = await fromAddress();
  palette();
  changed();
  if (unread) history.replaceState(null, "", unread); // the link as given, until the board changes
  $("solve").addEventListener("click", bestMove);
  $("hint").addEventListener("click", nextHint);
  $("undo").addEventListener("click", () => board.undo());
  $("redo").addEventListener("click", () => board.redo());
  $("clear").addEventListener("click", () =>
    board.change((state) => {
      state.rack = [];
      state.sets = [];
    }),
  );
  $("not-opened").addEventListener("change", () => {
    saidNotOpened = $("not-opened").checked;
    changed();
  });
  $("upload").addEventListener("change", openFile);
  board.listenForUndoKeys();
  document.body.dataset.readyMs = String(Math.round(performance.now())); // for bench/web_speed.py
  document.body.dataset.ready = "true";
}

main().catch((error) => say(error.message));
