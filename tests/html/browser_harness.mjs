// What the browser tests share: their --flags, Debian's chromium through playwright-core
// (PROFDIFF_NODE_MODULES, CHROMIUM), named checks that print PASS/FAIL with their time, and the
// results written to OUT/results.json at the end.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

export const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
const require = createRequire(path.join(process.env.PROFDIFF_NODE_MODULES, "noop.js"));
const { chromium } = require("playwright-core");
fs.mkdirSync(args.out, { recursive: true });

export const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox"],
});
// Figures the checks measured, printed and saved by finish().
export const results = {};
let failures = 0;

export async function check(name, fn) {
  const started = Date.now();
  try {
    await fn();
    console.log(`PASS ${name} (${Date.now() - started} ms)`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${e.stack || e}`);
  }
}

export async function finish() {
  await browser.close();
  fs.writeFileSync(path.join(args.out, "results.json"), JSON.stringify(results, null, 2));
  console.log(JSON.stringify(results, null, 2));
  process.exit(failures ? 1 : 0);
}
