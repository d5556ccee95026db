// Node.js's WHATWG decoder, new TextDecoder("utf-8", { fatal: true }), for `abnfc crosscheck`.
//
// Hex-lines protocol: one input per line in hex on standard input, one verdict per line (1 or 0)
// on standard output, written 4096 at a time and the rest when the input ends.
//
//     abnfc crosscheck grammars/utf8.abnf --cmd 'node examples/node_textdecoder.mjs'
//
// The decoder skips a leading byte order mark (EF BB BF) by default; that does not change which
// inputs it accepts.
import { createInterface } from "node:readline";

const decoder = new TextDecoder("utf-8", { fatal: true });
let answers = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let valid = true;
  try {
    decoder.decode(Buffer.from(line.replace(/\s+/g, ""), "hex"));
  } catch {
    valid = false;
  }
  answers.push(valid ? "1" : "0");
  if (answers.length === 4096) {
    process.stdout.write(answers.join("\n") + "\n");
    answers = [];
  }
}
if (answers.length > 0) process.stdout.write(answers.join("\n") + "\n");
