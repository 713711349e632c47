/* The match report: builds the page from the JSON in #report-data (made by referee/report/data.py).
 * Plain DOM and inline SVG, no library, no network.  Moves are two characters each (column, row in
 * ALPHABET; ".." a pass).  A URL ending in #game-N shows game N first (#game-N-M: after move M);
 * #selftest replays every game and
 * writes what the page shows into the element #selftest (read by the tests in headless Chromium). */
(function () {
  "use strict";
  var ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_";
  var SVGNS = "http://www.w3.org/2000/svg";
  var PALETTE = ["#2f6fd6", "#d9532c", "#2e9e5b", "#8e44ad", "#c99a06", "#17a2b8", "#e83e8c", "#6c757d",
                 "#7b5e2a", "#1b4f72"];
  var TERM_COLOURS = { line: "#3b8e5a", full_board: "#9aa5b1", discs: "#3f7cc4", draw_after: "#b8c0ca",
    max_length: "#cfd5dc", timeout: "#e08a1e", crash: "#c0392b", illegal_move: "#8e44ad", forbidden: "#d63384",
    bad_output: "#8d6e63", start_failed: "#7f1d1d", resign: "#5d6d7e", abandoned: "#222" };
  var D = JSON.parse(document.getElementById("report-data").textContent);
  var board = D.board || { game: "mnk", w: 15, h: 15 };
  var reversi = board.game === "reversi";
  var current = null;  // the game being replayed: {entry, cells, positions, pos}

  // ---- small helpers ----------------------------------------------------------------------------
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    setAttrs(e, attrs);
    append(e, kids);
    return e;
  }
  function sv(tag, attrs, kids) {
    var e = document.createElementNS(SVGNS, tag);
    setAttrs(e, attrs);
    append(e, kids);
    return e;
  }
  function setAttrs(e, attrs) {
    if (!attrs) return;
    for (var k in attrs) {
      if (attrs[k] === null || attrs[k] === undefined) continue;
      if (k === "text") e.textContent = attrs[k];
      else if (k === "on") { for (var ev in attrs.on) e.addEventListener(ev, attrs.on[ev]); }
      else e.setAttribute(k, attrs[k]);
    }
  }
  function append(e, kids) {
    if (kids === null || kids === undefined) return;
    if (!Array.isArray(kids)) kids = [kids];
    kids.forEach(function (k) {
      if (k === null || k === undefined) return;
      e.appendChild(typeof k === "string" || typeof k === "number" ? document.createTextNode(String(k)) : k);
    });
  }
  function engineName(e) {
    var x = D.engines[e];
    return x.name === x.tag ? x.name : x.name + " (" + x.tag + ")";
  }
  var uniqueNames = D.engines.every(function (x, i) {
    return D.engines.every(function (y, j) { return i === j || x.name !== y.name; });
  });
  /* An engine in a narrow column: its name, or with its place where names repeat. */
  function shortName(e) { var x = D.engines[e]; return uniqueNames ? x.name : x.tag + " " + x.name; }
  function cellsOf(codes) {
    var out = [];
    for (var i = 0; i + 1 < codes.length; i += 2) {
      var a = codes.charAt(i), b = codes.charAt(i + 1);
      out.push(a === "." ? null : [ALPHABET.indexOf(a), ALPHABET.indexOf(b)]);
    }
    return out;
  }
  function moveText(c) {
    if (c === null) return "pass";
    return reversi ? String.fromCharCode(97 + c[0]) + (c[1] + 1) : c[0] + "," + c[1];
  }
  function resultText(g) { return g.w === 1 ? "1-0" : g.w === 2 ? "0-1" : g.w === 0 ? "\u00bd-\u00bd" : "void"; }
  function seconds(ms) { return (ms / 1000).toFixed(ms < 10000 ? 2 : 1); }
  function niceStep(span, n) {
    var raw = span / Math.max(1, n), mag = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10)), r = raw / mag;
    return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
  }

  // ---- header and summary ------------------------------------------------------------------------
  function title() {
    if (D.kind === "match") return engineName(0) + " vs " + engineName(1);
    return (D.kind === "gauntlet" ? "Gauntlet" : "Round-robin") + " of " + D.engines.length + " engines";
  }
  function header() {
    var games = D.total ? D.done + " of " + D.total + " games" : D.done + " games";
    var state = { running: "in progress", finished: "finished", interrupted: "interrupted", recorded: "recorded" };
    var sprt = D.sprt ? " \u00b7 SPRT: " + (D.sprt.decision ? D.sprt.decision + " accepted" : "continue") : "";
    var parts = [D.rules, D.clock].filter(Boolean).join(" \u00b7 ");
    return el("header", null, [
      el("h1", { text: title() }),
      el("div", { "class": "sub" }, [el("span", { "class": "state " + D.state, text: state[D.state] || D.state }),
        games + sprt + " \u00b7 written " + D.written]),
      parts ? el("div", { "class": "sub", text: parts }) : null,
      D.kind !== "match" ? el("div", { "class": "sub", text: D.engines.map(function (x) {
        return x.tag + ": " + x.name; }).join(" \u00b7 ") }) : null
    ]);
  }
  function standingsTable() {
    var head = ["#", "engine", "games", "W", "D", "L", "points", "score", "Elo", "95 %"];
    var rows = D.standings.map(function (r) {
      return el("tr", { "class": "standing", "data-e": r.e }, [
        el("td", { text: r.rank }), el("td", { "class": "l", text: engineName(r.e) }), el("td", { text: r.games }),
        el("td", { text: r.w }), el("td", { text: r.d }), el("td", { text: r.l }), el("td", { text: r.points }),
        el("td", { text: r.score === null ? "-" : r.score.toFixed(1) + " %" }), el("td", { text: r.elo }),
        el("td", { "class": "l", text: r.ci })]);
    });
    return el("table", { id: "standings" }, [
      el("thead", null, el("tr", null, head.map(function (h, i) { return el("th", { "class": i === 1 || i === 9 ? "l" : null, text: h }); }))),
      el("tbody", null, rows)]);
  }
  function crossTable() {
    var n = D.engines.length;
    var head = [el("th", { "class": "l", text: "" })];
    for (var j = 0; j < n; j++) head.push(el("th", { text: D.engines[j].tag }));
    var rows = [];
    for (var i = 0; i < n; i++) {
      var cells = [el("td", { "class": "l", text: engineName(i) })];
      for (j = 0; j < n; j++) {
        var c = D.cross[i][j];
        cells.push(i === j ? el("td", { "class": "self", text: "" }) :
          el("td", { text: c ? c[0] + " / " + c[1] : "" }));
      }
      rows.push(el("tr", null, cells));
    }
    return el("table", { id: "cross", "class": "cross" }, [el("thead", null, el("tr", null, head)), el("tbody", null, rows)]);
  }
  function summary() {
    var kids = [el("h2", { text: D.kind === "match" ? "Summary" : "Standings" })];
    var row = el("div", { "class": "row" });
    var left = el("div", null, [standingsTable()]);
    if (D.cross) {
      left.appendChild(el("h2", { text: "Cross table (points / games)" }));
      left.appendChild(crossTable());
    }
    if (D.reference) left.appendChild(el("div", { "class": "note muted", text: D.reference }));
    row.appendChild(left);
    // the terminal's own summary: the match's main text; a tournament's tables above say it already
    row.appendChild(el("details", { "class": "summary", open: D.kind === "match" ? "" : null }, [
      el("summary", { text: "as the terminal prints it" }),
      el("pre", { "class": "summary", id: "summary-text", text: D.summary || "no game finished" })]));
    kids.push(row);
    return el("section", { id: "summary" }, kids);
  }

  // ---- plots ---------------------------------------------------------------------------------------
  var PW = 460, PH = 230, M = { l: 46, r: 12, t: 10, b: 32 };
  function frame(id, xmax, ymin, ymax, xlabel, ylabel) {
    var s = sv("svg", { id: id, viewBox: "0 0 " + PW + " " + PH, width: PW, height: PH, role: "img" });
    var iw = PW - M.l - M.r, ih = PH - M.t - M.b;
    var X = function (x) { return M.l + (xmax > 0 ? x / xmax : 0) * iw; };
    var Y = function (y) { return M.t + (ymax > ymin ? (ymax - y) / (ymax - ymin) : 0.5) * ih; };
    var ys = niceStep(ymax - ymin, 5), xs = niceStep(Math.max(1, xmax), 6);
    for (var y = Math.ceil(ymin / ys) * ys; y <= ymax + 1e-9; y += ys) {
      s.appendChild(sv("line", { x1: M.l, x2: PW - M.r, y1: Y(y), y2: Y(y), stroke: y === 0 ? "#9aa3ad" : "#e6e9ee" }));
      s.appendChild(sv("text", { x: M.l - 4, y: Y(y) + 4, "text-anchor": "end", text: +y.toFixed(3) }));
    }
    for (var x = 0; x <= xmax + 1e-9; x += xs) {
      s.appendChild(sv("line", { x1: X(x), x2: X(x), y1: PH - M.b, y2: PH - M.b + 4, stroke: "#9aa3ad" }));
      s.appendChild(sv("text", { x: X(x), y: PH - M.b + 15, "text-anchor": "middle", text: Math.round(x) }));
    }
    s.appendChild(sv("rect", { x: M.l, y: M.t, width: iw, height: ih, fill: "none", stroke: "#c5ccd5" }));
    s.appendChild(sv("text", { x: M.l + iw / 2, y: PH - 3, "text-anchor": "middle", text: xlabel }));
    s.appendChild(sv("text", { x: 11, y: M.t + ih / 2, "text-anchor": "middle", transform: "rotate(-90 11 " + (M.t + ih / 2) + ")", text: ylabel }));
    return { svg: s, X: X, Y: Y, top: M.t, bottom: PH - M.b };
  }
  function pathOf(xs, ys, X, Y) {
    var d = "", pen = false;
    for (var i = 0; i < xs.length; i++) {
      if (ys[i] === null) { pen = false; continue; }
      d += (pen ? "L" : "M") + X(xs[i]).toFixed(1) + " " + Y(ys[i]).toFixed(1);
      pen = true;
    }
    return d;
  }
  function range(values, floor, ceil) {
    var v = values.filter(function (x) { return x !== null && isFinite(x); });
    var lo = Math.min.apply(null, v.concat([0])), hi = Math.max.apply(null, v.concat([0]));
    lo = Math.max(lo, floor); hi = Math.min(hi, ceil);
    var pad = (hi - lo) * 0.08 || 10;
    return [lo - pad, hi + pad];
  }
  function eloPlot() {
    var P = D.plots, xs = P.x, series = P.elo || [];
    if (!xs.length || !series.length) return null;
    // the scale follows the estimates; an interval shows at most 300 Elo beyond them
    var ys = [];
    series.forEach(function (s) { ys = ys.concat(s.y); });
    var est = range(ys, -800, 800), vals = ys.slice();
    series.forEach(function (s) { vals = vals.concat(s.lo, s.hi); });
    var r = range(vals, Math.max(-800, est[0] - 300), Math.min(800, est[1] + 300));
    var f = frame("plot-elo", xs[xs.length - 1], r[0], r[1], "games", "Elo");
    var clamp = function (v) { return Math.max(r[0], Math.min(r[1], v)); };
    series.forEach(function (s) {
      var colour = PALETTE[s.e % PALETTE.length], i = 0;
      // the shaded interval, in stretches where the data bound it on both sides
      while (i < xs.length) {
        while (i < xs.length && (s.lo[i] === null || s.hi[i] === null)) i++;
        var j = i;
        while (j < xs.length && s.lo[j] !== null && s.hi[j] !== null) j++;
        if (j - i > 1) {
          var d = "";
          for (var a = i; a < j; a++) d += (a === i ? "M" : "L") + f.X(xs[a]).toFixed(1) + " " + f.Y(clamp(s.hi[a])).toFixed(1);
          for (a = j - 1; a >= i; a--) d += "L" + f.X(xs[a]).toFixed(1) + " " + f.Y(clamp(s.lo[a])).toFixed(1);
          f.svg.appendChild(sv("path", { "class": "band", d: d + "Z", fill: colour, "fill-opacity": series.length > 1 ? 0.1 : 0.18, stroke: "none" }));
        }
        i = j;
      }
      f.svg.appendChild(sv("path", { "class": "series", d: pathOf(xs, s.y.map(function (v) { return v === null ? null : clamp(v); }), f.X, f.Y),
        fill: "none", stroke: colour, "stroke-width": 1.8 }, sv("title", { text: s.name })));
    });
    var legend = el("div", { "class": "legend" }, series.map(function (s) {
      var last = s.y[s.y.length - 1];
      return el("span", null, [el("i", { style: "background:" + PALETTE[s.e % PALETTE.length] }),
        s.name + (last === null ? "" : " " + (last > 0 ? "+" : "") + last)]);
    }));
    var note = (D.kind === "match" ? "engine1's Elo from " + series[0].basis + " (its games before the first pair)" :
      "each engine's Elo, " + (D.reference || "")) + "; shaded: the 95 % interval where the games bound it on both sides";
    return el("div", { "class": "plot card" }, [el("h3", { text: "Elo against games played" }), f.svg, legend,
      el("div", { "class": "note", text: note })]);
  }
  function llrPlot() {
    var P = D.plots;
    if (!P.llr || !P.x.length) return null;
    var L = P.llr, xs = P.x;
    var r = range(L.y.concat([L.lower, L.upper]), -1e9, 1e9);
    var f = frame("plot-llr", xs[xs.length - 1], r[0], r[1], "games", "LLR");
    [[L.upper, "H1 (" + D.sprt.elo1 + ")", "#2e9e5b"], [L.lower, "H0 (" + D.sprt.elo0 + ")", "#c0392b"]].forEach(function (b) {
      f.svg.appendChild(sv("line", { "class": "bound", x1: M.l, x2: PW - M.r, y1: f.Y(b[0]), y2: f.Y(b[0]), stroke: b[2], "stroke-dasharray": "5 4" }));
      f.svg.appendChild(sv("text", { x: PW - M.r - 4, y: f.Y(b[0]) - 4, "text-anchor": "end", text: b[1] + " " + b[0] }));
    });
    f.svg.appendChild(sv("path", { "class": "series", d: pathOf(xs, L.y, f.X, f.Y), fill: "none", stroke: "#2f6fd6", "stroke-width": 1.8 }));
    var s = D.sprt;
    var words = "LLR " + s.llr + " in [" + s.lower + ", " + s.upper + "]: " + (s.decision ? s.decision + " accepted" : "continue") +
      " \u00b7 elo0=" + s.elo0 + " elo1=" + s.elo1 + " alpha=" + s.alpha + " beta=" + s.beta + " (" + s.model + ", " +
      (s.paired ? "pentanomial" : "trinomial") + ")";
    return el("div", { "class": "plot card" }, [el("h3", { text: "SPRT: log-likelihood ratio against games" }), f.svg,
      el("div", { "class": "note", text: words })]);
  }
  function verdictPlot() {
    var rows = [];
    D.verdicts.forEach(function (v, e) {
      [["W", "won"], ["D", "drew"], ["L", "lost"]].forEach(function (k) {
        var total = 0;
        for (var t in v[k[0]]) total += v[k[0]][t];
        rows.push({ e: e, key: k[0], words: k[1], per: v[k[0]], total: total });
      });
    });
    var max = Math.max.apply(null, rows.map(function (r) { return r.total; }).concat([1]));
    var lh = 15, gap = 7, left = 150, width = PW - left - 40;
    var height = rows.length * lh + D.engines.length * gap + 8;
    var s = sv("svg", { id: "plot-verdicts", viewBox: "0 0 " + PW + " " + height, width: PW, height: height });
    var used = {}, y = 4;
    rows.forEach(function (r, i) {
      if (i && r.key === "W") y += gap;
      if (r.key === "W") s.appendChild(sv("text", { x: 2, y: y + 11, text: shortName(r.e).slice(0, 22) }));
      s.appendChild(sv("text", { x: left - 6, y: y + 11, "text-anchor": "end", text: r.words }));
      var x = left;
      Object.keys(r.per).sort().forEach(function (t) {
        var w = r.per[t] / max * width;
        used[t] = true;
        s.appendChild(sv("rect", { x: x, y: y + 1, width: Math.max(w, 0.5), height: lh - 3, fill: TERM_COLOURS[t] || "#888" },
          sv("title", { text: engineName(r.e) + " " + r.words + " " + r.per[t] + " by " + t })));
        x += w;
      });
      s.appendChild(sv("text", { x: x + 4, y: y + 11, text: r.total }));
      y += lh;
    });
    var legend = el("div", { "class": "legend" }, Object.keys(used).sort().map(function (t) {
      return el("span", null, [el("i", { style: "background:" + (TERM_COLOURS[t] || "#888") }), t]);
    }));
    return el("div", { "class": "plot card" }, [el("h3", { text: "Verdicts per engine" }), s, legend]);
  }
  function lengthPlot() {
    var bins = D.lengths;
    if (!bins.length) return null;
    var max = Math.max.apply(null, bins.map(function (b) { return b[2]; }));
    var f = frame("plot-lengths", bins[bins.length - 1][1] - bins[0][0], 0, max * 1.08, reversi ? "moves (passes included)" : "stones (opening included)", "games");
    bins.forEach(function (b) {
      var x0 = f.X(b[0] - bins[0][0]), x1 = f.X(b[1] - bins[0][0]);
      f.svg.appendChild(sv("rect", { x: x0 + 0.5, y: f.Y(b[2]), width: Math.max(0.5, x1 - x0 - 1), height: f.bottom - f.Y(b[2]), fill: "#7d9fd3" },
        sv("title", { text: b[2] + " games of " + b[0] + (b[1] - b[0] > 1 ? " to " + (b[1] - 1) : "") })));
    });
    // the x axis counts from the shortest game: relabel its ticks
    Array.prototype.forEach.call(f.svg.querySelectorAll("text"), function (t) {
      if (t.getAttribute("y") == PH - M.b + 15) t.textContent = +t.textContent + bins[0][0];
    });
    return el("div", { "class": "plot card" }, [el("h3", { text: "Game lengths" }), f.svg]);
  }
  function plots() {
    var items = [eloPlot(), llrPlot(), verdictPlot(), lengthPlot()].filter(Boolean);
    return el("section", { id: "plots" }, [el("h2", { text: "Plots" }), el("div", { "class": "plots" }, items)]);
  }

  // ---- the games list ------------------------------------------------------------------------------
  var COLS = [
    { h: "#", v: function (g) { return g.g; } },
    { h: D.colours[0], l: true, v: function (g) { return shortName(g.e[0]); } },
    { h: D.colours[1], l: true, v: function (g) { return shortName(g.e[1]); } },
    { h: "opening", l: true, v: function (g) { return cellsOf(g.mv.slice(0, 2 * g.op)).map(moveText).join(" "); } },
    { h: "result", v: function (g) { return resultText(g); } },
    { h: "verdict", l: true, v: function (g) { return g.t; } },
    { h: "moves", v: function (g) { return g.mv.length / 2; } },
    { h: "time (s)", v: function (g) { return g.tm[0] + g.tm[1]; }, show: function (g) { return seconds(g.tm[0]) + " / " + seconds(g.tm[1]); } },
    { h: "reason", l: true, cls: "why", v: function (g) { return g.why; } }
  ];
  var sortCol = 0, sortAsc = true;
  /* Rows drawn at first: a browser lays out thousands of rows slowly; the rest are a click away. */
  var PAGE_ROWS = 200, shownRows = PAGE_ROWS;
  function gameRow(g) {
    var tr = el("tr", { "class": "game", "data-g": g.g, title: g.why, on: { click: function () { openGame(g.g, true); } } });
    COLS.forEach(function (c) {
      tr.appendChild(el("td", { "class": (c.l ? "l" : "") + (c.cls ? " " + c.cls : "") || null, text: c.show ? c.show(g) : c.v(g) }));
    });
    return tr;
  }
  function filters() {
    var engine = el("select", { id: "f-engine", on: { change: renderRows } }, [el("option", { value: "", text: "any engine" })].concat(
      D.engines.map(function (x, e) { return el("option", { value: String(e), text: engineName(e) }); })));
    var result = el("select", { id: "f-result", on: { change: renderRows } }, [
      ["", "any result"], ["1", D.colours[0] + " wins (1-0)"], ["2", D.colours[1] + " wins (0-1)"], ["0", "draw"],
      ["won", "the chosen engine won"], ["lost", "the chosen engine lost"], ["-1", "void"]].map(function (o) {
      return el("option", { value: o[0], text: o[1] }); }));
    var seen = {};
    D.games.forEach(function (g) { seen[g.t] = (seen[g.t] || 0) + 1; });
    var verdict = el("select", { id: "f-verdict", on: { change: renderRows } }, [el("option", { value: "", text: "any verdict" })].concat(
      Object.keys(seen).sort().map(function (t) { return el("option", { value: t, text: t + " (" + seen[t] + ")" }); })));
    return el("div", { "class": "filters" }, [engine, result, verdict, el("span", { id: "f-count", "class": "muted" })]);
  }
  function keep(g) {
    var e = document.getElementById("f-engine").value, r = document.getElementById("f-result").value,
        t = document.getElementById("f-verdict").value;
    var ei = e === "" ? -1 : +e;
    if (ei >= 0 && g.e[0] !== ei && g.e[1] !== ei) return false;
    if (t && g.t !== t) return false;
    if (r === "won" || r === "lost") {
      if (ei < 0 || g.w <= 0) return false;
      var winner = g.e[g.w - 1];
      return r === "won" ? winner === ei : winner !== ei;
    }
    return r === "" || g.w === +r;
  }
  function renderRows() {
    var body = document.querySelector("#games tbody");
    var list = D.games.filter(keep);
    var col = COLS[sortCol];
    list.sort(function (a, b) {
      var x = col.v(a), y = col.v(b);
      var c = x < y ? -1 : x > y ? 1 : a.g - b.g;
      return sortAsc ? c : -c;
    });
    body.textContent = "";
    var frag = document.createDocumentFragment();
    list.slice(0, shownRows).forEach(function (g) { frag.appendChild(gameRow(g)); });
    if (list.length > shownRows) {
      frag.appendChild(el("tr", { "class": "more" }, el("td", { colspan: COLS.length, "class": "l" },
        el("button", { id: "show-all", type: "button", text: "show all " + list.length + " games",
          on: { click: function () { shownRows = Infinity; renderRows(); } } }))));
    }
    body.appendChild(frag);
    document.getElementById("f-count").textContent = list.length + " of " + D.games.length + " games" +
      (list.length > shownRows ? " (the first " + shownRows + " shown)" : "");
    Array.prototype.forEach.call(document.querySelectorAll("#games th"), function (th, i) {
      th.className = (COLS[i].l ? "l " : "") + (i === sortCol ? "sorted" + (sortAsc ? " asc" : "") : "");
    });
    markCurrentRow();
  }
  function gamesTable() {
    var head = el("tr", null, COLS.map(function (c, i) {
      return el("th", { "class": c.l ? "l" : null, text: c.h, on: { click: function () {
        if (sortCol === i) sortAsc = !sortAsc; else { sortCol = i; sortAsc = true; }
        renderRows();
      } } });
    }));
    return el("div", { "class": "games-wrap" }, [el("h2", { text: "Games" }), filters(),
      el("div", { "class": "games-scroll" }, el("table", { id: "games", "class": "games" }, [el("thead", null, head), el("tbody")]))]);
  }
  function markCurrentRow() {
    Array.prototype.forEach.call(document.querySelectorAll("#games tbody tr.current"), function (tr) { tr.classList.remove("current"); });
    if (!current) return;
    var tr = document.querySelector('#games tbody tr[data-g="' + current.entry.g + '"]');
    if (tr) tr.classList.add("current");
  }

  // ---- the board -----------------------------------------------------------------------------------
  /* Every position of a game, from the start: cells[y * w + x] is 0, 1 (the first colour) or 2. */
  function positionsOf(entry) {
    var w = board.w, h = board.h, moves = cellsOf(entry.mv), cells = new Array(w * h), out = [];
    for (var i = 0; i < cells.length; i++) cells[i] = 0;
    if (reversi) {
      var c = w / 2;
      cells[(c - 1) * w + c - 1] = 2; cells[c * w + c] = 2; cells[(c - 1) * w + c] = 1; cells[c * w + c - 1] = 1;
    }
    out.push({ cells: cells.slice(), flipped: [] });
    var side = 1;
    moves.forEach(function (m, k) {
      var flipped = [];
      var foul = entry.fm && k === moves.length - 1;  // the recorded foul is marked, not placed
      if (m !== null && !foul) {
        cells[m[1] * w + m[0]] = side;
        if (reversi) flipped = flip(cells, m[0], m[1], side);
      }
      out.push({ cells: cells.slice(), flipped: flipped, move: m, side: side });
      side = 3 - side;  // a pass is a move too: the other side plays next
    });
    return { moves: moves, positions: out };
  }
  /* Reversi: turn over the discs the disc just placed at x, y encloses; their indexes. */
  function flip(cells, x, y, side) {
    var w = board.w, h = board.h, all = [];
    for (var dx = -1; dx <= 1; dx++) for (var dy = -1; dy <= 1; dy++) {
      if (!dx && !dy) continue;
      var run = [], cx = x + dx, cy = y + dy;
      while (cx >= 0 && cy >= 0 && cx < w && cy < h && cells[cy * w + cx] === 3 - side) { run.push(cy * w + cx); cx += dx; cy += dy; }
      if (run.length && cx >= 0 && cy >= 0 && cx < w && cy < h && cells[cy * w + cx] === side) all = all.concat(run);
    }
    all.forEach(function (i) { cells[i] = side; });
    return all;
  }
  function drawBoard() {
    var svg = document.getElementById("board");
    var w = board.w, h = board.h, s = Math.max(14, Math.min(40, Math.floor(460 / Math.max(w, h)))), pad = 22;
    svg.setAttribute("viewBox", "0 0 " + (w * s + pad + 4) + " " + (h * s + pad + 4));
    svg.setAttribute("width", w * s + pad + 4);
    svg.setAttribute("height", h * s + pad + 4);
    svg.textContent = "";
    svg.appendChild(sv("rect", { x: pad, y: pad, width: w * s, height: h * s, fill: reversi ? "#2e7d4f" : "#e9c98f" }));
    for (var i = 0; i <= w; i++) svg.appendChild(sv("line", { x1: pad + i * s, x2: pad + i * s, y1: pad, y2: pad + h * s, stroke: reversi ? "#1d5234" : "#a4824a" }));
    for (i = 0; i <= h; i++) svg.appendChild(sv("line", { x1: pad, x2: pad + w * s, y1: pad + i * s, y2: pad + i * s, stroke: reversi ? "#1d5234" : "#a4824a" }));
    var step = w > 26 ? 2 : 1;
    for (i = 0; i < w; i += step) svg.appendChild(sv("text", { x: pad + i * s + s / 2, y: pad - 7, "text-anchor": "middle", text: reversi ? String.fromCharCode(97 + i) : i }));
    for (i = 0; i < h; i += step) svg.appendChild(sv("text", { x: pad - 4, y: pad + i * s + s / 2 + 4, "text-anchor": "end", text: reversi ? i + 1 : i }));
    if (!current) return;
    var p = current.positions[current.pos], at = function (x) { return pad + x * s + s / 2; };
    for (var y = 0; y < h; y++) for (var x = 0; x < w; x++) {
      var v = p.cells[y * w + x];
      if (!v) continue;
      svg.appendChild(sv("circle", { "class": "stone c" + v, "data-x": x, "data-y": y, cx: at(x), cy: at(y), r: s * 0.42,
        fill: v === 1 ? "#161616" : "#fafafa", stroke: v === 1 ? "#000" : "#777", "stroke-width": 1 }));
    }
    if (reversi) p.flipped.forEach(function (i) {
      svg.appendChild(sv("circle", { "class": "flipped", cx: at(i % w), cy: at(Math.floor(i / w)), r: s * 0.12, fill: "#888" }));
    });
    var end = current.pos === current.positions.length - 1;
    if (p.move) svg.appendChild(sv("circle", { "class": "last", cx: at(p.move[0]), cy: at(p.move[1]), r: s * 0.13, fill: "#e0312b" }));
    if (end && current.entry.line) {
      var line = cellsOf(current.entry.line);
      line.forEach(function (c) {
        svg.appendChild(sv("circle", { "class": "win", cx: at(c[0]), cy: at(c[1]), r: s * 0.46, fill: "none", stroke: "#e0312b", "stroke-width": 2.5 }));
      });
      var a = line[0], b = line[line.length - 1];
      svg.appendChild(sv("line", { "class": "win", x1: at(a[0]), y1: at(a[1]), x2: at(b[0]), y2: at(b[1]), stroke: "#e0312b", "stroke-width": 2, "stroke-opacity": 0.7 }));
    }
    if (end && current.entry.foul) {
      var f = cellsOf(current.entry.foul)[0], r = s * 0.34;
      var fouler = current.entry.fm ? p.side : 3 - (p.side || 2);
      if (!p.cells[f[1] * w + f[0]]) svg.appendChild(sv("circle", { "class": "foul", cx: at(f[0]), cy: at(f[1]), r: s * 0.42,
        fill: fouler === 2 ? "#fafafa" : "#161616", "fill-opacity": 0.45 }));
      svg.appendChild(sv("path", { "class": "foul", d: "M" + (at(f[0]) - r) + " " + (at(f[1]) - r) + "L" + (at(f[0]) + r) + " " + (at(f[1]) + r) +
        "M" + (at(f[0]) + r) + " " + (at(f[1]) - r) + "L" + (at(f[0]) - r) + " " + (at(f[1]) + r), stroke: "#e0312b", "stroke-width": 3.5 },
        sv("title", { text: "the foul: " + current.entry.why })));
    }
  }
  function replayPanel() {
    var btn = function (id, text, fn, tip) { return el("button", { id: id, type: "button", title: tip, text: text, on: { click: fn } }); };
    return el("div", { "class": "replay card", id: "replay" }, [
      el("h2", { id: "r-title", text: "Replay" }),
      el("div", { id: "r-players", "class": "muted", text: "click a game in the list" }),
      sv("svg", { id: "board", role: "img" }),
      el("div", { "class": "controls" }, [
        btn("b-first", "\u00ab", function () { go(0); }, "first position (Home)"),
        btn("b-prev", "\u2039", function () { go(current ? current.pos - 1 : 0); }, "previous move (\u2190)"),
        btn("b-next", "\u203a", function () { go(current ? current.pos + 1 : 0); }, "next move (\u2192)"),
        btn("b-last", "\u00bb", function () { go(current ? current.positions.length - 1 : 0); }, "last position (End)"),
        el("span", { id: "r-pos", "class": "muted" })]),
      el("div", { id: "r-move" }),
      el("div", { id: "r-verdict", "class": "verdict" }),
      el("div", { id: "r-moves", "class": "moves" }),
      el("div", { id: "r-files", "class": "files" })]);
  }
  function openGame(g, toEnd) {
    var entry = null;
    for (var i = 0; i < D.games.length; i++) if (D.games[i].g === g) entry = D.games[i];
    if (!entry) return false;
    var p = positionsOf(entry);
    var ms = entry.ms ? entry.ms.split(",").map(Number) : [];  // each move's think time, comma-separated
    current = { entry: entry, moves: p.moves, positions: p.positions, ms: ms, pos: toEnd ? p.positions.length - 1 : 0 };
    document.getElementById("r-title").textContent = "Game " + g;
    document.getElementById("r-players").textContent = D.colours[0] + ": " + engineName(entry.e[0]) + "  \u00b7  " +
      D.colours[1] + ": " + engineName(entry.e[1]);
    document.getElementById("r-verdict").textContent = resultText(entry) + " by " + entry.t + ": " + entry.why +
      (entry.discs ? " (discs " + entry.discs[0] + "-" + entry.discs[1] + ")" : "");
    var list = document.getElementById("r-moves");
    list.textContent = "";
    p.moves.forEach(function (m, k) {
      var tip = (k < entry.op ? "opening" : ms[k] + " ms");
      list.appendChild(el("span", { "class": k < entry.op ? "op" : null, "data-k": k + 1, title: tip,
        text: (k + 1) + ". " + moveText(m), on: { click: function () { go(k + 1); } } }));
    });
    var files = document.getElementById("r-files");
    files.textContent = "";
    (entry.f || []).forEach(function (f) { files.appendChild(el("a", { href: f, text: f })); });
    markCurrentRow();
    go(current.pos);
    return true;
  }
  function go(k) {
    if (!current) return;
    current.pos = Math.max(0, Math.min(current.positions.length - 1, k));
    drawBoard();
    var n = current.positions.length - 1, p = current.positions[current.pos], e = current.entry;
    document.getElementById("r-pos").textContent = "move " + current.pos + " of " + n;
    var words = "";
    if (current.pos > 0) {
      var i = current.pos - 1;
      words = D.colours[p.side - 1] + " " + moveText(p.move) + "  \u00b7  " +
        (i < e.op ? "opening" : current.ms[i] + " ms") + (reversi && p.move ? "  \u00b7  " + p.flipped.length + " flipped (dotted)" : "");
    } else words = "start position";
    document.getElementById("r-move").textContent = words;
    Array.prototype.forEach.call(document.querySelectorAll("#r-moves span"), function (s) {
      s.className = (+s.getAttribute("data-k") <= e.op ? "op" : "") + (+s.getAttribute("data-k") === current.pos ? " cur" : "");
    });
  }
  document.addEventListener("keydown", function (ev) {
    if (!current || /^(SELECT|INPUT|TEXTAREA)$/.test(ev.target.tagName)) return;
    var keys = { ArrowLeft: current.pos - 1, ArrowRight: current.pos + 1, Home: 0, End: current.positions.length - 1 };
    if (ev.key in keys) { go(keys[ev.key]); ev.preventDefault(); }
  });

  // ---- the page, and its self-test -------------------------------------------------------------------
  function boardText() {
    var w = board.w, h = board.h, rows = [];
    var cells = new Array(w * h);
    for (var i = 0; i < cells.length; i++) cells[i] = ".";
    Array.prototype.forEach.call(document.querySelectorAll("#board circle.stone"), function (c) {
      cells[+c.getAttribute("data-y") * w + +c.getAttribute("data-x")] = c.classList.contains("c1") ? "x" : "o";
    });
    for (var y = 0; y < h; y++) rows.push(cells.slice(y * w, (y + 1) * w).join(""));
    return rows.join("/");
  }
  function selftest() {
    var out = { standings: document.querySelectorAll("#standings tbody tr").length,
                rows: document.querySelectorAll("#games tbody tr.game").length, boards: {}, marks: {},
                plots: Array.prototype.map.call(document.querySelectorAll("#plots svg"), function (s) { return s.id; }),
                series: document.querySelectorAll("#plot-elo path.series").length,
                llr_bounds: document.querySelectorAll("#plot-llr line.bound").length };
    var more = document.getElementById("show-all");
    if (more) more.click();
    out.all_rows = document.querySelectorAll("#games tbody tr.game").length;
    D.games.forEach(function (g) {
      document.querySelector('#games tbody tr[data-g="' + g.g + '"]').dispatchEvent(new MouseEvent("click", { bubbles: true }));
      document.getElementById("b-first").click();
      var clicks = 0;
      while (current.pos < current.positions.length - 1 && clicks < 10000) { document.getElementById("b-next").click(); clicks++; }
      out.boards[g.g] = boardText();
      out.marks[g.g] = { win: document.querySelectorAll("#board circle.win").length, foul: document.querySelectorAll("#board path.foul").length,
                         clicks: clicks, move: document.getElementById("r-move").textContent };
    });
    var sel = document.getElementById("f-engine");
    sel.value = "0";
    sel.dispatchEvent(new Event("change"));
    out.rows_engine0 = document.querySelectorAll("#games tbody tr.game").length;
    sel.value = "";
    sel.dispatchEvent(new Event("change"));
    out.errors = window.reportErrors.slice();
    document.body.appendChild(el("pre", { id: "selftest", text: JSON.stringify(out) }));
  }
  function main() {
    document.title = title() + " \u2014 referee report";
    var app = document.getElementById("app");
    app.appendChild(header());
    var m = el("main");
    m.appendChild(summary());
    m.appendChild(plots());
    m.appendChild(el("section", { id: "games-section", "class": "row" }, [gamesTable(), replayPanel()]));
    app.appendChild(m);
    renderRows();
    drawBoard();
    var hash = location.hash;
    var want = /^#game-(\d+)(?:-(\d+))?$/.exec(hash);  // #game-N: game N at its end; #game-N-M: after move M
    if (want && openGame(+want[1], true)) {
      if (want[2] !== undefined) go(+want[2]);
      // a link to one game shows that game first; the rest of the report is one click away
      document.body.classList.add("focus");
      document.getElementById("r-title").appendChild(el("a", { href: "#", "class": "whole", text: "the whole report",
        on: { click: function (ev) { document.body.classList.remove("focus"); ev.preventDefault(); } } }));
    }
    else if (D.games.length) openGame(D.games[D.games.length - 1].g, true);
    if (hash === "#selftest") selftest();
  }
  try { main(); } catch (err) { window.reportErrors.push(String(err && err.stack || err)); }
  // how long the page took from navigation to built (measured by the docs' figures)
  document.body.setAttribute("data-built-ms", Math.round(performance.now()));
  document.getElementById("script-errors").textContent = window.reportErrors.join("\n");
})();
