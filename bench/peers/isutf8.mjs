// simdutf through Node's buffer.isUtf8, timed on request: bench_peers.py writes one line per
// request ("FILE PASSES"), this answers with the least CPU time of PASSES runs after an untimed
// one, and the verdict.  Files are read once.
import { readFileSync } from "node:fs";
import { isUtf8 } from "node:buffer";
import { createInterface } from "node:readline";

const files = new Map();
const seconds = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };

for await (const line of createInterface({ input: process.stdin })) {
  const [file, passes] = line.split(" ");
  if (!files.has(file)) files.set(file, readFileSync(file));
  const data = files.get(file);
  const verdict = isUtf8(data);
  let best = Infinity;
  for (let pass = 0; pass < Number(passes); pass++) {
    const start = seconds();
    if (isUtf8(data) !== verdict) throw new Error("isUtf8 changed its mind");
    best = Math.min(best, seconds() - start);
  }
  console.log(`${best} ${verdict ? 1 : 0}`);
}
