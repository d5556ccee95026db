// The test driver of abnfc's JavaScript runner: one request per line on stdin, one JSON answer
// per line on stdout.  Requests are JSON objects:
//   {"op": "load", "path": P}                      -> {"module": M}
//   {"op": "first_errors", "module": M, "hex": [H]} -> {"result": [offset or null, ...]}
//   {"op": "is_valid" | "first_error", "module": M, "hex": H}
//   {"op": "expected_bytes", "module": M, "state": S}
//   {"op": "new", "module": M}                     -> {"stream": S}
//   {"op": "feed", "stream": S, "hex": H}          -> {"result": true/false}
//   {"op": "status", "stream": S}                  -> complete, first_error, expected, state, offset
// An exception becomes {"error": message}.
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const modules = [];
const streams = [];

function bytes(hex) {
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

async function answer(request) {
  switch (request.op) {
    case "load":
      modules.push(await import(pathToFileURL(request.path).href));
      return { module: modules.length - 1 };
    case "first_errors":
      return { result: request.hex.map((hex) => modules[request.module].firstError(bytes(hex))) };
    case "first_error":
      return { result: modules[request.module].firstError(bytes(request.hex)) };
    case "is_valid":
      return { result: modules[request.module].isValid(bytes(request.hex)) };
    case "expected_bytes":
      return { result: modules[request.module].expectedBytes(request.state) };
    case "new":
      streams.push(new modules[request.module].Validator());
      return { stream: streams.length - 1 };
    case "feed":
      return { result: streams[request.stream].feed(bytes(request.hex)) };
    case "status": {
      const v = streams[request.stream];
      return { complete: v.complete, first_error: v.firstError(), expected: v.expected(),
               state: v.state, offset: v.offset };
    }
    default:
      throw new Error(`unknown op ${request.op}`);
  }
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let reply;
  try {
    reply = await answer(JSON.parse(line));
  } catch (error) {
    reply = { error: String(error && error.message || error) };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
}
