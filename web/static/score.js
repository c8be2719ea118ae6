// The score sheet of a game at a real table (docs/web.md): the sheet is kept in this browser in
// the score file's own form (so "Save the score file" writes what `rummikub score` reads), and
// every change goes through the server, which checks the round and computes the scores.

import { post } from "./api.js";
import { $, element, plural, saveAs, say } from "./dom.js";

const STORE = "rummikub.score-sheet";
let sheet = null; // the score file, as an object
let file = ""; // its text, as `rummikub score` writes it
let results = null; // `score show --json`
let replacing = null; // the round being corrected (from 1), or null: the next round

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

// ---------------------------------------------------------------- the sheet

function accept(answer) {
  sheet = answer.sheet;
  file = answer.file;
  results = answer.results;
  localStorage.setItem(STORE, JSON.stringify(sheet));
  replacing = null;
  show();
}

function show() {
  $("start").hidden = true;
  $("sheet-card").hidden = false;
  $("round-card").hidden = false;
  const club = results.scoring === "club";
  $("sheet-title").textContent = results.players.join(", ");
  $("sheet-settings").textContent =
    `${results.scoring} scoring, a joker ${results.joker_penalty}; ${plural(results.rounds.length, "round")}.`;
  showTable(club);
  $("standings").replaceChildren(
    ...results.standings.map((s) =>
      element("li", {
        value: s.rank, // players with equal results share a place (1, 2, 2), as `score show` ranks them
        "data-player": s.player,
        text: club
          ? `${s.player}: ${plural(s.big_points, "big point")}, ${s.small_points} small points`
          : `${s.player}: ${s.total}`,
      }),
    ),
  );
  showRoundForm();
}

function showTable(club) {
  const players = results.players;
  const head = element("tr", {}, element("th", { text: "Round" }), element("th", { text: "Winner" }),
    ...players.map((p) => element("th", { text: p })), element("th", {}));
  // A round's notes take a row of their own under it, not a column: a phone has no room to spare.
  const columns = players.length + 3;
  const rows = results.rounds.flatMap((r) => [
    element("tr", { "data-round": r.round, class: notes(r) ? "noted" : null },
      element("td", { text: String(r.round) }),
      element("td", { text: r.winner }),
      ...players.map((p) =>
        element("td", { class: "score" }, signed(r.scores[p]), " ", element("span", { class: "running", text: `(${r.running_totals[p]})` })),
      ),
      element("td", {}, element("button", {
        type: "button", text: "Correct", "aria-label": `Correct round ${r.round}`, onclick: () => correct(r.round),
      })),
    ),
    notes(r)
      ? element("tr", { "data-notes-for": r.round, class: "notes-row" },
        element("td", { class: "notes", colSpan: columns, text: notes(r) }))
      : null,
  ].filter((row) => row !== null));
  const footer = club
    ? [footRow("Big points", players.map((p) => results.big_points[p])), footRow("Small points", players.map((p) => results.small_points[p]))]
    : [footRow("Total", players.map((p) => results.totals[p]))];
  $("sheet").replaceChildren(
    element("thead", {}, head),
    element("tbody", {}, ...rows),
    element("tfoot", {}, ...footer),
  );
}

function footRow(label, values) {
  return element("tr", {}, element("th", { text: label }), element("td", {}),
    ...values.map((v) => element("td", { class: "score total", text: String(v) })), element("td", {}));
}

function notes(r) {
  return [
    ...(r.blocked ? ["blocked"] : []),
    ...r.never_opened.map((p) => `${p} never opened`),
    ...r.could_have_opened.map((p) => `${p} could have opened`),
  ].join("; ");
}

// ---------------------------------------------------------------- entering a round

function showRoundForm(round = null) {
  const players = results.players;
  const club = results.scoring === "club";
  const number = replacing ?? results.rounds.length + 1;
  $("round-title").textContent = replacing ? `Correct round ${number}` : `Round ${number}`;
  $("enter").textContent = replacing ? `Correct round ${number}` : `Enter round ${number}`;
  $("cancel").hidden = !replacing;
  const winner = round ? (round.blocked ? "" : round.winner) : null;
  const choices = [...players.map((p) => [p, p]), ["", "Nobody could play (blocked): the lowest rack wins"]];
  $("winners").replaceChildren(
    ...choices.map(([value, text]) =>
      element("label", { class: "field check" },
        element("input", { type: "radio", name: "winner", value, checked: winner === value, onchange: followWinner }),
        element("span", { text })),
    ),
  );
  // A blocked round's winner is the lowest rack; named only when racks tie for it (a corrected
  // round keeps the one it named).
  $("blocked-winner").replaceChildren(
    element("option", { value: "", text: "the lowest rack (no tie)" }),
    ...players.map((p) => element("option", { value: p, text: p })),
  );
  $("blocked-winner").value = round?.blocked ? (round.winner ?? "") : "";
  $("rack-head").replaceChildren(element("tr", {}, element("th", { text: "Player" }), element("th", { text: "Left on the rack" }),
    ...(club ? [element("th", { text: "Never opened" }), element("th", { text: "Could have opened" })] : [])));
  $("racks").replaceChildren(
    ...players.map((p) =>
      element("tr", { "data-player": p },
        element("th", { text: p }),
        element("td", {}, element("input", {
          class: "rack", autocomplete: "off", "aria-label": `${p}'s rack`,
          value: round?.racks?.[p] !== undefined ? String(round.racks[p]) : "",
        })),
        ...(club
          ? ["never_opened", "could_have_opened"].map((flag) =>
              element("td", {}, element("input", {
                type: "checkbox", class: flag, "aria-label": `${p} ${flag.replaceAll("_", " ")}`,
                checked: Boolean(round?.[flag]?.includes(p)),
              })))
          : []),
      ),
    ),
  );
  followWinner();
}

/** The winner left nothing on the rack: their rack field is off (in a blocked round, everybody's
 * is on, and a tie for the lowest rack may be settled by naming its winner). */
function followWinner() {
  const chosen = document.querySelector("input[name='winner']:checked")?.value;
  $("blocked-winner-field").hidden = chosen !== "";
  for (const row of $("racks").querySelectorAll("tr")) {
    const input = row.querySelector("input.rack");
    const won = chosen !== undefined && chosen !== "" && row.dataset.player === chosen;
    input.disabled = won;
    input.placeholder = won ? "won the round" : "R5 K12 J, or 23";
  }
}

function enteredRound() {
  const chosen = document.querySelector("input[name='winner']:checked");
  const blocked = chosen?.value === "";
  const named = blocked ? $("blocked-winner").value || null : chosen?.value ?? null;
  const round = { winner: named, racks: {} };
  for (const row of $("racks").querySelectorAll("tr")) {
    const input = row.querySelector("input.rack");
    const text = input.value.trim();
    if (!input.disabled && text) round.racks[row.dataset.player] = text;
  }
  for (const flag of ["never_opened", "could_have_opened"]) {
    const names = [...$("racks").querySelectorAll(`input.${flag}:checked`)].map((box) => box.closest("tr").dataset.player);
    if (names.length) round[flag] = names;
  }
  if (blocked) round.blocked = true;
  return round;
}

async function enter(event) {
  event.preventDefault();
  say("");
  const body = { sheet, round: enteredRound() };
  if (replacing) body.replace = replacing;
  try {
    const was = replacing;
    accept(await post("/api/score/round", body));
    say(was ? `Round ${was} corrected.` : `Round ${results.rounds.length} entered.`, "info");
  } catch (error) {
    say(error.message); // the form keeps what was typed
  }
}

function correct(number) {
  say(""); // "Round 2 entered." is over once a correction starts
  replacing = number;
  showRoundForm(sheet.rounds[number - 1]);
  $("round-card").scrollIntoView({ block: "nearest" });
  document.querySelector("input[name='winner']")?.focus();
}

// ---------------------------------------------------------------- starting, saving, opening

async function start(event) {
  event.preventDefault();
  say("");
  const players = $("players").value.split(",").map((p) => p.trim()).filter(Boolean);
  const body = { players, scoring: $("scoring").value };
  if ($("joker-penalty").value) body.joker_penalty = Number($("joker-penalty").value);
  try {
    accept(await post("/api/score/new", body));
  } catch (error) {
    say(error.message);
  }
}

async function open(event) {
  const chosen = event.target.files[0];
  event.target.value = "";
  if (!chosen) return;
  say("");
  let data;
  try {
    data = JSON.parse(await chosen.text());
  } catch {
    say(`${chosen.name} is not a score file (not JSON)`);
    return;
  }
  try {
    accept(await post("/api/score/sheet", { sheet: data }));
    say(`Opened ${chosen.name}.`, "info");
  } catch (error) {
    say(`${chosen.name}: ${error.message}`);
  }
}

function startAgain() {
  if (!confirm("Start a new sheet? This one stays only in a file you saved.")) return;
  localStorage.removeItem(STORE);
  sheet = results = null;
  $("sheet-card").hidden = $("round-card").hidden = true;
  $("start").hidden = false;
  say("");
}

async function main() {
  $("new-sheet").addEventListener("submit", start);
  $("round-form").addEventListener("submit", enter);
  $("cancel").addEventListener("click", () => {
    say("");
    replacing = null;
    showRoundForm();
  });
  $("download").addEventListener("click", () => saveAs(file, "score.json"));
  $("open").addEventListener("change", open);
  $("open-first").addEventListener("change", open);
  $("new").addEventListener("click", startAgain);
  const kept = localStorage.getItem(STORE);
  $("start").hidden = Boolean(kept);
  if (kept) {
    try {
      accept(await post("/api/score/sheet", { sheet: JSON.parse(kept) }));
    } catch (error) {
      $("start").hidden = false;
      say(`The sheet kept in this browser cannot be read (${error.message}); start a new one.`);
    }
  }
  document.body.dataset.readyMs = String(Math.round(performance.now())); // for bench/web_speed.py
  document.body.dataset.ready = "true";
}

main().catch((error) => say(error.message));
