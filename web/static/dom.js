// The small DOM helpers every page uses.

/** The element with this id. */
export const $ = (id) => document.getElementById(id);

/** A one-line message in the page's #message box (an error unless `kind` says otherwise; "" clears it).
 * An error the person cannot see is no help: scrolled out of view (on a phone the box may be far
 * above the button pressed), it is brought into view. */
export function say(text, kind = "error") {
  const message = $("message");
  message.textContent = text;
  message.dataset.kind = kind;
  if (text && kind === "error") {
    const box = message.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) message.scrollIntoView({ block: "nearest" });
  }
}

/** An element with a class and a text, either optional. */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** An element with attributes (`class`, `text`, `data-*`, `aria-*`, `role`, else properties;
 * undefined, false and null leave one out) and children (null and undefined left out). */
export function element(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false || value === null) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("data-") || key.startsWith("aria-") || key === "role") node.setAttribute(key, value);
    else node[key] = value;
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

/** "1 tile", "2 tiles". */
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Offer `text` as a file download named `name`. */
export function saveAs(text, name, type = "application/json") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = element("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}

/** What in a page's link is not read: a part the page does not know, one given again (the first
 * is read), or a value `check` refuses (it returns what is wrong, or null). Named above the page,
 * as a part dropped in silence would show another thing than the link's sender meant. `known`:
 * the parts read; `what`: whose link ("a review's link"). */
export function unreadParts(params, known, what, check = () => null) {
  const problems = [];
  const seen = new Set();
  const names = known.length > 1 ? `${known.slice(0, -1).join(", ")} and ${known.at(-1)} are` : `${known[0]} is`;
  for (const [key, value] of params) {
    const problem = !known.includes(key)
      ? `not a part of ${what} (${names})`
      : seen.has(key)
        ? `${key} is given twice (the first is read)`
        : check(key, value);
    if (problem) problems.push(`${key}=${value}: ${problem}`);
    seen.add(key);
  }
  return problems;
}
