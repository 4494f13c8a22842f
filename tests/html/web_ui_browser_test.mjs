// The differ's web UI (issue 49) in Debian's chromium (headless, through playwright-core), on
// live servers that web_ui_browser_test.sh starts: the runs page lists the uploaded runs, picking
// two opens their diff, the URL reopens the same view, an unknown run is the 404 page, a run still
// uploading offers its partial diff, a run's page exports its Chrome trace, several runs share one
// page, and on the guarded differ (TLS and a token) nothing shows before signing in. Every page
// must run without a script error or a Content-Security-Policy violation, and fetch nothing from
// another origin.
//
//   node web_ui_browser_test.mjs --open URL --guarded URL --token TOKEN --out DIR
// Environment: PROFDIFF_NODE_MODULES (where playwright-core is installed), CHROMIUM.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

import { args, browser, check, finish, results } from "./browser_harness.mjs";

// A browser context of its own (its own cookies); every page error, console error (a CSP
// violation is one) and request to another origin is a problem. The guarded differ's
// certificate is the test CA's.
async function newPage(base) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  const problems = [];
  const origin = new URL(base).origin;
  page.on("pageerror", (e) => problems.push("page error: " + e.message));
  page.on("console", (m) => { if (m.type() === "error") problems.push("console error: " + m.text()); });
  page.on("request", (r) => {
    const url = r.url();
    if (!url.startsWith(origin) && !url.startsWith("data:") && !url.startsWith("about:")) problems.push("request: " + url);
  });
  return { page, problems, context };
}

const ready = (page) => page.waitForSelector("body[data-ready='1']", { timeout: 30000 });
const text = (page, sel) => page.$eval(sel, (el) => el.textContent);

await check("runs page lists every uploaded run with its state", async () => {
  const { page, problems, context } = await newPage(args.open);
  const response = await page.goto(args.open);
  assert.equal(response.status(), 200);
  const runs = await page.$$eval("#runs tbody tr", (trs) => trs.map((tr) => ({
    run: tr.dataset.run, state: tr.cells[3].textContent, workers: tr.cells[4].textContent })));
  const byName = Object.fromEntries(runs.map((r) => [r.run, r]));
  for (const run of ["transformer-fp32", "transformer-bf16", "timesformer-h100", "timesformer-mi300", "dlrm-partial"]) {
    assert.ok(byName[run], `${run} is listed (${runs.map((r) => r.run)})`);
  }
  assert.equal(byName["transformer-fp32"].state, "COMPLETE");
  assert.equal(byName["dlrm-partial"].state, "OPEN");
  assert.equal(byName["dlrm-partial"].workers, "1 of 8");
  // The filter hides the rows whose name lacks the text.
  await page.fill("#filter", "former");
  const shown = await page.$$eval("#runs tbody tr", (trs) => trs.filter((tr) => !tr.hidden).map((tr) => tr.dataset.run));
  assert.deepEqual(shown.sort(), ["timesformer-h100", "timesformer-mi300", "transformer-bf16", "transformer-fp32"]);
  await page.fill("#filter", "");
  // Compare stays off until a baseline and a run to compare are picked.
  assert.equal(await page.$eval("#compare", (b) => b.disabled), true);
  await page.check("input[name=baseline][value='transformer-fp32']");
  assert.equal(await page.$eval("#compare", (b) => b.disabled), true);
  await page.check("input[name=experimental][value='transformer-bf16']");
  assert.equal(await page.$eval("#compare", (b) => b.disabled), false);
  await page.screenshot({ path: path.join(args.out, "web-runs.png"), fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

await check("picking two runs opens their diff, as fast as the report", async () => {
  const { page, problems, context } = await newPage(args.open);
  await page.goto(args.open);
  await page.check("input[name=baseline][value='transformer-fp32']");
  await page.check("input[name=experimental][value='transformer-bf16']");
  assert.equal(await page.$eval("#compare", (b) => b.disabled), false);
  const started = Date.now();
  await Promise.all([page.waitForURL(/\/diff\?/), page.click("#compare")]);
  await ready(page);
  const loaded = Date.now() - started;
  const url = new URL(page.url());
  assert.equal(url.pathname, "/diff");
  assert.equal(url.searchParams.get("baseline"), "transformer-fp32");
  assert.deepEqual(url.searchParams.getAll("experimental"), ["transformer-bf16"]);
  assert.ok((await page.$$eval("#findings li", (li) => li.length)) > 0, "findings first");
  assert.match(await text(page, "#diff-runs"), /transformer-fp32 against transformer-bf16/);
  await page.screenshot({ path: path.join(args.out, "web-diff.png") });
  // Loading it again: the digests are cached, so this is the page's own cost.
  const times = [];
  for (let i = 0; i < 3; ++i) {
    const t0 = Date.now();
    await page.goto(page.url());
    await ready(page);
    times.push(Date.now() - t0);
  }
  times.sort((a, b) => a - b);
  results.h200_diff_page_first_ms = loaded;
  results.h200_diff_page_ms = times;
  assert.ok(times[1] < 1000, `median load ${times[1]} ms`);
  assert.deepEqual(problems, []);
  await context.close();
});

await check("the URL reopens the same view", async () => {
  const { page, problems, context } = await newPage(args.open);
  await page.goto(`${args.open}diff?baseline=timesformer-h100&experimental=timesformer-mi300`);
  await ready(page);
  const child = await page.$$eval("#children tbody tr.clickable", (trs) => trs[0]?.dataset.child);
  assert.ok(child !== undefined, "a block with sub-modules");
  await page.click(`.lane[data-side=e] .block[data-child="${child}"]`);
  const crumb = await text(page, "#crumbs b");
  await page.fill("#kernels-controls .filter", "gemm");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("kernels.filter") === "gemm");
  const shared = page.url();
  assert.ok(new URL(shared).searchParams.get("path"), `path in ${shared}`);
  const rows = await page.$eval("#kernels", (t) => Number(t.dataset.rows));
  // A colleague opens the link.
  const other = await newPage(args.open);
  await other.page.goto(shared);
  await ready(other.page);
  assert.equal(await text(other.page, "#crumbs b"), crumb);
  assert.equal(await other.page.$eval("#kernels-controls .filter", (i) => i.value), "gemm");
  assert.equal(await other.page.$eval("#kernels", (t) => Number(t.dataset.rows)), rows);
  assert.equal(other.page.url(), shared);
  await other.page.screenshot({ path: path.join(args.out, "web-diff-zoomed.png") });
  assert.deepEqual(problems, []);
  assert.deepEqual(other.problems, []);
  await other.context.close();
  await context.close();
});

await check("an unknown run shows the 404 page naming it", async () => {
  const { page, context } = await newPage(args.open);
  for (const where of ["diff?baseline=transformer-fp32&experimental=no-such-run", "run/no-such-run"]) {
    const response = await page.goto(args.open + where);
    assert.equal(response.status(), 404, where);
    assert.equal(await text(page, "#error-title"), "404 Not Found");
    assert.match(await text(page, "#error-message"), /no-such-run/);
  }
  await page.screenshot({ path: path.join(args.out, "web-404.png") });
  const bad = await page.goto(args.open + "diff?baseline=transformer-fp32");
  assert.equal(bad.status(), 400);
  await context.close();
});

await check("a run still uploading says so and offers the partial diff", async () => {
  const { page, problems, context } = await newPage(args.open);
  await page.goto(`${args.open}diff?baseline=dlrm-partial&experimental=dlrm-partial`);
  assert.match(await text(page, "#incomplete"), /dlrm-partial is OPEN: 1 of 8 workers stored/);
  await Promise.all([page.waitForURL(/partial=1/), page.click("#partial-diff")]);
  await ready(page);
  assert.match(await text(page, "#warnings"), /OPEN|missing|of 8/);
  assert.deepEqual(problems, []);
  await context.close();
});

await check("a run's page exports each worker's Chrome trace", async () => {
  const { page, problems, context } = await newPage(args.open);
  await page.goto(`${args.open}run/transformer-fp32`);
  assert.match(await text(page, "#run-facts"), /COMPLETE/);
  const href = await page.$eval("#workers a.export", (a) => a.getAttribute("href"));
  assert.equal(href, "/run/transformer-fp32/trace.json?rank=0");
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#workers a.export")]);
  const file = path.join(args.out, "exported-trace.json");
  await download.saveAs(file);
  const trace = JSON.parse(fs.readFileSync(file, "utf8"));
  assert.ok(trace.traceEvents.length > 1000, `${trace.traceEvents.length} events`);
  fs.rmSync(file);
  await page.screenshot({ path: path.join(args.out, "web-run.png"), fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

await check("several runs against one baseline share a page whose frames run", async () => {
  const { page, problems, context } = await newPage(args.open);
  await page.goto(args.open);
  await page.check("input[name=baseline][value='transformer-fp32']");
  await page.check("input[name=experimental][value='transformer-bf16']");
  await page.check("input[name=experimental][value='transformer-fp32']");
  await Promise.all([page.waitForURL(/experimental=.*experimental=/), page.click("#compare")]);
  assert.equal(await page.$$eval("nav button", (b) => b.length), 2);
  const frame = page.frames().find((f) => f !== page.mainFrame());
  await frame.waitForSelector("body[data-ready='1']", { timeout: 30000 });
  assert.deepEqual(problems, []);
  await context.close();
});

await check("the guarded differ shows nothing before the token, and everything after", async () => {
  const { page, problems, context } = await newPage(args.guarded);
  for (const where of ["", "diff?baseline=transformer-fp32&experimental=transformer-bf16", "run/transformer-fp32"]) {
    const response = await page.goto(args.guarded + where);
    assert.equal(response.status(), 401, where);
    assert.equal(await page.$$eval("#runs, #profdiff-data, #workers", (e) => e.length), 0, where);
  }
  await page.screenshot({ path: path.join(args.out, "web-sign-in.png") });
  await page.fill("#token", "not-the-token");
  await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
  assert.match(await text(page, "#login-error"), /Wrong token/);
  await page.fill("#token", args.token);
  await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
  // Back where the sign-in started: the run page.
  assert.equal(new URL(page.url()).pathname, "/run/transformer-fp32");
  const cookies = await context.cookies();
  const session = cookies.find((c) => c.name === "profdiff_session");
  assert.ok(session && session.httpOnly && session.secure && session.sameSite === "Strict", JSON.stringify(cookies));
  const response = await page.goto(args.guarded + "diff?baseline=transformer-fp32&experimental=transformer-bf16");
  assert.equal(response.status(), 200);
  await ready(page);
  await Promise.all([page.waitForNavigation(), page.click("#profdiff-nav button")]);  // sign out
  assert.equal((await page.goto(args.guarded)).status(), 401);
  // The browser logs each 401 it was meant to get; nothing else may go wrong.
  assert.deepEqual(problems.filter((p) => !/status of 401/.test(p)), []);
  await context.close();
});

await finish();
