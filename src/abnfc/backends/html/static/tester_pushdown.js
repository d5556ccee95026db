// The tester of a pushdown validator (follows tester.js, whose helpers it uses): the verdict of
// the validator above, and its run byte by byte with the stack: a byte that leads into a call
// state (FIRST_CALL and above) pushes it and goes on in ENTRIES[call - FIRST_CALL]; a byte in
// RETURNS[state] that the table sends to DEAD, with a nested part open, pops the call state,
// which reads the byte.  BOOK.parts names the machines: [name, first state, end] each.

const intersect = (a, b) => {
  const found = [];
  for (const [lo1, hi1] of a) for (const [lo2, hi2] of b) if (Math.max(lo1, lo2) <= Math.min(hi1, hi2)) found.push([Math.max(lo1, lo2), Math.min(hi1, hi2)]);
  return found;
};
const partName = (state) => (BOOK.parts.find(([, first, end]) => first <= state && state < end) ?? ["?"])[0];

// The run over bytes[0..end) as the validator takes it, with the run of the machines before
// minimization alongside (BOOK.exact, when the book has it: the same calls and returns, call for
// call).  Steps from offset keep on are added to rows: the state before and after each byte, the
// call state pushed or popped (0 if none), the depth after, and the states of the run alongside
// (the state before, the call state popped).  Returns the states and the stacks of both runs
// where they stop (before a failing byte); the exact ones are null without BOOK.exact.
function run(bytes, end, keep, rows) {
  let state = START;
  const stack = [];
  let exact = EXACT ? EXACT.start : null;
  const exactStack = [];
  for (let offset = 0; offset < end; offset++) {
    const byte = bytes[offset];
    const cls = classOf[byte];
    let next = TRANSITIONS[state][cls];
    let pushed = 0;
    let popped = 0;
    if (next === DEAD && stack.length > 0 && within(byte, RETURNS[state] ?? [])) {
      popped = stack.pop();
      next = TRANSITIONS[popped][cls];
    }
    if (next >= FIRST_CALL) {
      pushed = next;
      stack.push(next);
      next = ENTRIES[next - FIRST_CALL];
    }
    let exactNext = null;
    let exactPopped = 0;
    if (EXACT) {
      const exactClass = EXACT.byte_class[byte];
      exactNext = EXACT.transitions[exact][exactClass];
      if (popped) {
        exactPopped = exactStack.pop();
        exactNext = EXACT.transitions[exactPopped][exactClass];
      }
      if (pushed) {
        if (exactNext < EXACT.first_call) throw new Error("the tester's runs disagree on a call");
        exactStack.push(exactNext);
        exactNext = EXACT.entries[exactNext - EXACT.first_call];
      }
    }
    if (offset >= keep) rows.push({ offset, byte, cls, state, next, pushed, popped, depth: stack.length, exact, exactPopped });
    if (next === DEAD) break;
    state = next;
    exact = exactNext;
  }
  return { state, stack, exact: EXACT ? exact : null, exactStack: EXACT ? exactStack : null };
}

function showVerdict(bytes, error, validator) {
  const verdict = document.getElementById("verdict");
  if (error === null) {
    verdict.textContent = message("valid: the input matches {rule} (length: {count})", { count: bytes.length, rule: BOOK.start_rule });
    verdict.className = "verdict valid";
  } else if (error < bytes.length) {
    verdict.textContent = message("invalid: byte {offset} ({byte}) is not allowed here", { offset: error, byte: byteText(bytes[error]) });
    verdict.className = "verdict invalid";
  } else if (validator.depth > 0) {
    verdict.textContent = message("incomplete: the input ends at offset {count} with nested parts still open (depth {depth}), and {rule} needs more",
      { count: bytes.length, depth: validator.depth, rule: BOOK.start_rule });
    verdict.className = "verdict incomplete";
  } else {
    verdict.textContent = message("incomplete: the input ends at offset {count}, and {rule} needs more", { count: bytes.length, rule: BOOK.start_rule });
    verdict.className = "verdict incomplete";
  }
  verdict.dataset.firstError = error === null ? "" : String(error);
  verdict.dataset.state = String(validator.state);
  verdict.dataset.depth = String(validator.depth);
}

// The input nests deeper than the validator's limit: it gives no verdict.
function showTooDeep(bytes, problem) {
  const verdict = document.getElementById("verdict");
  verdict.textContent = message("too deep: the input nests deeper than {limit} at byte offset {offset}; the validator gives no verdict",
    { limit: problem.limit, offset: problem.offset });
  verdict.className = "verdict invalid too-deep";
  verdict.dataset.firstError = "";
  verdict.dataset.state = "";
  verdict.dataset.depth = String(problem.limit);
  showBytes(bytes, problem.offset);
  for (const id of ["expected", "steps"]) document.getElementById(id).replaceChildren();
}

// At the first error: the bytes the state could read, each set with the positions on the
// input's path reading it, and where the state may close the nested part open, the closing bytes
// with the positions of the call state on top of the stack that read them (``stop``: where run()
// stopped).
function showExpected(error, stop) {
  const { state, stack } = stop;
  const box = document.getElementById("expected");
  box.replaceChildren();
  if (error === null) return;
  box.append(element("p", message("Expected at offset {offset}:", { offset: error })));
  const list = element("ul");
  const groups = expectedItems(list, positionsAt(state, stop.exact));
  const closing = stack.length > 0 ? RETURNS[state] ?? [] : [];
  if (closing.length > 0) {
    const call = stack[stack.length - 1];
    const exactCall = stop.exactStack ? stop.exactStack[stop.exactStack.length - 1] : null;
    for (const position of positionsAt(call, exactCall)) {
      const ranges = intersect(position[3], closing);
      if (ranges.length === 0) continue;
      const item = element("li", undefined, "closes");
      item.append(element("code", abnfBytes(ranges)), ": " + place(position) + " "
        + message("(closes {part}: call state {call} is popped and reads the byte)", { part: partName(state), call }));
      list.append(item);
    }
  }
  if ((groups.size === 0 && closing.length === 0) || (stack.length === 0 && ACCEPTING.includes(state))) {
    list.append(element("li", message("the end of the input")));
  }
  box.append(list);
}

// One row per byte up to the first error: offset, byte, class, state before and after, the depth
// after it, whether it opens or closes a nested part, and the grammar positions that read it (of
// the state before, or of the call state popped when it closes a nested part).
function showSteps(bytes, error) {
  const box = document.getElementById("steps");
  box.replaceChildren();
  if (bytes.length === 0) return;
  box.append(element("h3", message("Steps")));
  const table = element("table");
  const head = element("tr");
  for (const name of ["offset", "byte", "class", "state before", "state after", "depth", "nesting", "read by"]) head.append(element("th", message(name)));
  table.append(head);
  const last = error === null ? bytes.length - 1 : Math.min(error, bytes.length - 1);
  const first = Math.max(0, last - MAX_STEPS + 1);
  const rows = [];
  run(bytes, last + 1, first, rows);
  for (const { offset, byte, cls, state, next, pushed, popped, depth, exact, exactPopped } of rows) {
    const reader = popped || state;
    const readers = positionsAt(reader, popped ? exactPopped : exact).filter((p) => within(byte, p[3]));
    const nesting = pushed
      ? message("opens {part} (call state {call} pushed, depth {depth})", { part: partName(ENTRIES[pushed - FIRST_CALL]), call: pushed, depth })
      : popped ? message("closes {part} (call state {call} popped, depth {depth})", { part: partName(state), call: popped, depth }) : "";
    const row = element("tr", undefined, next === DEAD ? "error" : pushed ? "opens" : popped ? "closes" : "");
    const printable = byte >= 0x21 && byte <= 0x7e ? ` ${String.fromCharCode(byte)}` : "";
    const cells = [String(offset), "0x" + hex2(byte) + printable, String(cls), String(state), String(next), String(depth), nesting,
      readers.length ? readers.map(position).join("; ") : message("no position of state {state} reads this byte", { state: reader })];
    cells.forEach((text, index) => {
      const cell = element("td", text, index === 6 ? "nesting" : index === 7 ? "positions" : "");
      if (index === 3) cell.title = BOOK.notes[state];
      if (index === 4) cell.title = BOOK.notes[next];
      row.append(cell);
    });
    table.append(row);
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
  let error;
  try {
    validator.feed(bytes);
    error = validator.firstError();
  } catch (problem) {
    if (!(problem instanceof NestingError)) throw problem;
    showTooDeep(bytes, problem);
    return;
  }
  if (error !== firstError(bytes)) throw new Error("the incremental and whole-input validators disagree");
  const stop = run(bytes, error ?? bytes.length, Infinity, []);
  if (stop.state !== validator.state || stop.stack.length !== validator.depth) throw new Error("the tester's run and the validator disagree");
  showVerdict(bytes, error, validator);
  showBytes(bytes, error);
  showExpected(error, stop);
  showSteps(bytes, error);
}

start(update);
