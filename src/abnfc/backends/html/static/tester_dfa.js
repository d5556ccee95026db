function showVerdict(bytes, error, validator) {
  const verdict = document.getElementById("verdict");
  if (error === null) {
    verdict.textContent = message("valid: the input matches {rule} (length: {count})", { count: bytes.length, rule: BOOK.start_rule });
    verdict.className = "verdict valid";
  } else if (error < bytes.length) {
    verdict.textContent = message("invalid: byte {offset} ({byte}) is not allowed here", { offset: error, byte: byteText(bytes[error]) });
    verdict.className = "verdict invalid";
  } else {
    verdict.textContent = message("incomplete: the input ends at offset {count}, and {rule} needs more", { count: bytes.length, rule: BOOK.start_rule });
    verdict.className = "verdict incomplete";
  }
  verdict.dataset.firstError = error === null ? "" : String(error);
  verdict.dataset.state = String(validator.state);
}

// The state of the automaton before minimization before each byte of bytes[0..end) and after
// the last (end + 1 states), or null when the book has none.
function exactStates(bytes, end) {
  if (!EXACT) return null;
  const states = new Int32Array(end + 1);
  let state = EXACT.start;
  for (let offset = 0; offset < end; offset++) {
    states[offset] = state;
    state = EXACT.transitions[state][EXACT.byte_class[bytes[offset]]];
  }
  states[end] = state;
  return states;
}

// At the first error: the bytes the state could read, each set with the positions on the
// input's path reading it (``exact``: the state of the automaton before minimization, or null).
function showExpected(error, state, exact) {
  const box = document.getElementById("expected");
  box.replaceChildren();
  if (error === null) return;
  box.append(element("p", message("Expected at offset {offset}:", { offset: error })));
  const list = element("ul");
  const groups = expectedItems(list, positionsAt(state, exact));
  if (groups.size === 0 || ACCEPTING.includes(state)) list.append(element("li", message("the end of the input")));
  box.append(list);
}

// One row per byte up to the first error: offset, byte, class, state before and after, and the
// grammar positions on the input's path that read the byte (``exact``: see exactStates).
function showSteps(bytes, error, exact) {
  const box = document.getElementById("steps");
  box.replaceChildren();
  if (bytes.length === 0) return;
  box.append(element("h3", message("Steps")));
  const table = element("table");
  const head = element("tr");
  for (const name of ["offset", "byte", "class", "state before", "state after", "read by"]) head.append(element("th", message(name)));
  table.append(head);
  // The steps up to the first error or the end of the input: the last MAX_STEPS of them.
  const last = error === null ? bytes.length - 1 : Math.min(error, bytes.length - 1);
  const first = Math.max(0, last - MAX_STEPS + 1);
  let state = START;
  for (let offset = 0; offset < first; offset++) state = TRANSITIONS[state][classOf[bytes[offset]]];
  for (let offset = first; offset <= last; offset++) {
    const byte = bytes[offset];
    const cls = classOf[byte];
    const next = TRANSITIONS[state][cls];
    const readers = positionsAt(state, exact ? exact[offset] : null).filter((p) => within(byte, p[3]));
    const row = element("tr", undefined, next === DEAD ? "error" : "");
    const printable = byte >= 0x21 && byte <= 0x7e ? ` ${String.fromCharCode(byte)}` : "";
    const cells = [String(offset), "0x" + hex2(byte) + printable, String(cls), String(state), String(next),
      readers.length ? readers.map(position).join("; ") : message("no position of state {state} reads this byte", { state })];
    cells.forEach((text, index) => {
      const cell = element("td", text, index === 5 ? "positions" : "");
      if (index === 3) cell.title = BOOK.notes[state];
      if (index === 4) cell.title = BOOK.notes[next];
      row.append(cell);
    });
    table.append(row);
    state = next;
  }
  if (first > 0) table.append(element("caption", message("steps {first} to {last} of {count} are shown", { first: first + 1, last: last + 1, count: last + 1 })));
  box.append(table);
}

function update() {
  const bytes = inputBytes();
  if (bytes === null) {
    showNotHex();
    return;
  }
  const validator = new Validator();
  validator.feed(bytes);
  const error = validator.firstError();
  if (error !== firstError(bytes)) throw new Error("the incremental and whole-input validators disagree");
  showVerdict(bytes, error, validator);
  showBytes(bytes, error);
  const exact = exactStates(bytes, error ?? bytes.length);
  if (exact && (exact[exact.length - 1] === EXACT.dead) !== (validator.state === DEAD)) {
    throw new Error("the tester's automata disagree");
  }
  showExpected(error, validator.state, exact ? exact[exact.length - 1] : null);
  showSteps(bytes, error, exact);
}

start(update);
