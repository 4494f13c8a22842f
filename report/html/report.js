// profdiff HTML report. Reads the JSON in #profdiff-data (report/html_report_data.h describes it)
// and draws every view; nothing is fetched. Names are inserted as text (esc), never as markup.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("profdiff-data").textContent);
  const S = D.strings;
  // Kernel names shortened by their structure (issue 45), as the CLI tables and findings print them.
  const kernelShort = new Map((D.kernel_short || []).map(([id, text]) => [S[id], text]));
  const shortKernel = (name) => kernelShort.get(name) || name;
  const $ = (id) => document.getElementById(id);

  // ---- formatting ----------------------------------------------------------------------------
  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }
  function fmtUs(us) {
    if (us === null || us === undefined || Number.isNaN(us)) return "";
    const a = Math.abs(us);
    if (a >= 1e6) return (us / 1e6).toFixed(3) + " s";
    if (a >= 1e3) return (us / 1e3).toFixed(3) + " ms";
    if (a >= 100) return us.toFixed(1) + " µs";
    return us.toFixed(2) + " µs";
  }
  function signed(text, v) { return v > 0 ? "+" + text : text; }
  // What the per-step samples say of a change: [significant, has_interval, ci_low, ci_high].
  // Without an interval (a side with one step) there is no noise to be within.
  function judged(noise) {
    return noise[0] ? " significant" : noise[1] ? " within noise" : " · no noise estimate (a side has one step)";
  }
  function fmtDeltaUs(us) { return signed(fmtUs(us), us); }
  function fmtCount(n) { return Number.isInteger(n) ? String(n) : n.toFixed(2); }
  // Past +10,000% a change reads better as a factor, as the CLI prints it.
  function fmtPct(p) { return p === null ? "new" : !Number.isFinite(p) ? "" : p > 1e4 ? "×" + (1 + p / 100).toFixed(0) : signed(p.toFixed(1) + "%", p); }
  // null where the baseline is 0 (a new row): shown as "new", sorted as the largest change.
  function deltaPct(b, e) { return b === 0 ? (e === 0 ? 0 : null) : ((e - b) / b) * 100; }
  function fmtValue(v, unit) {
    if (unit === "us") return fmtUs(v);
    if (unit === "fraction") return (v * 100).toFixed(1) + "%";
    if (unit === "%") return v.toFixed(1) + "%";
    if (unit === "bytes") return fmtBytes(v);
    return fmtCount(v);
  }
  // A change of a share (utilization, occupancy) is in percentage points:
  // 97% -> 19% is -78 pp, not "-78%" (which reads as a relative change).
  function fmtDelta(d, unit) {
    if (unit === "fraction") return (d * 100).toFixed(1) + " pp";
    if (unit === "%") return d.toFixed(1) + " pp";
    return fmtValue(d, unit);
  }
  function fmtBytes(b) {
    const a = Math.abs(b);
    if (a >= 1 << 30) return (b / (1 << 30)).toFixed(2) + " GiB";
    if (a >= 1 << 20) return (b / (1 << 20)).toFixed(2) + " MiB";
    if (a >= 1 << 10) return (b / (1 << 10)).toFixed(1) + " KiB";
    return (Number.isInteger(b) ? b : b.toFixed(1)) + " B";
  }
  // Whether a larger value of an overview metric is better (utilization) or worse (time, memory).
  function higherIsBetter(metric) { return /utilization|efficiency|occupancy/i.test(metric); }
  // worse / better / same for a change: by sign, coloured only when significant.
  function tone(delta, significant, betterWhenHigher) {
    if (!significant || delta === 0) return "same";
    return (delta > 0) === !!betterWhenHigher ? "better" : "worse";
  }

  // ---- header ------------------------------------------------------------------------------
  // "5 steps/rank": a count prints as one; a mean over ranks that kept different numbers keeps
  // its decimal.
  function fmtStepsPerRank(n) {
    const integral = Math.abs(n - Math.round(n)) < 1e-9;
    return `${integral ? Math.round(n) : n.toFixed(1)} ${integral && Math.round(n) === 1 ? "step" : "steps"}/rank`;
  }
  function sideText(s, cls, label) {
    const ranks = s.ranks.length > 1 ? s.ranks.length + " ranks" : "rank " + (s.ranks[0] ?? 0);
    return `<span class="side ${cls}"><b>${label}</b> ${esc(s.run)} &middot; ${esc(s.device || "CPU")} &middot; ${ranks} &middot; ${fmtStepsPerRank(s.steps_per_rank)}</span>`;
  }
  function drawHeader() {
    $("runs").innerHTML = sideText(D.baseline, "base", "baseline") + sideText(D.experimental, "exp", "experimental");
    document.title = "profdiff: " + D.baseline.run + " vs " + D.experimental.run;
    $("warnings").innerHTML = D.warnings.map((w) => `<li>${esc(w)}</li>`).join("");
  }

  // ---- overview ----------------------------------------------------------------------------
  function drawOverview() {
    if (!D.overview.length) { $("overview-section").hidden = true; return; }
    let html = "<thead><tr><th class=name>Metric</th><th>Baseline</th><th>Experimental</th><th>Δ</th><th>Δ%</th><th>95% interval of Δ</th></tr></thead><tbody>";
    for (const r of D.overview) {
      const [metric, unit, b, e, d, dp, sig, hasCi, lo, hi, bt, et, bMissing, eMissing] = r;
      if (bt || et) {
        html += `<tr class=same data-metric="${esc(metric)}"><td class=name>${esc(metric)}</td><td>${esc(bt)}</td><td>${esc(et)}</td><td></td><td></td><td></td></tr>`;
        continue;
      }
      if (bMissing || eMissing) {
        // A value a side does not have (a GPU metric of a CPU run): "–", and no comparison.
        html += `<tr class=same data-metric="${esc(metric)}"><td class=name>${esc(metric)}</td><td>${bMissing ? "–" : fmtValue(b, unit)}</td><td>${eMissing ? "–" : fmtValue(e, unit)}</td><td class=delta>–</td><td class=delta>–</td><td></td></tr>`;
        continue;
      }
      const t = tone(d, sig, higherIsBetter(metric));
      const ci = hasCi ? `${fmtValue(lo, unit)} … ${fmtValue(hi, unit)}` : "";
      const dText = unit === "us" ? fmtDeltaUs(d) : signed(fmtDelta(d, unit), d);
      html += `<tr class="${t}" data-metric="${esc(metric)}"><td class=name>${esc(metric)}</td><td>${fmtValue(b, unit)}</td><td>${fmtValue(e, unit)}</td><td class="delta judged">${dText}</td><td class="delta judged">${fmtPct(dp)}</td><td>${ci}</td></tr>`;
    }
    $("overview").innerHTML = html + "</tbody>";
  }

  // ---- module tree ---------------------------------------------------------------------------
  const root = D.modules || null;
  const byIndexPath = new Map();  // findings name nodes by index path ("0/3/1"; "" = the root)
  (function link(node, parent) {
    if (!node) return;
    node.parent = parent;
    byIndexPath.set(node.i, node);
    for (const c of node.c) link(c, node);
  })(root, null);
  let selected = root;

  function nodeTone(n) {
    if (n.s === "unknown") return "unknown";
    return tone(n.e[3] - n.b[3], n.noise[0], false);
  }
  function nodeTitle(n, side) {
    const v = side === "b" ? n.b : n.e;
    return `${n.p || "(root)"}\n${side === "b" ? "baseline" : "experimental"}: ${fmtUs(v[3])} (host ${fmtUs(v[1])}, device ${fmtUs(v[2])}, ${fmtCount(v[0])} calls)\nΔ ${fmtDeltaUs(n.e[3] - n.b[3])} (${fmtPct(deltaPct(n.b[3], n.e[3]))})${n.noise[0] ? ", significant" : n.noise[1] ? "" : ", no noise estimate"} — ${n.s}`;
  }
  // Blocks under this share of the scale on both sides are "small": a run of them is drawn as one
  // "N small blocks" block that zooms open, so both lanes keep one scale within the page width.
  const SMALL_SHARE = 0.008;
  let zoom = null;  // [first, last] children shown when a run of small blocks is zoomed open
  // What the lanes measure: each block is a module's compared time (device
  // time where it ran device work), which is not the step's wall time.
  function comparedUnit(n) { return n.b[2] > 0 || n.e[2] > 0 ? "device" : "host"; }
  function lane(label, blocks, total, scale, side) {
    let html = `<div class="lane" data-side="${side}"><div class="lane-label">${label}<br>${fmtUs(total)} <span class="unit">${comparedUnit(selected)}</span></div><div class="lane-track">`;
    for (const block of blocks) {
      const v = block.group ? block.total[side === "b" ? 0 : 1] : side === "b" ? block.n.b[3] : block.n.e[3];
      const width = scale > 0 ? (v / scale) * 100 : 0;
      const thin = width < SMALL_SHARE * 100 ? " thin" : "";
      if (block.group) {
        const [first, last] = block.group;
        html += `<div class="block group${thin}" style="flex:0 0 ${width.toFixed(4)}%" data-group="${first}-${last}" title="${last - first + 1} small blocks (${fmtUs(v)}): click to zoom open">${last - first + 1} small</div>`;
        continue;
      }
      const { n, idx } = block;
      const cls = ["block", nodeTone(n)];
      if (n.s === "added") cls.push("added");
      if (n.s === "removed") cls.push("removed");
      if (n.s === "unknown") cls.push("leaf");
      const name = side === "b" ? n.bn || n.n : n.en || n.n;
      html += `<div class="${cls.join(" ")}${thin}" style="flex:0 0 ${width.toFixed(4)}%" data-child="${idx}" title="${esc(nodeTitle(n, side))}">${esc(name)}</div>`;
    }
    if (scale > total) html += `<div style="flex:0 0 ${(((scale - total) / scale) * 100).toFixed(4)}%"></div>`;
    return html + "</div></div>";
  }
  // Above the lanes: what they measure, and, at the root of a device-compared
  // tree, the step's wall time beside it (the two can move apart: a GPU that
  // idles more of a longer step).
  function laneCaption() {
    const device = comparedUnit(selected) === "device";
    let text = device
      ? "Blocks: each module's device time (the GPU work it launched), not wall time."
      : "Blocks: each module's host time.";
    const step = (D.overview || []).find((r) => r[0] === "Average step time");
    if (device && selected === root && step && !step[12] && !step[13]) {
      const [, , b, e] = step;
      const apart = (e - b) * (selected.e[3] - selected.b[3]) < 0;
      text += ` The step's wall time went ${fmtUs(b)} → ${fmtUs(e)} while device time went ${fmtUs(selected.b[3])} → ${fmtUs(selected.e[3])}` +
        (apart ? (e > b ? ": the GPU idles more of the step." : ": the GPU idles less of the step.") : ".");
    }
    return `<div class="lane-caption">${esc(text)}</div>`;
  }
  function drawTimeline() {
    const all = selected.c.length ? selected.c : [selected];
    const [first, last] = zoom && selected.c.length ? zoom : [0, all.length - 1];
    let tb = 0, te = 0;
    for (let i = first; i <= last; ++i) {
      if (all[i].s !== "added") tb += all[i].b[3];
      if (all[i].s !== "removed") te += all[i].e[3];
    }
    const scale = Math.max(tb, te);
    const small = (n) => n.b[3] < SMALL_SHARE * scale && n.e[3] < SMALL_SHARE * scale;
    // Runs of two or more small children become one group block in both lanes.
    const base = [], exp = [];
    for (let i = first; i <= last; ) {
      let j = i;
      while (j <= last && small(all[j])) ++j;
      if (j - i >= 2) {
        let gb = 0, ge = 0;
        for (let k = i; k < j; ++k) {
          if (all[k].s !== "added") gb += all[k].b[3];
          if (all[k].s !== "removed") ge += all[k].e[3];
        }
        const group = { group: [i, j - 1], total: [gb, ge] };
        base.push(group);
        exp.push(group);
        i = j;
        continue;
      }
      const n = all[i];
      if (n.s !== "added") base.push({ n, idx: i });
      if (n.s !== "removed") exp.push({ n, idx: i });
      ++i;
    }
    const t = $("timeline");
    const zoomed = zoom && selected.c.length;
    t.innerHTML = laneCaption() + (zoomed ? `<div class="zoom-note">blocks ${first + 1}–${last + 1} of ${all.length} <a href="#" id="zoom-out">← all blocks</a></div>` : "") +
      lane("baseline", base, tb, scale, "b") + lane("experimental", exp, te, scale, "e");
    t.onclick = (ev) => {
      if (ev.target.id === "zoom-out") {
        ev.preventDefault();
        zoom = null;
        drawTimeline();
        return;
      }
      const group = ev.target.closest(".block.group");
      if (group) {
        zoom = group.dataset.group.split("-").map(Number);
        drawTimeline();
        return;
      }
      const el = ev.target.closest(".block");
      if (!el || !selected.c.length) return;
      const child = selected.c[Number(el.dataset.child)];
      if (child.s !== "unknown") { urlView = "modules"; select(child); }
    };
    // Hovering a block highlights its aligned partner in the other lane.
    t.onmouseover = (ev) => {
      const el = ev.target.closest(".block");
      t.querySelectorAll(".block.hover").forEach((b) => b.classList.remove("hover"));
      if (el) {
        const key = el.dataset.group ? `[data-group="${el.dataset.group}"]` : `[data-child="${el.dataset.child}"]`;
        t.querySelectorAll(`.block${key}`).forEach((b) => b.classList.add("hover"));
      }
    };
  }
  function drawCrumbs() {
    const chain = [];
    for (let n = selected; n; n = n.parent) chain.unshift(n);
    $("crumbs").innerHTML = chain
      .map((n, i) => (i === chain.length - 1 ? `<b>${esc(n.n)}</b>` : `<a data-depth="${i}">${esc(n.n)}</a>`))
      .join('<span class="sep">›</span>');
    $("crumbs").onclick = (ev) => {
      const a = ev.target.closest("a");
      if (a) { urlView = "modules"; select(chain[Number(a.dataset.depth)]); }
    };
    const d = selected.e[3] - selected.b[3];
    $("selected").innerHTML = `${esc(selected.p || "(root)")}: baseline ${fmtUs(selected.b[3])}, experimental ${fmtUs(selected.e[3])}, ` +
      `<span class="${tone(d, selected.noise[0], false)}">Δ ${fmtDeltaUs(d)} (${fmtPct(deltaPct(selected.b[3], selected.e[3]))})</span>` +
      judged(selected.noise) + (selected.b[2] > 0 || selected.e[2] > 0 ? " · compared by device time" : " · compared by host time");
  }
  function drawChildren() {
    const kids = selected.c;
    if (!kids.length) { $("children").innerHTML = `<tbody><tr><td class="name empty">no sub-modules</td></tr></tbody>`; return; }
    let html = "<thead><tr><th>#</th><th class=name>Block</th><th>Status</th><th>Baseline</th><th>Experimental</th><th>Δ</th><th>Δ%</th><th>Calls B / E</th></tr></thead><tbody>";
    kids.forEach((n, i) => {
      const d = n.e[3] - n.b[3];
      const cls = [tone(d, n.noise[0], false)];
      if (n.c.length) cls.push("clickable");
      html += `<tr class="${cls.join(" ")}" data-child="${i}"><td>${i}</td><td class=name title="${esc(n.p)}">${esc(n.n)}</td><td>${n.s}</td><td>${fmtUs(n.b[3])}</td><td>${fmtUs(n.e[3])}</td><td class="delta judged">${fmtDeltaUs(d)}</td><td class="delta judged">${fmtPct(deltaPct(n.b[3], n.e[3]))}</td><td>${fmtCount(n.b[0])} / ${fmtCount(n.e[0])}</td></tr>`;
    });
    $("children").innerHTML = html + "</tbody>";
    $("children").onclick = (ev) => {
      const tr = ev.target.closest("tr[data-child]");
      if (tr && kids[Number(tr.dataset.child)].c.length) { urlView = "modules"; select(kids[Number(tr.dataset.child)]); }
    };
  }

  // ---- charts (SVG) ------------------------------------------------------------------------
  const W = 1000, H = 280, PAD_L = 72, PAD_R = 72, PAD_T = 26, PAD_B = 86;
  // A block's axis label: without the "#Class.method" of a profiler range
  // ("Optimizer.zero_grad#SGD.zero_grad"), cut past 26 characters; the whole name is its title.
  function labelOf(n) {
    const name = n.n.replace(/#.*$/, "") || n.n;
    return name.length > 26 ? name.slice(0, 25) + "…" : name;
  }
  function axisLabels(kids, x, step) {
    // At most ~40 labels, rotated.
    const every = Math.max(1, Math.ceil(kids.length / 40));
    let out = "";
    kids.forEach((n, i) => {
      if (i % every) return;
      const cx = x(i) + step / 2;
      out += `<text transform="translate(${cx.toFixed(1)},${H - PAD_B + 10}) rotate(35)">${esc(labelOf(n))}<title>${esc(n.n)}</title></text>`;
    });
    return out;
  }
  function polyline(values, x, y, step, color, dash) {
    const pts = values.map((v, i) => `${(x(i) + step / 2).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    return `<polyline fill="none" stroke="${color}" stroke-width="2" ${dash ? 'stroke-dasharray="5 3"' : ""} points="${pts}"/>`;
  }
  // Axis labels: three significant digits, so they fit the margin.
  function fmtAxis(us) {
    const a = Math.abs(us);
    const [scale, unit] = a >= 1e6 ? [1e6, " s"] : a >= 1e3 ? [1e3, " ms"] : [1, " µs"];
    return us === 0 ? "0" : Number((us / scale).toPrecision(3)) + unit;
  }
  function yTicks(lo, hi, y, side) {
    let out = "";
    for (let k = 0; k <= 4; ++k) {
      const v = lo + ((hi - lo) * k) / 4;
      const ty = y(v);
      out += side === "l"
        ? `<text x="${PAD_L - 6}" y="${ty + 4}" text-anchor="end">${fmtAxis(v)}</text><line class="axis" x1="${PAD_L - 3}" x2="${PAD_L}" y1="${ty}" y2="${ty}"/>`
        : `<text x="${W - PAD_R + 6}" y="${ty + 4}">${fmtAxis(v)}</text>`;
    }
    return out;
  }
  // Past this many ranks a side, per-rank charts draw a panel per side with a dot per rank (a
  // bar each would be a pixel wide or a page tall) and the marked ranks pointed at.
  const RANK_BARS_MAX = 64;
  // series: [{side: 0|1, points: [[rank, value], ...] ascending, marked: rank or null}], one
  // panel each (baseline above), a dot per rank on a shared value axis: ranks that behave alike
  // make a band, and a rank that stands out stands alone. The marked ranks are
  // <g class=`markClass` data-rank> groups, which findings highlight; `markName` says what the
  // mark means ("slowest compute", "straggler").
  function rankProfileChart(title, series, markClass, markName) {
    const PH = 150, GAP = 34, PB = 44;
    const CH = PAD_T + series.length * PH + (series.length - 1) * GAP + PB;
    const ranks = [...new Set(series.flatMap((s) => s.points.map((p) => p[0])))].sort((a, b) => a - b);
    const at = new Map(ranks.map((r, i) => [r, i]));
    const n = Math.max(ranks.length, 2);
    const x = (rank) => PAD_L + (at.get(rank) / (n - 1)) * (W - PAD_L - PAD_R);
    const max = Math.max(1e-9, ...series.flatMap((s) => s.points.map((p) => p[1])));
    let svg = `<svg viewBox="0 0 ${W} ${CH}" role="img" aria-label="${esc(title)}">`;
    svg += `<text x="${PAD_L}" y="12">${esc(title)} · a dot per rank · ▼ the side's ${esc(markName)}</text>`;
    series.forEach((s, k) => {
      const top = PAD_T + k * (PH + GAP), bottom = top + PH;
      const y = (v) => bottom - (v / max) * (PH - 8);
      const color = s.side ? "var(--exp)" : "var(--base)";
      const name = s.side ? "experimental" : "baseline";
      svg += `<g class="rank-panel" data-side="${s.side ? "e" : "b"}">`;
      svg += `<line class="axis" x1="${PAD_L}" x2="${W - PAD_R}" y1="${bottom}" y2="${bottom}"/>` + yTicks(0, max, y, "l");
      svg += `<text x="${W - PAD_R}" y="${top + 4}" text-anchor="end" fill="${color}" font-weight="600">${name}</text>`;
      let dots = "";
      for (const [r, v] of s.points) dots += `M${x(r).toFixed(1)} ${y(v).toFixed(1)}h0`;
      svg += `<path class="rank-dots" d="${dots}" stroke="${color}" stroke-width="3" stroke-linecap="round" fill="none"/>`;
      const point = s.marked === null || s.marked === undefined ? null : s.points.find((p) => p[0] === s.marked);
      if (point) {
        const px = x(point[0]), py = y(point[1]);
        const label = `${name} ${markName}: rank ${point[0]}`;
        const anchor = px > W / 2 ? "end" : "start", dx = px > W / 2 ? -10 : 10;
        svg += `<g class="${markClass}" data-rank="${point[0]}" data-side="${s.side ? "e" : "b"}"><title>${esc(label)}: ${fmtUs(point[1])}</title>` +
          `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="5" fill="none" stroke="var(--worse)" stroke-width="2"/>` +
          `<text class="marked-rank-mark" x="${px.toFixed(1)}" y="${(py - 8).toFixed(1)}" text-anchor="middle">▼</text>` +
          `<text class="marked-rank" x="${(px + dx).toFixed(1)}" y="${(py - 10).toFixed(1)}" text-anchor="${anchor}">${esc(label)}</text></g>`;
      }
      svg += "</g>";
    });
    const axisY = CH - PB;
    // About eight rank numbers under the last panel.
    const every = Math.max(1, Math.ceil(ranks.length / 8));
    ranks.forEach((r, i) => {
      if (i % every === 0 || i === ranks.length - 1)
        svg += `<text x="${x(r).toFixed(1)}" y="${axisY + 14}" text-anchor="middle">${r}</text>`;
    });
    svg += `<text x="${(W / 2).toFixed(0)}" y="${axisY + 32}" text-anchor="middle">rank (${ranks.length} ranks)</text>`;
    return svg + "</svg>";
  }
  function drawComparisonChart() {
    const kids = selected.c.length ? selected.c : [selected];
    const n = kids.length;
    const step = (W - PAD_L - PAD_R) / n;
    const x = (i) => PAD_L + i * step;
    let maxBar = 0, accB = 0, accE = 0;
    const cumB = [], cumE = [];
    for (const k of kids) {
      maxBar = Math.max(maxBar, k.b[3], k.e[3]);
      cumB.push((accB += k.b[3]));
      cumE.push((accE += k.e[3]));
    }
    const maxAcc = Math.max(accB, accE) || 1;
    maxBar = maxBar || 1;
    const y = (v) => H - PAD_B - (v / maxBar) * (H - PAD_T - PAD_B);
    const ya = (v) => H - PAD_B - (v / maxAcc) * (H - PAD_T - PAD_B);
    const bw = Math.max(0.5, step * 0.4);
    let svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="execution comparison"><line class="axis" x1="${PAD_L}" x2="${W - PAD_R}" y1="${H - PAD_B}" y2="${H - PAD_B}"/>`;
    svg += yTicks(0, maxBar, y, "l") + yTicks(0, maxAcc, ya, "r");
    kids.forEach((k, i) => {
      const title = `<title>${esc(k.n)}: baseline ${fmtUs(k.b[3])}, experimental ${fmtUs(k.e[3])}</title>`;
      svg += `<rect class="bar-b" x="${(x(i) + step * 0.1).toFixed(2)}" y="${y(k.b[3]).toFixed(2)}" width="${bw.toFixed(2)}" height="${(H - PAD_B - y(k.b[3])).toFixed(2)}" fill="var(--base)">${title}</rect>`;
      svg += `<rect class="bar-e" x="${(x(i) + step * 0.5).toFixed(2)}" y="${y(k.e[3]).toFixed(2)}" width="${bw.toFixed(2)}" height="${(H - PAD_B - y(k.e[3])).toFixed(2)}" fill="var(--exp)">${title}</rect>`;
    });
    svg += polyline(cumB, x, ya, step, "var(--base)", true) + polyline(cumE, x, ya, step, "var(--exp)", true);
    svg += axisLabels(kids, x, step);
    svg += `<text x="${PAD_L}" y="12">bars: time per block (left axis) · dashed: accumulated (right axis) · blue baseline, orange experimental</text></svg>`;
    $("comparison-chart").innerHTML = svg;
  }
  function drawDifferenceChart() {
    const kids = selected.c.length ? selected.c : [selected];
    const n = kids.length;
    const step = (W - PAD_L - PAD_R) / n;
    const x = (i) => PAD_L + i * step;
    const diffs = kids.map((k) => k.e[3] - k.b[3]);
    let acc = 0;
    const cum = diffs.map((d) => (acc += d));
    const lo = Math.min(0, ...diffs, ...cum), hi = Math.max(0, ...diffs, ...cum);
    const span = hi - lo || 1;
    const y = (v) => H - PAD_B - ((v - lo) / span) * (H - PAD_T - PAD_B);
    let svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="execution difference"><line class="axis" x1="${PAD_L}" x2="${W - PAD_R}" y1="${y(0)}" y2="${y(0)}"/>`;
    svg += yTicks(lo, hi, y, "l");
    const bw = Math.max(0.5, step * 0.7);
    kids.forEach((k, i) => {
      const d = diffs[i];
      const top = Math.min(y(d), y(0)), h = Math.abs(y(d) - y(0));
      const color = tone(d, k.noise[0], false) === "same" ? "var(--same)" : d > 0 ? "var(--worse)" : "var(--better)";
      svg += `<rect class="bar-d" x="${(x(i) + step * 0.15).toFixed(2)}" y="${top.toFixed(2)}" width="${bw.toFixed(2)}" height="${Math.max(h, 0.5).toFixed(2)}" fill="${color}"><title>${esc(k.n)}: Δ ${fmtDeltaUs(d)}</title></rect>`;
    });
    svg += polyline(cum, x, y, step, "var(--ink)", true);
    svg += axisLabels(kids, x, step);
    svg += `<text x="${PAD_L}" y="12">bars: experimental − baseline per block · dashed: accumulated difference</text></svg>`;
    $("difference-chart").innerHTML = svg;
  }

  // ---- operator and kernel tables ---------------------------------------------------------------
  // Row arrays: D.layout.row then (baseline, experimental) pairs of the table's values.
  const PAIRS = D.layout.row.length;
  const val = (r, k, side) => r[PAIRS + 2 * k + side];
  function tableSpec(kind) {
    const ops = kind === "operators";
    const names = ops ? D.layout.operator_values : D.layout.kernel_values;
    const labels = ops
      ? ["Calls", "Host self", "Host total", "Device self", "Device total"]
      : ["Calls", "Total", "Mean", "Min", "Max"];
    const cols = [
      { key: "name", label: ops ? "Operator" : "Kernel", text: true, get: (r) => S[r[0]], cls: "name", show: ops ? null : shortKernel },
    ];
    cols.push({ key: "detail", label: ops ? "Input shapes" : "Launching op", text: true, get: (r) => S[r[1]], cls: "name", detail: true });
    cols.push({ key: "change", label: "Change", text: true, get: (r) => S[r[2]] });
    cols.push({ key: "significant", label: "Sig.", get: (r) => r[4], show: (v) => (v ? "●" : "") });
    // Columns a row is never judged on (self times, a kernel's min and max) wait behind "All
    // columns", so the table fits a 1400 px page (issue 45).
    const extraValues = ops ? ["host_self_us", "device_self_us"] : ["min_us", "max_us"];
    names.forEach((name, k) => {
      const time = name !== "calls";
      const fmt = time ? fmtUs : fmtCount;
      const extra = extraValues.includes(name);
      cols.push({ key: "baseline_" + name, label: labels[k] + " B", get: (r) => val(r, k, 0), show: fmt, extra });
      cols.push({ key: "experimental_" + name, label: labels[k] + " E", get: (r) => val(r, k, 1), show: fmt, extra });
      if (time && (ops || name === "total_us" || name === "mean_us")) {
        cols.push({ key: "delta_" + name, label: "Δ " + labels[k].toLowerCase(), get: (r) => val(r, k, 1) - val(r, k, 0), show: fmtDeltaUs, delta: true, magnitude: true, value: k, extra });
      }
    });
    const comparedIndex = (r) => Math.max(0, names.indexOf(S[r[3]]));
    cols.push({ key: "delta_pct", label: "Δ% compared", get: (r) => deltaPct(val(r, comparedIndex(r), 0), val(r, comparedIndex(r), 1)), show: fmtPct, delta: true, magnitude: true });
    return { kind, cols, comparedIndex, labels };
  }

  // Each table's state: which grouping, sort, filter, top-N.
  function makeTable(kind) {
    const spec = tableSpec(kind);
    // mark: the row a finding points at ({name, shapes}), highlighted and listed first.
    const state = { other: false, sort: null, desc: true, filter: "", top: 50, mark: null, all: false };
    const primaryGrouping = kind === "operators" ? D.baseline.operator_grouping : D.baseline.kernel_grouping;
    const otherGrouping = kind === "operators" ? D.other_operator_grouping : D.other_kernel_grouping;
    const fine = kind === "operators" ? "GROUPING_NAME_AND_SHAPE" : "GROUPING_NAME_AND_OP";
    // A module node's tables keep one grouping whatever the report's (the data names it), so the
    // toggle does not apply there.
    const nodeGrouping = kind === "operators" ? D.node_operator_grouping : D.node_kernel_grouping;
    const groupingLabel = (g) => kind === "operators"
      ? (g === fine ? "operator + input shapes" : "operator")
      : (g === fine ? "kernel + launching op" : "kernel");
    const controls = $(kind + "-controls");
    const groupOptions = [`<option value="0">${groupingLabel(primaryGrouping)}</option>`];
    if (otherGrouping) groupOptions.push(`<option value="1">${groupingLabel(otherGrouping)}</option>`);
    controls.innerHTML =
      `<label>Filter <input type="search" class="filter" placeholder="name, shapes or op contains…"></label>` +
      `<label>Group by <select class="group-by">${groupOptions.join("")}</select></label>` +
      `<label>Top <select class="top"><option>20</option><option selected>50</option><option>100</option><option>500</option><option value="0">all</option></select></label>` +
      `<label title="also the columns no row is judged on"><input type="checkbox" class="all-columns"> All columns</label>` +
      `<span class="count"></span>`;
    const table = $(kind);
    const wrap = document.createElement("div");
    wrap.className = "table-wrap";
    table.parentNode.insertBefore(wrap, table);
    wrap.appendChild(table);
    let filterTimer = 0;
    controls.querySelector(".filter").addEventListener("input", (ev) => {
      clearTimeout(filterTimer);
      const text = ev.target.value;
      filterTimer = setTimeout(() => { state.filter = text; urlView = kind; render(); }, 60);
    });
    controls.querySelector(".group-by").addEventListener("change", (ev) => { state.other = ev.target.value === "1"; urlView = kind; render(); });
    controls.querySelector(".top").addEventListener("change", (ev) => { state.top = Number(ev.target.value); urlView = kind; render(); });
    controls.querySelector(".all-columns").addEventListener("change", (ev) => { state.all = ev.target.checked; urlView = kind; render(); });
    table.addEventListener("click", (ev) => {
      const th = ev.target.closest("th[data-col]");
      if (!th) return;
      urlView = kind;
      const key = th.dataset.col;
      if (state.sort === key) state.desc = !state.desc;
      else { state.sort = key; state.desc = !spec.cols.find((c) => c.key === key).text; }
      render();
    });

    function rowsOf(node) {
      const index = kind === "operators" ? 0 : 1;
      if (!root || node === root) return (state.other ? D.other_tables : D.tables)[index];
      // No "u": the other grouping's tables are the node's own.
      const t = state.other && node.u !== undefined ? node.u : node.t;
      return t ? t[index] : [];
    }
    function render() {
      const all = rowsOf(selected);
      const atNode = root && selected !== root;
      const grouping = atNode ? nodeGrouping : state.other ? otherGrouping : primaryGrouping;
      const cols = spec.cols.filter((c) => (!c.detail || grouping === fine) && (!c.extra || state.all));
      let rows = all;
      const marked = state.mark
        ? (r) => S[r[0]] === state.mark.name && (!state.mark.shapes || S[r[1]] === state.mark.shapes)
        : () => false;
      if (state.filter) {
        const f = state.filter.toLowerCase();
        rows = rows.filter((r) => S[r[0]].toLowerCase().includes(f) || S[r[1]].toLowerCase().includes(f));
      }
      if (state.sort) {
        const col = spec.cols.find((c) => c.key === state.sort);
        if (col) {
          const dir = state.desc ? -1 : 1;
          const key = col.magnitude ? (r) => { const v = col.get(r); return v === null ? Infinity : Math.abs(v); } : col.get;
          rows = rows.slice().sort((a, b) => {
            const x = key(a), y = key(b);
            return (x < y ? -1 : x > y ? 1 : 0) * dir;
          });
        }
      }
      // First, so top-N cannot cut the row a finding points at.
      if (state.mark) rows = rows.filter(marked).concat(rows.filter((r) => !marked(r)));
      const shown = state.top > 0 ? rows.slice(0, state.top) : rows;
      let html = "<thead><tr>" + cols.map((c) => {
        const sorted = state.sort === c.key ? (state.desc ? " sorted-desc" : " sorted-asc") : "";
        return `<th data-col="${c.key}" class="${c.cls || ""}${sorted}">${esc(c.label)}</th>`;
      }).join("") + "</tr></thead><tbody>";
      for (const r of shown) {
        const k = spec.comparedIndex(r);
        const t = tone(val(r, k, 1) - val(r, k, 0), r[4], false);
        // Only the deltas in the unit the row was judged on carry its colour: a host delta
        // beside a device judgement is shown, not coloured (issue 44).
        const judgedOn = `judged on ${spec.labels[k].toLowerCase()}`;
        html += `<tr class="${t}${marked(r) ? " highlight" : ""}">` + cols.map((c) => {
          const v = c.get(r);
          const text = c.show ? c.show(v) : v;
          if (c.cls === "name") return `<td class="name" title="${esc(v)}">${esc(text)}</td>`;
          const judged = c.delta && (c.value === undefined || c.value === k);
          const cls = c.delta ? (judged ? "delta judged" : "delta") : "";
          return `<td${cls ? ` class="${cls}"` : ""}${judged ? ` title="${judgedOn}"` : ""}${typeof v === "number" ? ` data-v="${v}"` : ""}>${esc(text)}</td>`;
        }).join("") + "</tr>";
      }
      if (!shown.length) html += `<tr><td class="name empty" colspan="${cols.length}">${selected.s === "unknown" ? "(unknown) time runs in no module" : "no rows"}</td></tr>`;
      table.innerHTML = html + "</tbody>";
      controls.querySelector(".count").textContent =
        `showing ${shown.length} of ${rows.length} rows` + (rows.length !== all.length ? ` (filtered from ${all.length})` : "");
      $(kind + "-scope").textContent = !atNode ? "(everything the diff covers)"
        : `inside ${selected.p || "(root)"}, by ${groupingLabel(nodeGrouping)} (as every module's table)`;
      table.dataset.rows = String(rows.length);
      writeUrl();
    }
    // A finding's row: in the grouping the findings were made with, filtered to its name.
    function show(name, shapes) {
      state.other = false;
      controls.querySelector(".group-by").value = "0";
      state.filter = name;
      controls.querySelector(".filter").value = name;
      state.mark = { name, shapes };
      render();
      wrap.scrollTop = 0;
    }
    function unmark() {
      if (!state.mark) return;
      // The filter a finding set goes with its mark; one the user typed since stays.
      const filter = controls.querySelector(".filter");
      if (filter.value === state.mark.name) { filter.value = ""; state.filter = ""; }
      state.mark = null;
      render();
    }
    // The table's part of the URL (URL state below): name=value pairs of what is not the default.
    function params() {
      return [["filter", state.filter], ["sort", state.sort ? `${state.sort}:${state.desc ? "desc" : "asc"}` : ""],
        ["top", state.top === 50 ? "" : state.top ? String(state.top) : "all"], ["group", state.other ? "other" : ""],
        ["all", state.all ? "1" : ""]];
    }
    // Takes what the URL says (get(name): its value or null), and the controls show it; a value
    // the table does not have (a column, a top-N, a grouping) is passed over.
    function restore(get) {
      const filter = get("filter");
      if (filter) { state.filter = filter; controls.querySelector(".filter").value = filter; }
      // The column as the header names it; the CLI's spelling without "_us" too.
      const [key, dir] = (get("sort") || "").split(":");
      const col = key && spec.cols.find((c) => c.key === key || c.key === key + "_us");
      if (col) { state.sort = col.key; state.desc = dir ? dir !== "asc" : !col.text; }
      const top = get("top") === "all" ? "0" : get("top");
      const topSelect = controls.querySelector(".top");
      if ([...topSelect.options].some((o) => o.value === top)) { topSelect.value = top; state.top = Number(top); }
      if (get("group") === "other" && otherGrouping) { state.other = true; controls.querySelector(".group-by").value = "1"; }
      if (get("all") === "1") { state.all = true; controls.querySelector(".all-columns").checked = true; }
    }
    return { kind, render, show, unmark, params, restore };
  }

  // ---- per-rank steps ------------------------------------------------------------------------
  function drawRanks() {
    const rows = D.ranks;
    const sides = new Set(rows.map((r) => r[0]));
    const perSide = (s) => rows.filter((r) => r[0] === s).length;
    if (!rows.length || ![...sides].some((s) => perSide(s) > 1)) { $("ranks-section").hidden = true; return; }
    let html = "<thead><tr><th class=name>Side</th><th>Rank</th><th class=name>Worker</th><th>Steps</th><th>Step time</th><th>Kernel</th><th>Communication</th><th>CPU exec</th><th>Other</th><th title='the rank of its side with the most compute (step time minus communication), when it is over 5% above the median of the others. Which rank the others wait for at the collectives (the straggler) is measured apart, by arrival order, in Communication'>Slowest compute</th></tr></thead><tbody>";
    for (const r of rows) {
      html += `<tr data-rank="${r[1]}"${r[4] ? ' class="slowest-compute-row"' : ""}><td class=name>${esc(r[0])}</td><td>${r[1]}</td><td class=name>${esc(r[2])}</td><td>${r[3]}</td><td data-v="${r[5]}">${fmtUs(r[5])}</td><td>${fmtUs(r[6])}</td><td data-v="${r[9]}">${fmtUs(r[9])}</td><td>${fmtUs(r[12])}</td><td>${fmtUs(r[13])}</td><td>${r[4] ? '<span class="marked-rank">slowest compute</span>' : ""}</td></tr>`;
    }
    $("ranks").innerHTML = html + "</tbody>";
    $("ranks-count").textContent = String(rows.length);
    const many = [...sides].some((s) => perSide(s) > RANK_BARS_MAX);
    $("ranks-details").open = !many;  // a thousand rows: the chart first, the table on demand
    if (many) {
      // Compute (step time minus communication): the rank with the most is marked.
      const series = [...sides].map((side) => {
        const mine = rows.filter((r) => r[0] === side).sort((a, b) => a[1] - b[1]);
        const slowest = mine.find((r) => r[4]);
        return { side: side === "baseline" ? 0 : 1, points: mine.map((r) => [r[1], Math.max(0, r[5] - r[9])]),
                 marked: slowest ? slowest[1] : null };
      });
      $("ranks-chart").innerHTML = rankProfileChart("compute per rank (step time minus communication)", series, "rank-mark", "slowest compute");
      return;
    }
    const max = Math.max(...rows.map((r) => r[5])) || 1;
    const h = 22 * rows.length + 24;
    let svg = `<svg viewBox="0 0 ${W} ${h}" role="img" aria-label="per-rank step time">`;
    rows.forEach((r, i) => {
      const y = 8 + i * 22, w = (r[5] / max) * (W - 300);
      const color = r[0] === "baseline" ? "var(--base)" : "var(--exp)";
      svg += `<text x="4" y="${y + 14}">${esc(r[0])} rank ${r[1]}</text>`;
      svg += `<rect class="rank-bar${r[4] ? " slowest-compute-bar" : ""}" x="160" y="${y}" width="${w.toFixed(1)}" height="16" fill="${color}" ${r[4] ? 'stroke="var(--worse)" stroke-width="3"' : ""}><title>${fmtUs(r[5])}</title></rect>`;
      svg += `<text x="${166 + w}" y="${y + 13}">${fmtUs(r[5])}${r[4] ? " ◀ slowest compute" : ""}</text>`;
    });
    $("ranks-chart").innerHTML = svg + "</svg>";
  }

  // ---- communication -------------------------------------------------------------------------
  // D.communication, only when a side ran collectives. Rows through D.layout's collective* and
  // rank_communication*: the row's fields, (baseline, experimental) pairs of the values, then
  // one noise ([significant, has_interval, ci_low, ci_high]) per name of *_noise.
  const comm = D.communication || null;
  function rowReader(fields, values, noises) {
    const F = fields.length, V = values.length;
    return {
      field: (r, name) => r[fields.indexOf(name)],
      v: (r, name, side) => r[F + 2 * values.indexOf(name) + side],
      noise: (r, name) => { const at = F + 2 * V + 4 * noises.indexOf(name); return r.slice(at, at + 4); },
    };
  }
  const CR = comm && rowReader(D.layout.collective, D.layout.collective_values, D.layout.collective_noise);
  const RR = comm && rowReader(D.layout.rank_communication, D.layout.rank_communication_values, D.layout.rank_communication_noise);
  const COMM_CHART_MAX_RANKS = RANK_BARS_MAX;  // past this: a dot per rank (rankProfileChart)
  const fmtGbps = (v) => (v > 0 ? Number(v.toPrecision(3)) + "" : "–");
  // The side's straggler rank, or null when the verdict found none.
  const stragglerOf = (side) => { const s = side ? comm.experimental_straggler : comm.baseline_straggler; return s.found ? s.rank : null; };
  // The experimental cell of a pair: ● and coloured (time: higher is worse) when the change is
  // significant, the interval in its title. `timed`: false for counts and sizes (no colour).
  function judgedCell(b, e, noise, fmt, timed, missing) {
    if (missing) return "<td>–</td>";
    const t = timed ? tone(e - b, noise[0], false) : "same";
    const title = noise[1] ? `Δ ${signed(fmt(e - b), e - b)}; 95% interval of Δ: ${fmt(noise[2])} … ${fmt(noise[3])}${noise[0] ? " (significant)" : " (within noise)"}` : "no noise estimate (a side has one step)";
    return `<td class="${t === "same" ? "" : t}" data-v="${e}" data-sig="${noise[0] ? 1 : 0}" title="${esc(title)}">${fmt(e)}${noise[0] ? ' <span class="sig">●</span>' : ""}</td>`;
  }
  function collectiveRows(rows, pooled) {
    let html = "<thead><tr><th class=name>Collective</th><th class=name>Group</th>" +
      (pooled ? "<th>Bytes/call B → E</th>" : "<th>Message</th><th>Ranks</th>") +
      "<th>Calls B</th><th>Calls E</th><th>Δ calls</th><th>Time B</th><th>Time E</th><th>Δ% time</th>" +
      "<th>Transfer B</th><th>Transfer E</th><th>Wait B</th><th>Wait E</th>" +
      "<th title='bus bandwidth (GB/s): bytes / transfer time × the nccl-tests factor'>Bus bw B</th><th>Bus bw E</th><th>Change</th></tr></thead><tbody>";
    for (const r of rows) {
      const v = (name, side) => CR.v(r, name, side);
      const name = S[CR.field(r, "collective")], group = S[CR.field(r, "process_group")];
      const bMissing = v("calls", 0) === 0, eMissing = v("calls", 1) === 0;
      const side = (name2, s, fmt) => ((s ? eMissing : bMissing) ? "–" : fmt(v(name2, s)));
      // A size the trace does not record is unknown ("–"), not 0 B, and so is its bandwidth.
      const sizeMissing = [CR.field(r, "baseline_size_missing"), CR.field(r, "experimental_size_missing")];
      const sized = (name2, s, fmt) => (sizeMissing[s] ? "–" : side(name2, s, fmt));
      const timeNoise = CR.noise(r, "time_us");
      const dTime = v("time_us", 1) - v("time_us", 0);
      const cls = [tone(dTime, timeNoise[0], false)];
      let size;
      if (pooled) {
        const bpc = CR.noise(r, "bytes_per_call");
        size = `<td${bpc[0] ? ' title="significant"' : ""}>${sized("bytes_per_call", 0, fmtBytes)} → ${sized("bytes_per_call", 1, fmtBytes)}${bpc[0] ? ' <span class="sig">●</span>' : ""}</td>`;
      } else {
        const dtype = S[CR.field(r, "dtype")];
        size = `<td>${sizeMissing[0] || sizeMissing[1] ? "–" : fmtBytes(CR.field(r, "bytes_per_call")) + (dtype ? " " + esc(dtype) : "")}</td><td>${CR.field(r, "group_size") || ""}</td>`;
      }
      html += `<tr class="${cls.join(" ")}" data-collective="${esc(name)}" data-group="${esc(group)}">` +
        `<td class=name title="${esc(name)}">${esc(name)}</td><td class=name>${esc(group || "default")}</td>${size}` +
        `<td>${side("calls", 0, fmtCount)}</td>${judgedCell(v("calls", 0), v("calls", 1), CR.noise(r, "calls"), fmtCount, false, eMissing)}` +
        `<td>${signed(fmtCount(v("calls", 1) - v("calls", 0)), v("calls", 1) - v("calls", 0))}</td>` +
        `<td>${side("time_us", 0, fmtUs)}</td>${judgedCell(v("time_us", 0), v("time_us", 1), timeNoise, fmtUs, true, eMissing)}` +
        `<td class="delta judged">${fmtPct(deltaPct(v("time_us", 0), v("time_us", 1)))}</td>` +
        `<td>${side("transfer_us", 0, fmtUs)}</td>${judgedCell(v("transfer_us", 0), v("transfer_us", 1), CR.noise(r, "transfer_us"), fmtUs, true, eMissing)}` +
        `<td>${side("wait_us", 0, fmtUs)}</td>${judgedCell(v("wait_us", 0), v("wait_us", 1), CR.noise(r, "wait_us"), fmtUs, true, eMissing)}` +
        `<td>${sized("busbw_gbps", 0, fmtGbps)}</td><td>${sized("busbw_gbps", 1, fmtGbps)}</td>` +
        `<td>${esc(S[CR.field(r, "change")])}</td></tr>`;
    }
    if (!rows.length) html += `<tr><td class="name empty" colspan="17">no rows</td></tr>`;
    return html + "</tbody>";
  }
  function verdictLine(side) {
    const label = side ? "experimental" : "baseline";
    const verdict = side ? comm.experimental_verdict : comm.baseline_verdict;
    const rank = stragglerOf(side);
    return `<li class="${rank !== null ? "found" : ""}" data-side="${label}"><span class="side ${side ? "exp" : "base"}"><b>${label}</b></span>` +
      `<span class="${rank !== null ? "marked-rank" : ""}">${esc(verdict || "no verdict")}</span></li>`;
  }
  // Per rank, baseline (left) and experimental (right) columns: transfer, wait stacked on it,
  // a tick at the exposed time; the side's straggler marked ▼ and its rank number red.
  function commRanksChart(ranks) {
    const n = ranks.length, CH = 300, PB = 44;
    const step = (W - PAD_L - PAD_R) / n;
    const x = (i) => PAD_L + i * step;
    const v = RR.v;
    let max = 0;
    for (const r of ranks) {
      for (const s of [0, 1]) max = Math.max(max, v(r, "transfer_us", s) + v(r, "wait_us", s), v(r, "exposed_us", s));
    }
    max = max || 1;
    const y = (u) => CH - PB - (u / max) * (CH - PAD_T - PB);
    // Two columns and a gap per rank, at most 48 px wide each (a run of two ranks), centred.
    const bw = Math.min(48, Math.max(0.8, step * 0.36)), gap = Math.min(step * 0.04, 6);
    const left = (step - 2 * bw - gap) / 2;
    const every = Math.max(1, Math.ceil(n / 40));
    const stragglers = [stragglerOf(0), stragglerOf(1)];
    let svg = `<svg viewBox="0 0 ${W} ${CH}" role="img" aria-label="communication per rank">`;
    ranks.forEach((r, i) => {
      const rank = RR.field(r, "rank");
      let g = `<g class="comm-rank" data-rank="${rank}"><rect class="bg" x="${x(i).toFixed(2)}" y="${PAD_T - 8}" width="${step.toFixed(2)}" height="${CH - PB - PAD_T + 8}" fill="transparent"/>`;
      for (const s of [0, 1]) {
        if (RR.field(r, s ? "experimental_missing" : "baseline_missing")) continue;
        const bx = x(i) + left + s * (bw + gap);
        const transfer = v(r, "transfer_us", s), wait = v(r, "wait_us", s), exposed = v(r, "exposed_us", s);
        const color = s ? "var(--exp)" : "var(--base)";
        const straggler = stragglers[s] === rank;
        const title = `<title>${s ? "experimental" : "baseline"} rank ${rank}${straggler ? " (straggler)" : ""}\n` +
          `transfer ${fmtUs(transfer)}, wait ${fmtUs(wait)}\nexposed ${fmtUs(exposed)} (overlap ${(100 * v(r, "overlap_ratio", s)).toFixed(0)}%)\n` +
          `last to arrive at ${fmtCount(v(r, "last_arrivals", s))} of ${fmtCount(v(r, "instances", s))} instances</title>`;
        const outline = straggler ? ' stroke="var(--worse)" stroke-width="2"' : "";
        g += `<g class="comm-bar" data-side="${s ? "e" : "b"}"${straggler ? ' data-straggler="1"' : ""}>${title}` +
          `<rect class="comm-transfer" x="${bx.toFixed(2)}" y="${y(transfer).toFixed(2)}" width="${bw.toFixed(2)}" height="${(CH - PB - y(transfer)).toFixed(2)}" fill="${color}"${outline}/>` +
          `<rect class="comm-wait" x="${bx.toFixed(2)}" y="${y(transfer + wait).toFixed(2)}" width="${bw.toFixed(2)}" height="${(y(transfer) - y(transfer + wait)).toFixed(2)}" fill="${color}" fill-opacity="0.3" stroke="${straggler ? "var(--worse)" : color}" stroke-width="${straggler ? 2 : 1}"/>` +
          `<line class="comm-exposed" x1="${(bx - 1).toFixed(2)}" x2="${(bx + bw + 1).toFixed(2)}" y1="${y(exposed).toFixed(2)}" y2="${y(exposed).toFixed(2)}" stroke="var(--ink)" stroke-width="2"/>`;
        if (straggler) g += `<text class="marked-rank-mark" x="${(bx + bw / 2).toFixed(2)}" y="${(y(transfer + wait) - 3).toFixed(2)}" text-anchor="middle">▼</text>`;
        g += "</g>";
      }
      // Every `every`-th rank numbered, and the stragglers (their neighbours then not, to fit).
      const marked = (k) => k >= 0 && k < n && stragglers.includes(RR.field(ranks[k], "rank"));
      if (marked(i) || (i % every === 0 && !(every > 1 && (marked(i - 1) || marked(i + 1))))) {
        g += `<text x="${(x(i) + step / 2).toFixed(2)}" y="${CH - PB + 14}" text-anchor="middle"${stragglers.includes(rank) ? ' class="marked-rank"' : ""}>${rank}</text>`;
      }
      svg += g + "</g>";
    });
    svg += `<line class="axis" x1="${PAD_L}" x2="${W - PAD_R}" y1="${CH - PB}" y2="${CH - PB}"/>` + yTicks(0, max, y, "l");
    svg += `<text x="${(W / 2).toFixed(0)}" y="${CH - PB + 32}" text-anchor="middle">rank</text>`;
    svg += `<text x="${PAD_L}" y="12">per rank: blue baseline, orange experimental · solid transfer, pale wait on top · black tick: exposed (not overlapped by compute) · ▼ the side's straggler</text>`;
    return svg + "</svg>";
  }
  function commRanksTable(ranks) {
    const stragglers = [stragglerOf(0), stragglerOf(1)];
    let html = "<thead><tr><th>Rank</th><th>Collective B</th><th>Collective E</th><th>Exposed B</th><th>Exposed E</th><th>Overlap B</th><th>Overlap E</th>" +
      "<th>Transfer B</th><th>Transfer E</th><th>Wait B</th><th>Wait E</th><th title='instances it arrived last at / ran with another rank'>Last B</th><th>Last E</th><th title='the rank the others wait for: last to arrive consistently'>Straggler</th></tr></thead><tbody>";
    for (const r of ranks) {
      const rank = RR.field(r, "rank");
      const miss = [RR.field(r, "baseline_missing"), RR.field(r, "experimental_missing")];
      const v = (name, s) => RR.v(r, name, s);
      const cell = (name, s, fmt) => `<td>${miss[s] ? "–" : fmt(v(name, s))}</td>`;
      const pct = (f) => (100 * f).toFixed(0) + "%";
      const last = (s) => `<td>${miss[s] ? "–" : fmtCount(v("last_arrivals", s)) + "/" + fmtCount(v("instances", s))}</td>`;
      const who = [0, 1].filter((s) => stragglers[s] === rank).map((s) => (s ? "experimental" : "baseline"));
      html += `<tr data-rank="${rank}"${who.length ? ' class="straggler-row"' : ""}><td>${rank}</td>` +
        cell("collective_us", 0, fmtUs) + cell("collective_us", 1, fmtUs) +
        cell("exposed_us", 0, fmtUs) + judgedCell(v("exposed_us", 0), v("exposed_us", 1), RR.noise(r, "exposed_us"), fmtUs, true, miss[1]) +
        cell("overlap_ratio", 0, pct) + cell("overlap_ratio", 1, pct) +
        cell("transfer_us", 0, fmtUs) + cell("transfer_us", 1, fmtUs) +
        cell("wait_us", 0, fmtUs) + judgedCell(v("wait_us", 0), v("wait_us", 1), RR.noise(r, "wait_us"), fmtUs, true, miss[1]) +
        last(0) + last(1) + `<td>${who.length ? `<span class="marked-rank">${who.join(", ")}</span>` : ""}</td></tr>`;
    }
    return html + "</tbody>";
  }
  function drawCommunication() {
    if (!comm) { $("communication-section").hidden = true; return; }
    $("comm-verdicts").innerHTML = verdictLine(0) + verdictLine(1);
    $("collectives").innerHTML = collectiveRows(comm.by_collective, true);
    $("collective-sizes").innerHTML = collectiveRows(comm.collectives, false);
    $("collective-sizes-count").textContent = String(comm.collectives.length);
    const ranks = comm.ranks;
    $("comm-ranks-chart").hidden = !ranks.length;
    if (ranks.length > COMM_CHART_MAX_RANKS) {
      // Wait per rank: the others wait for the straggler, which waits least.
      const sorted = [...ranks].sort((a, b) => RR.field(a, "rank") - RR.field(b, "rank"));
      const series = [0, 1].map((side) => ({
        side,
        points: sorted.filter((r) => !RR.field(r, side ? "experimental_missing" : "baseline_missing"))
          .map((r) => [RR.field(r, "rank"), RR.v(r, "wait_us", side)]),
        marked: stragglerOf(side),
      }));
      $("comm-ranks-chart").innerHTML = rankProfileChart("wait per rank (the others wait for the rank that arrives last)", series, "comm-rank", "straggler");
    } else if (ranks.length) {
      $("comm-ranks-chart").innerHTML = commRanksChart(ranks);
    }
    $("comm-ranks").innerHTML = commRanksTable(ranks);
    $("comm-ranks-details").hidden = !ranks.length;
  }
  // A finding's communication rows: a collective (name, process group as the path) or "rank N".
  function markCommunication(rows) {
    let first = null;
    const keep = (el) => { el.classList.add("highlight"); first = first || el; };
    for (const e of rows) {
      const rank = /^rank (\d+)$/.exec(e.name);
      if (rank) {
        $("comm-ranks-chart").querySelectorAll(`g.comm-rank[data-rank="${rank[1]}"]`).forEach(keep);
        // Without the chart the table is where the rank is.
        $("comm-ranks").querySelectorAll(`tr[data-rank="${rank[1]}"]`).forEach((tr) => {
          tr.classList.add("highlight");
          if ($("comm-ranks-chart").hidden) { $("comm-ranks-details").open = true; first = first || tr; }
        });
      } else {
        $("collectives").querySelectorAll("tbody tr[data-collective]").forEach((tr) => {
          if (tr.dataset.collective === e.name && tr.dataset.group === (e.path || "")) keep(tr);
        });
        $("collective-sizes").querySelectorAll("tbody tr[data-collective]").forEach((tr) => {
          if (tr.dataset.collective === e.name && tr.dataset.group === (e.path || "")) tr.classList.add("highlight");
        });
      }
    }
    if (first) first.scrollIntoView({ block: "center" });
    else if (!$("communication-section").hidden) $("communication-section").scrollIntoView({ block: "start" });
  }

  // ---- what changed -------------------------------------------------------------------------
  // D.findings: sentences, most important first, each with the rows it was made from (evidence).
  const findings = D.findings || [];
  const nodeAt = (indexPath) => (root ? byIndexPath.get(indexPath) || null : null);
  const scopeOf = (e) => (e.table !== "modules" && e.index_path ? nodeAt(e.index_path) : null);
  // Kernel names run to hundreds of characters of templates: the sentence's short form, the
  // whole name in the title.
  function evidenceLabel(e) {
    let name = e.name;
    if (e.table === "kernels") name = shortKernel(name);
    if (e.table === "communication" && e.path) name += " (group " + e.path + ")";
    return name.length > 48 ? name.slice(0, 47) + "…" : name;
  }
  function evidenceTitle(e) {
    const scope = scopeOf(e);
    let title = e.name + (e.input_shapes ? " " + e.input_shapes : "") + (scope ? "\ninside " + (scope.p || "(root)") : "");
    if (e.unit) title += `\nbaseline ${fmtValue(e.baseline, e.unit)}, experimental ${fmtValue(e.experimental, e.unit)}`;
    return title;
  }
  // "operators in Linear_0: aten::addmm aten::mm", the scope per row when the rows differ in it.
  function evidenceLinks(f, i) {
    let html = "";
    for (let j = 0; j < f.evidence.length;) {
      const e = f.evidence[j];
      let end = j;
      while (end < f.evidence.length && f.evidence[end].table === e.table) ++end;
      const run = f.evidence.slice(j, end);
      const scope = scopeOf(e);
      const shared = run.every((x) => x.index_path === e.index_path);
      html += `<span class="table">${esc(e.table)}${shared && scope ? " in " + esc(scope.n) : ""}:</span> `;
      run.forEach((x, k) => {
        const own = !shared && scopeOf(x) ? ` (in ${esc(scopeOf(x).n)})` : "";
        html += `<a href="#" data-f="${i}" data-e="${j + k}" title="${esc(evidenceTitle(x))}">${esc(evidenceLabel(x))}${own}</a> `;
      });
      j = end;
    }
    return html;
  }
  function drawFindings() {
    if (!findings.length) { $("findings-section").hidden = true; return; }
    const head = findings[0];
    // The card's edge: which way the step time went, when that is significant.
    $("findings-section").classList.add(tone(head.delta_us, head.significant, false));
    $("findings").innerHTML = findings.map((f, i) => {
      const cls = [i === 0 ? "headline" : "", f.significant ? "" : "muted"].filter(Boolean).join(" ");
      let html = `<li class="${cls}" data-kind="${esc(f.kind)}"><a class="finding" href="#" data-f="${i}">${esc(f.text)}</a>` +
        `<span class="kind">${esc(f.kind.replace(/_/g, " "))}</span>`;
      if (f.evidence.length) html += `<div class="evidence">→ ${evidenceLinks(f, i)}</div>`;
      return html + "</li>";
    }).join("");
    $("findings").onclick = (ev) => {
      const a = ev.target.closest("a[data-f]");
      if (!a) return;
      ev.preventDefault();
      const f = findings[Number(a.dataset.f)];
      if (f.evidence.length) follow(f, a.dataset.e === undefined ? null : Number(a.dataset.e));
    };
  }
  // Goes to evidence row `j` of finding `f`; j null (the sentence): its first row, and every
  // overview row it names (a category finding names several).
  function follow(f, j) {
    const e = f.evidence[j ?? 0];
    urlView = e.table;  // the tables are named as the sections are
    document.querySelectorAll("tr.highlight, #selected.highlight, g.highlight").forEach((el) => el.classList.remove("highlight"));
    for (const t of tables) t.unmark();
    const go = (id) => { if (!$(id).hidden) $(id).scrollIntoView({ block: "start" }); };
    if (e.table === "modules") {
      const node = nodeAt(e.index_path);
      if (!node) return;
      select(node);
      $("selected").classList.add("highlight");
      go("modules-section");
    } else if (e.table === "operators" || e.table === "kernels") {
      // The scope node's own table holds the row; "" (or a tree without it): the whole step.
      const node = nodeAt(e.index_path) || root;
      if (node) select(node);
      tables[e.table === "operators" ? 0 : 1].show(e.name, e.input_shapes);
      go(e.table + "-section");
    } else if (e.table === "overview") {
      const names = new Set(j === null ? f.evidence.filter((x) => x.table === "overview").map((x) => x.name) : [e.name]);
      document.querySelectorAll("#overview tbody tr").forEach((tr) => { if (names.has(tr.dataset.metric)) tr.classList.add("highlight"); });
      go("overview-section");
    } else if (e.table === "ranks") {
      const rank = (e.name.match(/\d+/) || [""])[0];
      document.querySelectorAll("#ranks tbody tr").forEach((tr) => { if (tr.dataset.rank === rank) tr.classList.add("highlight"); });
      go("ranks-section");
    } else if (e.table === "communication") {
      // The sentence: every communication row it names (a straggler finding names each rank).
      markCommunication(j === null ? f.evidence.filter((x) => x.table === "communication") : [e]);
    }
    writeUrl();
  }

  // ---- memory --------------------------------------------------------------------------------
  // D.memory, only when a side recorded memory. Curves are flat [offset_ns, allocated, reserved]
  // triples and step starts (then the last step's end) on the same clock; the chart's x axis is
  // in steps, so the two sides line up step by step whatever each step's duration.
  const mem = D.memory || null;
  const MR = mem && rowReader(D.layout.memory_row, D.layout.memory_values, D.layout.memory_noise);
  const MEMORY_ROWS_SHOWN = 200;  // more are in --format json / csv
  const SOURCE_TEXT = {
    MEMORY_SOURCE_EVENTS: "[memory] events",
    MEMORY_SOURCE_SELF_CPU_MEMORY_USAGE: "the ops' Self CPU Memory Usage arg (no curve, no peak)",
    MEMORY_SOURCE_NONE: "no memory recorded",
  };
  // Where time t falls on the step axis: k + the fraction of step k elapsed (a time between two
  // steps, where profiling windows or traces leave a gap, at the end of the earlier).
  function stepPosition(c, t) {
    const starts = c.steps, ends = c.step_ends;
    if (starts.length < 2) return 0;
    let lo = 0, hi = starts.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= t) lo = mid; else hi = mid - 1;
    }
    const end = ends.length > lo ? ends[lo] : starts[lo + 1];
    const span = end - starts[lo];
    return lo + Math.min(1, Math.max(0, span > 0 ? (t - starts[lo]) / span : 0));
  }
  // A peak's step as the trace numbers it (N of ProfilerStep#N, as the steps view prints it);
  // a digest kept from before the id was recorded knows only the kept step (issue 44).
  function memStepText(place) {
    if (place.step_id !== null && place.step_id !== undefined) return `step ${place.step_id}`;
    return place.step >= 0 ? `kept step ${place.step + 1}` : "";
  }
  // The label of step position k on the chart's axis: the sides' step ids, one when they agree.
  function memAxisLabel(d, k) {
    const ids = d.curves.map((c) => (c.step_ids || [])[k]).filter((id) => id !== undefined);
    if (!ids.length) return `kept step ${k + 1}`;
    return ids.every((id) => id === ids[0]) ? `step ${ids[0]}` : `step ${ids.join(" | ")}`;
  }
  function fmtBytesAxis(b) {
    const a = Math.abs(b);
    const [scale, unit] = a >= 1 << 30 ? [1 << 30, " GiB"] : a >= 1 << 20 ? [1 << 20, " MiB"] : a >= 1 << 10 ? [1 << 10, " KiB"] : [1, " B"];
    return b === 0 ? "0" : Number((b / scale).toPrecision(3)) + unit;
  }
  function memoryChart(d) {
    const CH = 280, PB = 40;
    const steps = Math.max(1, ...d.curves.map((c) => c.steps.length - 1));
    let max = 0;
    for (const c of d.curves) for (let i = 0; i < c.points.length; i += 3) max = Math.max(max, c.points[i + 1], c.points[i + 2]);
    max = max || 1;
    const x = (p) => PAD_L + (p / steps) * (W - PAD_L - PAD_R);
    const y = (b) => CH - PB - (b / max) * (CH - PAD_T - PB);
    let svg = `<svg viewBox="0 0 ${W} ${CH}" role="img" aria-label="memory over the steps, ${esc(d.device)}">`;
    for (let k = 0; k <= steps; ++k) {
      svg += `<line class="step-line" x1="${x(k).toFixed(1)}" x2="${x(k).toFixed(1)}" y1="${PAD_T}" y2="${CH - PB}"/>`;
      if (k < steps) svg += `<text class="mem-step" x="${x(k + 0.5).toFixed(1)}" y="${CH - PB + 14}" text-anchor="middle">${esc(memAxisLabel(d, k))}</text>`;
    }
    d.curves.forEach((c, s) => {
      if (c.points.length < 3) return;
      const color = s ? "var(--exp)" : "var(--base)";
      // Memory holds its value until the next event: a staircase.
      for (const [k, dash, cls] of [[1, "", "mem-allocated"], [2, ' stroke-dasharray="5 3"', "mem-reserved"]]) {
        let any = false, path = "";
        for (let i = 0; i < c.points.length; i += 3) {
          const px = x(stepPosition(c, c.points[i])).toFixed(1), py = y(c.points[i + k]).toFixed(1);
          path += i ? `H${px}V${py}` : `M${px},${py}`;
          any = any || c.points[i + k] > 0;
        }
        if (any) svg += `<path class="${cls}" data-side="${s ? "e" : "b"}" fill="none" stroke="${color}" stroke-width="${k === 1 ? 2 : 1.5}"${dash} d="${path}"/>`;
      }
      const place = d.places[s];
      let peak = 0;
      for (let i = 0; i < c.points.length; i += 3) peak = Math.max(peak, c.points[i + 1]);
      const title = `${s ? "experimental" : "baseline"} peak (rank ${c.rank}): ${fmtBytes(peak)} at ${place.operator || "(outside operators)"}` +
        `${place.module ? " in " + place.module : ""}${memStepText(place) ? ", " + memStepText(place) : ""}`;
      svg += `<circle class="mem-peak" data-side="${s ? "e" : "b"}" cx="${x(stepPosition(c, place.offset_ns)).toFixed(1)}" cy="${y(peak).toFixed(1)}" r="5" fill="${color}"><title>${esc(title)}</title></circle>`;
    });
    svg += `<line class="axis" x1="${PAD_L}" x2="${W - PAD_R}" y1="${CH - PB}" y2="${CH - PB}"/>`;
    for (let k = 0; k <= 4; ++k) {
      const v = (max * k) / 4;
      svg += `<text x="${PAD_L - 6}" y="${y(v) + 4}" text-anchor="end">${fmtBytesAxis(v)}</text>`;
    }
    const ranks = d.curves.map((c, s) => (c.points.length ? `${s ? "experimental" : "baseline"} rank ${c.rank}` : "")).filter(Boolean).join(", ");
    svg += `<text x="${PAD_L}" y="12">${esc(d.device)}: blue baseline, orange experimental (${esc(ranks)}) · solid allocated, dashed reserved · ● the peak</text>`;
    return svg + "</svg>";
  }
  function placeText(place, c) {
    if (!c.points.length && !place.operator) return "–";
    const step = memStepText(place);
    return `${place.operator || "(outside operators)"}${place.module ? " in " + place.module : ""} (rank ${place.rank}${step ? ", " + step : ""})`;
  }
  function memoryDevices() {
    let html = "<thead><tr><th class=name>Device</th><th>Peak B</th><th>Peak E</th><th>Δ</th><th>Δ%</th><th>Average B</th><th>Average E</th>" +
      "<th>Reserved B</th><th>Reserved E</th><th class=name>Peak at (baseline)</th><th class=name>Peak at (experimental)</th></tr></thead><tbody>";
    for (const d of mem.devices) {
      const delta = d.peak[1] - d.peak[0];
      html += `<tr data-device="${esc(d.device)}"><td class=name>${esc(d.device)}${d.from_bytes ? ' <span title="no Total Allocated in a trace: the running sum of Bytes">Σ</span>' : ""}</td>` +
        `<td>${fmtBytes(d.peak[0])}</td><td>${fmtBytes(d.peak[1])}</td><td>${signed(fmtBytes(delta), delta)}</td><td>${fmtPct(deltaPct(d.peak[0], d.peak[1]))}</td>` +
        `<td>${fmtBytes(d.average[0])}</td><td>${fmtBytes(d.average[1])}</td><td>${fmtBytes(d.reserved[0])}</td><td>${fmtBytes(d.reserved[1])}</td>` +
        `<td class=name title="${esc(placeText(d.places[0], d.curves[0]))}">${esc(placeText(d.places[0], d.curves[0]))}</td>` +
        `<td class=name title="${esc(placeText(d.places[1], d.curves[1]))}">${esc(placeText(d.places[1], d.curves[1]))}</td></tr>`;
    }
    return html + "</tbody>";
  }
  function memoryHolders() {
    let html = "<thead><tr><th class=name>Device</th><th class=name>Side</th><th class=name>Allocated by</th><th>Alive at the peak</th><th>Blocks</th></tr></thead><tbody>";
    let any = false;
    for (const d of mem.devices) {
      d.places.forEach((place, s) => {
        for (const [name, bytes, blocks] of place.holders) {
          any = true;
          html += `<tr><td class=name>${esc(d.device)}</td><td class=name>${s ? "experimental" : "baseline"}</td><td class=name title="${esc(name)}">${esc(name)}</td><td>${fmtBytes(bytes)}</td><td>${fmtCount(blocks)}</td></tr>`;
        }
      });
    }
    if (!any) html += `<tr><td class="name empty" colspan="5">no blocks alive at a peak</td></tr>`;
    return html + "</tbody>";
  }
  // Operators: self allocations and increase, and the increase with children. Module nodes: what
  // ran inside them, and the highest allocated inside.
  // Unless "All columns" is ticked, the columns no row is judged on (counts, the increase with
  // children, the peak inside) are left out, so the tables fit a 1400 px page (issue 45).
  function memoryRows(rows, modules, all) {
    const extra = (html) => (all ? html : "");
    let html = `<thead><tr><th class=name>${modules ? "Module" : "Operator"}</th><th class=name>${modules ? "Path" : "Input shapes"}</th><th class=name>Device</th>` +
      extra("<th>Allocs B</th><th>Allocs E</th>") + "<th>Alloc bytes B</th><th>Alloc bytes E</th><th>Δ</th><th>Δ%</th><th>Self increase B</th><th>Self increase E</th>" +
      extra(modules ? "<th>Peak inside B</th><th>Peak inside E</th>" : "<th title='allocated minus freed, children included'>Increase B</th><th>Increase E</th>") +
      "<th class='name change'>Change</th></tr></thead><tbody>";
    for (const r of rows.slice(0, MEMORY_ROWS_SHOWN)) {
      const v = (name, s) => MR.v(r, name, s);
      const name = S[MR.field(r, "name")], detail = S[MR.field(r, "detail")];
      const alloc = MR.noise(r, "allocation_bytes");
      const delta = v("allocation_bytes", 1) - v("allocation_bytes", 0);
      const last = modules ? "peak_allocated_bytes" : "increase_bytes";
      // A row that allocated nothing on either side is judged on its self increase: its colour
      // and its change say so, and the allocation deltas beside it (0 B) are not coloured.
      const bySelf = S[MR.field(r, "compared")] === "self_increase_bytes";
      const rowTone = bySelf
        ? tone(v("self_increase_bytes", 1) - v("self_increase_bytes", 0), MR.noise(r, "self_increase_bytes")[0], false)
        : tone(delta, alloc[0], false);
      const deltaCls = bySelf ? "delta" : "delta judged";
      const change = S[MR.field(r, "change")] + (bySelf ? " (self increase)" : "");
      html += `<tr class="${rowTone}" data-name="${esc(name)}"><td class=name title="${esc(name)}">${esc(name)}</td>` +
        `<td class=name title="${esc(detail)}">${esc(detail)}</td><td class=name>${esc(S[MR.field(r, "device")])}</td>` +
        extra(`<td>${fmtCount(v("allocation_count", 0))}</td><td>${fmtCount(v("allocation_count", 1))}</td>`) +
        `<td>${fmtBytes(v("allocation_bytes", 0))}</td>${judgedCell(v("allocation_bytes", 0), v("allocation_bytes", 1), alloc, fmtBytes, true, false)}` +
        `<td class="${deltaCls}">${signed(fmtBytes(delta), delta)}</td><td class="${deltaCls}">${fmtPct(deltaPct(v("allocation_bytes", 0), v("allocation_bytes", 1)))}</td>` +
        `<td>${fmtBytes(v("self_increase_bytes", 0))}</td>${judgedCell(v("self_increase_bytes", 0), v("self_increase_bytes", 1), MR.noise(r, "self_increase_bytes"), fmtBytes, true, false)}` +
        extra(`<td>${fmtBytes(v(last, 0))}</td><td>${fmtBytes(v(last, 1))}</td>`) + `<td class='name change'>${esc(change)}</td></tr>`;
    }
    if (!rows.length) html += `<tr><td class="name empty" colspan="${all ? 14 : 10}">no rows</td></tr>`;
    return html + "</tbody>";
  }
  function drawMemory() {
    if (!mem) { $("memory-section").hidden = true; return; }
    $("memory-sources").innerHTML = mem.sources.map((source, s) =>
      `<li data-side="${s ? "experimental" : "baseline"}"><span class="side ${s ? "exp" : "base"}"><b>${s ? "experimental" : "baseline"}</b></span>${esc(SOURCE_TEXT[source] || source)}</li>`).join("");
    $("memory-devices").innerHTML = memoryDevices();
    $("memory-charts").innerHTML = mem.devices.filter((d) => d.curves.some((c) => c.points.length))
      .map((d) => `<div class="chart memory-chart" data-device="${esc(d.device)}">${memoryChart(d)}</div>`).join("");
    $("memory-holders").innerHTML = memoryHolders();
    const drawRows = () => {
      const all = $("memory-all-columns").checked;
      $("memory-operators").innerHTML = memoryRows(mem.operators, false, all);
      $("memory-modules").innerHTML = memoryRows(mem.modules, true, all);
    };
    drawRows();
    $("memory-all-columns").onchange = drawRows;
    const count = (rows) => (rows.length > MEMORY_ROWS_SHOWN ? `(${MEMORY_ROWS_SHOWN} of ${rows.length} rows; --format csv lists them all)` : `(${rows.length} rows)`);
    $("memory-operators-count").textContent = count(mem.operators);
    $("memory-modules-count").textContent = count(mem.modules);
  }

  // ---- selection -----------------------------------------------------------------------------
  let tables = [];
  function select(node) {
    if (node !== selected) zoom = null;
    selected = node;
    $("selected").classList.remove("highlight");  // a finding's mark is for the node it chose
    drawCrumbs();
    drawTimeline();
    drawComparisonChart();
    drawDifferenceChart();
    drawChildren();
    for (const t of tables) t.render();
  }

  // ---- URL state -----------------------------------------------------------------------------
  // The view lives in the page's query, so that a copied URL opens the same view (a shared link):
  //   path=NAMES|INDICES   the selected node, as the CLI's --path takes it: names joined by "/"
  //                        (ResNet_0/Sequential_2/BasicBlock_1), or child indices (1/4/1) when it
  //                        is only digits and "/". A name may hold a "/" itself, so the page
  //                        writes the names only when they lead back to the node, else the indices.
  //   view=SECTION         the section scrolled to on load (SECTION-section: modules, kernels, ...);
  //                        the one the user last worked in or followed a finding to.
  //   operators.filter=TEXT, .sort=COLUMN:desc|asc, .top=20|100|500|all, .group=other, .all=1,
  //   and the same with kernels.
  // A value at its default is left out (a fresh page keeps a clean URL); parameters the page does
  // not know (the server's baseline, experimental, ranks, ...) are kept as they are. Rewritten
  // with history.replaceState (no history entries, no reload), and only in a page of its own:
  // in the several-run page's srcdoc frames (about:srcdoc) replaceState throws.
  const URL_KEYS = /^(path|view|(operators|kernels)\.(filter|sort|top|group|all))$/;
  const urlUsable = (() => {
    try { return window.top === window && /^(https?|file):$/.test(location.protocol); } catch (e) { return false; }
  })();
  let urlView = "";
  let urlReady = false;  // nothing is written until the page has taken its state from the URL
  const onlyIndices = (path) => /^[0-9/]+$/.test(path);
  // The node a `path` names, null when none does.
  function nodeAtPath(path) {
    let node = root;
    for (const part of path.split("/").filter(Boolean)) {
      node = onlyIndices(path) ? node.c[Number(part)] : node.c.find((c) => c.n === part || c.bn === part || c.en === part);
      if (!node) return null;
    }
    return node;
  }
  function pathOf(node) {
    if (!root || node === root) return "";
    return !onlyIndices(node.p) && nodeAtPath(node.p) === node ? node.p : node.i;
  }
  // Sets the tables' state from the URL; returns the node to select (the root when the path
  // names none).
  function readUrl() {
    if (!urlUsable) return root;
    try {
      const q = new URLSearchParams(location.search);
      for (const t of tables) t.restore((name) => q.get(t.kind + "." + name));
      const view = q.get("view") || "";
      urlView = /^[a-z]+$/.test(view) && $(view + "-section") ? view : "";
      return (root && nodeAtPath(q.get("path") || "")) || root;
    } catch (e) {
      return root;
    }
  }
  // "/" ":" "@" are left as they are: a query may hold them, and the path reads better.
  const encodeValue = (v) => encodeURIComponent(v).replace(/%2F/g, "/").replace(/%3A/g, ":").replace(/%40/g, "@");
  const keyOf = (part) => { try { return decodeURIComponent(part.split("=")[0].replace(/\+/g, " ")); } catch (e) { return ""; } };
  function writeUrl() {
    if (!urlUsable || !urlReady) return;
    try {
      const mine = [["path", pathOf(selected)], ["view", urlView]];
      for (const t of tables) for (const [name, v] of t.params()) mine.push([t.kind + "." + name, v]);
      const kept = location.search.slice(1).split("&").filter((part) => part && !URL_KEYS.test(keyOf(part)));
      const search = kept.concat(mine.filter(([, v]) => v).map(([k, v]) => k + "=" + encodeValue(v))).join("&");
      const url = location.href.replace(/[?#].*$/, "") + (search ? "?" + search : "") + location.hash;
      if (url !== location.href) history.replaceState(history.state, "", url);
    } catch (e) {
      // A page that may not rewrite its URL works as before; the URL stays as it was.
    }
  }

  drawHeader();
  drawFindings();
  drawOverview();
  drawRanks();
  drawCommunication();
  drawMemory();
  tables = [makeTable("operators"), makeTable("kernels")];
  const start = readUrl();
  if (root) {
    select(start);
  } else {
    $("modules-section").hidden = true;
    selected = { c: [], s: "", p: "" };
    for (const t of tables) t.render();
  }
  if (!D.tables[0].length && !(D.other_tables && D.other_tables[0].length)) $("operators-section").hidden = true;
  if (!D.tables[1].length && !(D.other_tables && D.other_tables[1].length)) $("kernels-section").hidden = true;
  const viewSection = urlView && $(urlView + "-section");
  if (viewSection && !viewSection.hidden) viewSection.scrollIntoView({ block: "start" });
  urlReady = true;
  writeUrl();  // the URL in the page's own words (an unknown path or value goes)
  // Tests and users can tell when the page is ready (and how long it took).
  window.profdiffReadyMs = performance.now();
  document.body.dataset.ready = "1";
})();
