// The test driver of abnfc's JavaScript runner: one request per line on stdin, one JSON answer
// per line on stdout.  Requests are JSON objects:
//   {"op": "load", "path": P}                      -> {"module": M}
//   {"op": "first_errors", "module": M, "hex": [H]} -> {"result": [offset or null, ...]}
//   {"op": "is_valid" | "first_error", "module": M, "hex": H}
//   {"op": "expected_bytes", "module": M, "state": S}
//   {"op": "new", "module": M}                     -> {"stream": S}
//   {"op": "feed", "stream": S, "hex": H}          -> {"result": true/false}
//   {"op": "status", "stream": S}                  -> complete, first_error, expected, state, offset
//                                                     (and depth, for a pushdown validator)
// For a pushdown validator, first_errors, first_error, is_valid and new may carry "max_depth"
// (a number, or null for no limit); without it the module's default applies.
// An exception becomes {"error": message}, with "nesting": {"offset", "limit"} when it is the
// module's NestingError (the input nests deeper than the depth limit).
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const modules = [];
const streams = [];

function bytes(hex) {
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

// The depth option of a request: absent (undefined: the module's default), null (no limit) or a
// number.  A regular module ignores it.
function depth(request) {
  return request.max_depth === null ? Infinity : request.max_depth;
}

async function answer(request) {
  switch (request.op) {
    case "load":
      modules.push(await import(pathToFileURL(request.path).href));
      return { module: modules.length - 1 };
    case "first_errors":
      return { result: request.hex.map((hex) => modules[request.module].firstError(bytes(hex), depth(request))) };
    case "first_error":
      return { result: modules[request.module].firstError(bytes(request.hex), depth(request)) };
    case "is_valid":
      return { result: modules[request.module].isValid(bytes(request.hex), depth(request)) };
    case "expected_bytes":
      return { result: modules[request.module].expectedBytes(request.state) };
    case "new":
      streams.push(new modules[request.module].Validator(depth(request)));
      return { stream: streams.length - 1 };
    case "feed":
      return { result: streams[request.stream].feed(bytes(request.hex)) };
    case "status": {
      const v = streams[request.stream];
      return { complete: v.complete, first_error: v.firstError(), expected: v.expected(),
               state: v.state, offset: v.offset, depth: v.depth };
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
    if (error && error.name === "NestingError") reply.nesting = { offset: error.offset, limit: error.limit };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
}
