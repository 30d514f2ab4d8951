// Validates proto/asyncapi.json with the AsyncAPI initiative's own parser (@asyncapi/parser:
// the specification's JSON Schema, its Spectral rules, every message example against its
// payload). Exit 1 on any error-level diagnostic. `make asyncapi-check` installs and runs it.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

const require = createRequire(process.env.ASYNCAPI_PARSER_FROM || import.meta.url);
const { Parser, DiagnosticSeverity } = require("@asyncapi/parser");

const path = process.argv[2] || "proto/asyncapi.json";
const parser = new Parser();
const { document, diagnostics } = await parser.parse(await readFile(path, "utf8"));
const errors = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error);
const warnings = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Warning);
for (const d of [...errors, ...warnings])
  console.log(`${d.severity === DiagnosticSeverity.Error ? "error" : "warning"}: ${d.code}: ${d.message} at ${d.path.join(".")}`);
if (!document || errors.length) {
  console.error(`${path}: ${errors.length} error(s): not a valid AsyncAPI document`);
  process.exit(1);
}
const ops = document.operations().length, channels = document.channels().length;
console.log(`${path}: valid AsyncAPI ${document.version()} (${channels} channels, ${ops} operations, ${document.messages().length} messages, ${warnings.length} warnings)`);
