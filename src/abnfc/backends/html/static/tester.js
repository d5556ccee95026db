// The tester: validates what the reader types with the validator above (isValid, firstError,
// Validator, expectedBytes and its tables) and shows the automaton's steps.  BOOK holds what
// each state expects in grammar terms (rule, alternative, element, bytes) and the page's words.

const MAX_STEPS = 500;
const MAX_BYTES = 2000;
const BYTES_AFTER_ERROR = 16;
const message = (text, values = {}) =>
  (BOOK.messages[text] ?? text).replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
const hex2 = (byte) => byte.toString(16).toUpperCase().padStart(2, "0");
// A printable ASCII byte as Python's repr writes it ('a', "'", '\\'), as abnfc's other outputs do.
const quoted = (byte) => { const c = String.fromCharCode(byte); return c === "'" ? `"'"` : c === "\\" ? "'\\\\'" : `'${c}'`; };
const printableRange = (lo, hi) => (lo < 0x20 || hi > 0x7e ? "" : lo === hi ? ` (${quoted(lo)})` : ` (${quoted(lo)}-${quoted(hi)})`);
// %x30-39 ('0'-'9') / %x80-BF: each range with the characters it stands for where both ends are printable ASCII.
const abnfBytes = (ranges) => ranges.map(([lo, hi]) => (lo === hi ? `%x${hex2(lo)}` : `%x${hex2(lo)}-${hex2(hi)}`) + printableRange(lo, hi)).join(" / ");
// 0x78 'x', or 0xA0: a byte, with its character where it is printable ASCII.
const byteText = (byte) => "0x" + hex2(byte) + (byte >= 0x20 && byte <= 0x7e ? " " + quoted(byte) : "");
const within = (byte, ranges) => ranges.some(([lo, hi]) => lo <= byte && byte <= hi);
const classOf = new Uint8Array(256);
CLASSES.forEach((ranges, index) => { for (const [lo, hi] of ranges) classOf.fill(index, lo, hi + 1); });

// The automaton before minimization (BOOK.exact), run alongside the validator: its states are
// exactly the sets of grammar positions an input can be at, where a minimal state merges states
// reached along different paths.  So the tester names only the positions on the path the input
// took, as abnfc explain does.  Null when the book could not embed it (a very large table): then
// a state's positions are all those of the minimal state.
const EXACT = BOOK.exact;
if (EXACT) { // each row: its most common target, then (class, target) pairs for the other cells
  const classes = Math.max(...EXACT.byte_class) + 1;
  EXACT.transitions = EXACT.rows.map(([common, ...pairs]) => {
    const row = new Array(classes).fill(common);
    for (let i = 0; i < pairs.length; i += 2) row[pairs[i]] = pairs[i + 1];
    return row;
  });
}
const EXACT_POSITIONS = EXACT ? EXACT.positions.map((list) => list.map((index) => EXACT.position_list[index])) : null;
const positionsAt = (state, exact) => (EXACT_POSITIONS && exact !== null ? EXACT_POSITIONS[exact] : BOOK.positions[state]);

function position([rule, alternative, element, reads]) {
  return message("{bytes} ({rule} alternative {alternative}, element {element})",
    { bytes: abnfBytes(reads), rule, alternative, element });
}

function place([rule, alternative, element]) {
  return message("{rule} alternative {alternative}, element {element}", { rule, alternative, element });
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

// The input as bytes, or null when hex mode holds something other than pairs of hex digits.
function inputBytes() {
  const text = document.getElementById("input").value;
  if (document.getElementById("mode-text").checked) return new TextEncoder().encode(text);
  const digits = text.replace(/\s+/g, "");
  if (!/^([0-9a-fA-F]{2})*$/.test(digits)) return null;
  return Uint8Array.from(digits.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

// The bytes up to the first error (or the end) and a few after it; a long input shows its last
// MAX_BYTES bytes before that point, so the page stays quick whatever is pasted.
function showBytes(bytes, error) {
  const box = document.getElementById("bytes");
  box.replaceChildren();
  if (bytes.length === 0) box.append(element("em", message("empty input")));
  const end = Math.min(bytes.length, (error ?? bytes.length) + 1 + BYTES_AFTER_ERROR);
  const first = Math.max(0, (error ?? bytes.length) - MAX_BYTES);
  if (first > 0) box.append(element("span", "…", "elided"));
  for (let offset = first; offset < end; offset++) {
    const cell = element("span", hex2(bytes[offset]), offset === error ? "error" : error !== null && offset > error ? "after" : "");
    cell.title = `${message("offset")} ${offset}`;
    box.append(cell);
  }
  if (end < bytes.length) box.append(element("span", "…", "elided"));
}

// One item of ``list`` per set of bytes ``positions`` read (those of a state on the input's
// path), with exactly the positions that read those bytes there (a position is never listed
// under bytes it does not read); the groups.
function expectedItems(list, positions) {
  const groups = new Map();
  for (const position of positions) {
    const key = JSON.stringify(position[3]);
    if (!groups.has(key)) groups.set(key, { ranges: position[3], places: [] });
    groups.get(key).places.push(place(position));
  }
  for (const { ranges, places } of groups.values()) {
    const item = element("li");
    item.append(element("code", abnfBytes(ranges)), ": " + places.join("; "));
    list.append(item);
  }
  return groups;
}

function showNotHex() {
  const verdict = document.getElementById("verdict");
  verdict.textContent = message("Not hex: write bytes as pairs of hex digits, such as E2 82 AC");
  verdict.className = "verdict not-hex";
  for (const id of ["bytes", "expected", "steps"]) document.getElementById(id).replaceChildren();
}

// Run ``update`` on every edit and once now; the page is ready after that.
function start(update) {
  // For tests and curious readers: the page's validator on bytes given as a hex string.
  window.abnfcBook = { isValid, firstError, Validator, expectedBytes, check: (hex) => firstError(Uint8Array.from((hex.match(/../g) ?? []).map((p) => parseInt(p, 16)))) };
  document.getElementById("input").addEventListener("input", update);
  for (const id of ["mode-text", "mode-hex"]) document.getElementById(id).addEventListener("change", update);
  update();
  document.body.dataset.ready = "true";
}
