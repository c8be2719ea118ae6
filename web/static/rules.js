// The rule options as a form, made from what the server says they are (GET /api/rules): every
// option the CLI has, its default, the values this server takes. Only the words are the page's.

import { say } from "./dom.js";

const LABELS = {
  numbers: "Numbers 1 to",
  colours: "Colours",
  copies: "Copies of each tile",
  jokers: "Jokers in the game",
  "min-set-size": "Fewest tiles in a set",
  "meld-threshold": "Points the initial meld needs",
  "joker-in-meld": "A joker may be in the initial meld",
  "continue-after-meld": "After the initial meld, go on with the table in the same turn",
  wrap: "Runs past the top number",
  "joker-penalty": "A joker's value (points objective)",
  "joker-rules": "Jokers on the table",
  "joker-retrieval": "A retrieved joker must go",
};
const CHOICE_WORDS = {
  none: "none (12-13-1 is not a run)",
  american: "American (a 1 may end a run after 13)",
  full: "full (runs wrap freely)",
  free: "free (move like any tile)",
  strict: "strict (keep standing for their tile)",
  locked: "locked (strict, and their set may only grow)",
  official: "into a set with two rack tiles",
  club: "anywhere (one rack tile played)",
  tiles: "most tiles played",
  points: "most points played",
};

function field(labelText, control) {
  const label = document.createElement("label");
  label.className = control.type === "checkbox" ? "field check" : "field";
  const words = document.createElement("span");
  words.textContent = labelText;
  if (control.type === "checkbox") label.append(control, words);
  else label.append(words, control);
  return label;
}

function select(name, values) {
  const control = document.createElement("select");
  control.name = name;
  for (const value of values) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = CHOICE_WORDS[value] ?? value;
    control.append(option);
  }
  return control;
}

/** Fill `form` with the options; `onChange(rules, objective)` after each change. Without
 * `withObjective` (a game has no objective), only the rules. */
export function rulesForm(form, info, onChange, { withObjective = true } = {}) {
  const controls = {};
  const kept = { ...info.defaults }; // each number as last read: what an emptied field keeps
  const objective = select("objective", info.objectives);
  if (withObjective) form.append(field("Objective", objective));
  // In a game a joker has no value to play for: it is what one left on a rack costs (docs/rules.md).
  const labels = withObjective ? LABELS : { ...LABELS, "joker-penalty": "What a joker left on a rack costs (points)" };
  for (const [key, value] of Object.entries(info.defaults)) {
    let control;
    if (typeof value === "boolean") {
      control = document.createElement("input");
      control.type = "checkbox";
    } else if (key in info.choices) {
      control = select(key, info.choices[key]);
    } else {
      control = document.createElement("input");
      control.type = "number";
      control.step = "1";
      const [low, high] = info.bounds[key] ?? [0, 10000];
      control.min = String(low);
      control.max = String(high);
    }
    control.name = key;
    controls[key] = control;
    form.append(field(labels[key] ?? key, control));
  }
  const read = () => {
    const rules = {};
    for (const [key, control] of Object.entries(controls)) {
      if (control.type === "checkbox") rules[key] = control.checked;
      else if (control.type === "number") {
        // Within the server's bounds: a typo of 1000 colours should not draw 1000 rows of tiles.
        const typed = control.value;
        const number = Math.round(Number(typed));
        const clamped = Math.min(Number(control.max), Math.max(Number(control.min), Number.isFinite(number) ? number : kept[key]));
        if (!typed.trim()) {
          // Emptied (or not a number, which a number field also reads as empty): not a silent minimum.
          say(`${key}: left empty, it stays ${kept[key]}`, "info");
          control.value = String(kept[key]);
        } else {
          if (clamped !== Number(typed)) {
            say(`${key}: ${typed} became ${clamped} (whole numbers from ${control.min} to ${control.max} here)`, "info");
          }
          control.value = String(clamped);
          kept[key] = clamped;
        }
        rules[key] = kept[key];
      } else rules[key] = control.value;
    }
    return rules;
  };
  form.addEventListener("change", () => onChange(read(), objective.value));
  form.addEventListener("submit", (event) => event.preventDefault());
  return {
    read,
    show(rules, chosenObjective) {
      objective.value = chosenObjective;
      for (const [key, control] of Object.entries(controls)) {
        if (control.type === "checkbox") control.checked = Boolean(rules[key]);
        else control.value = String(rules[key]);
        if (control.type === "number") kept[key] = rules[key];
      }
    },
  };
}
