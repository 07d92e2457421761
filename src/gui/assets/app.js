// Ultimo GUI: draws the state the server streams (/events) and sends the
// person's commands (/api). All game logic lives in the server: the page
// draws either game (Ultimate Tic-Tac-Toe or Super 1 al 5) as it is told.
"use strict";

const $ = (id) => document.getElementById(id);
const NS = "http://www.w3.org/2000/svg";
const FILES = "abcdefghi";
let state = null;
// The person's settings, kept in the browser: board flipped, sound, theme.
const prefs = {
  get: (k, d) => { try { return localStorage.getItem("ultimo." + k) ?? d; } catch (e) { return d; } },
  set: (k, v) => { try { localStorage.setItem("ultimo." + k, v); } catch (e) { /* private mode */ } },
};
let flipped = false;

function el(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

const cellName = (i) => FILES[i % 9] + (9 - Math.floor(i / 9));

function say(text, error) {
  const s = $("status");
  s.textContent = text || "";
  s.classList.toggle("error", !!error);
}

// A refusal stays on the status line until the game moves on or a later
// command succeeds.
function clearError() {
  if (!$("status").classList.contains("error")) return;
  $("status").classList.remove("error");
  if (state) say(statusText(state));
}

// Commands go to the server one at a time, in the order they were given:
// quick key presses (four steps back) must arrive in order, or the last to
// arrive would win.
let queue = Promise.resolve();
// Steps sent but not yet answered: until then the local cursor stands.
let pendingSteps = 0;

function api(cmd) {
  const send = async () => {
    try {
      const r = await fetch("/api", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(cmd),
      });
      const body = await r.json();
      if (body.error) say(body.error, true);
      else clearError();
      return !body.error;
    } catch (e) {
      say("the server cannot be reached", true);
      return false;
    }
  };
  queue = queue.then(send);
  return queue;
}

// --- The board -----------------------------------------------------------

const board = $("board");
const layers = {};
// The game the board is drawn for; it is built again when the game changes.
let builtFor = null;

function ensureBoard(game) {
  const key = game + (flipped ? ":flipped" : "");
  if (builtFor === key) return;
  builtFor = key;
  boardKey = null;
  selected = null;
  board.replaceChildren();
  for (const k in layers) delete layers[k];
  board.classList.toggle("super15", game === "super15");
  if (game === "super15") buildSuper15();
  else buildUttt();
}

function buildUttt() {
  board.setAttribute("viewBox", "-6 -1 97 97");
  // Flipped, the board turns half a turn (x and o look the same upside
  // down); the coordinates outside it are written the right way up.
  const rot = el("g", flipped ? { transform: "rotate(180 45 45)" } : {}, board);
  for (const name of ["bg", "heat", "grid", "marks", "big", "win", "arrow", "hit"]) layers[name] = el("g", { class: name }, rot);
  layers.labels = el("g", { class: "labels" }, board);
  for (let k = 0; k < 9; k++) {
    const f = el("text", { x: (flipped ? 8 - k : k) * 10 + 5, y: 93.5, class: "label" }, layers.labels);
    f.textContent = FILES[k];
    const r = el("text", { x: -3.5, y: (flipped ? k : 8 - k) * 10 + 5, class: "label" }, layers.labels);
    r.textContent = String(k + 1);
  }
  for (let b = 0; b < 9; b++) {
    const x = (b % 3) * 30, y = Math.floor(b / 3) * 30;
    el("rect", { x: x + 0.5, y: y + 0.5, width: 29, height: 29, rx: 1.5, class: "sub", id: "sub" + b }, layers.bg);
  }
  for (let i = 0; i < 81; i++) {
    const x = (i % 9) * 10, y = Math.floor(i / 9) * 10;
    el("rect", { x: x + 1, y: y + 1, width: 8, height: 8, rx: 1, class: "cell", id: "c" + i }, layers.bg);
    const h = el("rect", { x: x, y: y, width: 10, height: 10, class: "hit", "data-i": i, "data-cell": cellName(i), "data-mark": "", role: "gridcell", "aria-label": cellName(i) }, layers.hit);
    h.addEventListener("click", () => clickCell(i));
  }
  for (let k = 1; k < 9; k++) {
    if (k % 3 === 0) continue;
    el("line", { x1: k * 10, y1: 2, x2: k * 10, y2: 88, class: "thin" }, layers.grid);
    el("line", { x1: 2, y1: k * 10, x2: 88, y2: k * 10, class: "thin" }, layers.grid);
  }
  for (let k = 1; k < 3; k++) {
    el("line", { x1: k * 30, y1: 1, x2: k * 30, y2: 89, class: "thick" }, layers.grid);
    el("line", { x1: 1, y1: k * 30, x2: 89, y2: k * 30, class: "thick" }, layers.grid);
  }
}

function mark(kind, cx, cy, r, parent, cls) {
  if (kind === "x") {
    const g = el("g", { class: "x " + (cls || "") }, parent);
    el("line", { x1: cx - r, y1: cy - r, x2: cx + r, y2: cy + r }, g);
    el("line", { x1: cx - r, y1: cy + r, x2: cx + r, y2: cy - r }, g);
  } else {
    el("circle", { cx, cy, r, class: "o " + (cls || "") }, parent);
  }
}

// The three small boards in a line that won the game, crossed out.
const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
function drawWinLine(s) {
  layers.win.replaceChildren();
  if (s.outcome !== "x" && s.outcome !== "o") return;
  const line = LINES.find((l) => l.every((b) => s.boards[b] === s.outcome));
  if (!line) return;
  const c = (b) => [(b % 3) * 30 + 15, Math.floor(b / 3) * 30 + 15];
  const [a, z] = [c(line[0]), c(line[2])];
  const dx = Math.sign(z[0] - a[0]) * 11, dy = Math.sign(z[1] - a[1]) * 11;
  el("line", { x1: a[0] - dx, y1: a[1] - dy, x2: z[0] + dx, y2: z[1] + dy, class: "winline " + s.outcome, "data-winline": line.join("") }, layers.win);
}

// The best move of the live analysis as an arrow: in Super 1 al 5 from
// the piece's cell to its destination; in Ultimate Tic-Tac-Toe, where a
// move has no origin, from the last move (the cell that sends the side to
// move to its board) to the reply, or, with no last move, a short arrow
// pointing at the cell from its upper left (inside the board at an edge).
function drawArrow(s) {
  layers.arrow.replaceChildren();
  const live = s.analysis ? currentLive(s) : null;
  if (!live || !live.lines.length || s.outcome) return;
  const mv = live.lines[0].mv;
  let from, to, fromName;
  if (s.game === "super15") {
    const idx = (n) => S_FILES.indexOf(n[0]) + 10 * (parseInt(n.slice(1), 10) - 1);
    from = [sqX(idx(mv.slice(0, 2))) + 5, sqY(idx(mv.slice(0, 2))) + 5];
    to = [sqX(idx(mv.slice(2))) + 5, sqY(idx(mv.slice(2))) + 5];
    fromName = mv.slice(0, 2);
  } else {
    const i = FILES.indexOf(mv[0]) + 9 * (9 - parseInt(mv.slice(1), 10));
    to = [(i % 9) * 10 + 5, Math.floor(i / 9) * 10 + 5];
    if (s.last !== null && s.last !== undefined && s.last !== i) {
      from = [(s.last % 9) * 10 + 5, Math.floor(s.last / 9) * 10 + 5];
      fromName = cellName(s.last);
    } else {
      // From the upper left, or from inside the board at its edges.
      from = [to[0] + (to[0] < 10 ? 9.5 : -9.5), to[1] + (to[1] < 10 ? 9.5 : -9.5)];
      fromName = "";
    }
  }
  const g = el("g", { class: "best-arrow", "data-move": mv, "data-from": fromName }, layers.arrow);
  const [dx, dy] = [to[0] - from[0], to[1] - from[1]];
  const len = Math.hypot(dx, dy);
  const [ux, uy] = [dx / len, dy / len];
  // From the edge of the piece or mark it starts at, which stays readable.
  if (fromName) from = [from[0] + ux * 4.2, from[1] + uy * 4.2];
  // Short of a piece it takes; into a free cell (Ultimate Tic-Tac-Toe),
  // past its centre, so that a move to the next cell still shows a shaft.
  const reach = s.game === "super15" ? -1.5 : 1.5;
  const tip = [to[0] + ux * reach, to[1] + uy * reach];
  const base = [tip[0] - ux * 4, tip[1] - uy * 4];
  el("line", { x1: from[0], y1: from[1], x2: base[0], y2: base[1] }, g);
  el("polygon", { points: `${tip[0]},${tip[1]} ${base[0] - uy * 2.5},${base[1] + ux * 2.5} ${base[0] + uy * 2.5},${base[1] - ux * 2.5}` }, g);
}

// What the board shows, as one text: the board is drawn again only when
// it changes (an update of the analysis lines alone, a dozen a second,
// leaves it as it is).
let boardKey = null;
function boardText(s) {
  const live = currentLive(s);
  const heat = $("heat").checked && live ? live.heat : null;
  return JSON.stringify([builtFor, s.fen, s.legal, s.outcome, s.last, s.boards, s.cells, s.pieces, s.central,
    selected, heat]);
}
// The best move's arrow, drawn again alone when only it changes.
let arrowKey = null;
function arrowText(s) {
  const live = currentLive(s);
  return s.analysis && live && live.lines.length && !s.outcome ? live.lines[0].mv : null;
}

function drawBoard(s) {
  ensureBoard(s.game);
  const key = boardText(s);
  const arrow = arrowText(s);
  if (key === boardKey) {
    if (arrow !== arrowKey) {
      arrowKey = arrow;
      drawArrow(s);
    }
    return;
  }
  boardKey = key;
  arrowKey = arrow;
  if (s.game === "super15") return drawSuper15(s);
  layers.marks.replaceChildren();
  layers.big.replaceChildren();
  layers.heat.replaceChildren();
  const playable = new Set();
  s.legal.forEach((ok, i) => { if (ok) playable.add(3 * Math.floor(i / 27) + Math.floor((i % 9) / 3)); });
  for (let b = 0; b < 9; b++) {
    const sub = $("sub" + b);
    sub.classList.toggle("playable", playable.has(b) && !s.outcome);
    sub.classList.toggle("drawn", s.boards[b] === "draw");
    sub.classList.toggle("won", s.boards[b] === "x" || s.boards[b] === "o");
  }
  const hits = layers.hit.children;
  for (let i = 0; i < 81; i++) {
    const c = $("c" + i);
    c.classList.toggle("last", s.last === i);
    c.classList.toggle("legal", s.legal[i]);
    if (s.cells[i]) mark(s.cells[i], (i % 9) * 10 + 5, Math.floor(i / 9) * 10 + 5, 2.6, layers.marks);
    const h = hits[i];
    h.dataset.mark = s.cells[i];
    if (s.legal[i] && !s.outcome) h.dataset.legal = "true";
    else delete h.dataset.legal;
    h.setAttribute("aria-label", `${cellName(i)}, ${s.cells[i] || (s.legal[i] ? "free, playable" : "free")}`);
  }
  drawWinLine(s);
  drawArrow(s);
  for (let b = 0; b < 9; b++) {
    if (s.boards[b] === "x" || s.boards[b] === "o") {
      mark(s.boards[b], (b % 3) * 30 + 15, Math.floor(b / 3) * 30 + 15, 10, layers.big, "big");
    }
  }
  const live = currentLive(s);
  if ($("heat").checked && live && live.heat.length === 81) {
    const max = Math.max(...live.heat, 1);
    live.heat.forEach((v, i) => {
      if (v > 0) el("rect", { x: (i % 9) * 10 + 1, y: Math.floor(i / 9) * 10 + 1, width: 8, height: 8, rx: 1, class: "heatcell", "fill-opacity": (0.15 + 0.7 * v / max).toFixed(2) }, layers.heat);
    });
  }
}

// --- Super 1 al 5: a 10 x 8 board, numbered pieces moving square to square.

const S_FILES = "abcdefghij";
const sqName = (i) => S_FILES[i % 10] + (Math.floor(i / 10) + 1);
// The top-left corner of a cell (rank 8 at the top, file a on the left).
const sqX = (i) => (flipped ? 9 - (i % 10) : i % 10) * 10;
const sqY = (i) => (flipped ? Math.floor(i / 10) : 7 - Math.floor(i / 10)) * 10;
// The piece chosen to move (cell index), while its destinations are shown.
let selected = null;

function buildSuper15() {
  board.setAttribute("viewBox", "-7 -1 108 90");
  for (const name of ["bg", "heat", "marks", "pieces", "dests", "arrow", "labels", "hit"]) layers[name] = el("g", { class: name }, board);
  for (let i = 0; i < 80; i++) {
    const dark = (i % 10 + Math.floor(i / 10)) % 2 === 0;
    el("rect", { x: sqX(i), y: sqY(i), width: 10, height: 10, class: "sq " + (dark ? "dark" : "light"), id: "s" + i }, layers.bg);
    const h = el("rect", { x: sqX(i), y: sqY(i), width: 10, height: 10, class: "hit", "data-sq": sqName(i), "data-square": sqName(i), "data-i": i, role: "gridcell", "aria-label": sqName(i) }, layers.hit);
    h.addEventListener("click", () => clickSquare(i));
  }
  el("rect", { x: 0, y: 0, width: 100, height: 80, class: "frame" }, layers.bg);
  for (let f = 0; f < 10; f++) {
    const t = el("text", { x: (flipped ? 9 - f : f) * 10 + 5, y: 84.5, class: "label" }, layers.labels);
    t.textContent = S_FILES[f];
  }
  for (let r = 0; r < 8; r++) {
    const t = el("text", { x: -3.5, y: (flipped ? r : 7 - r) * 10 + 5, class: "label" }, layers.labels);
    t.textContent = String(r + 1);
  }
}

// The legal moves by the cell they leave: from -> [to, ...].
function movesByFrom(s) {
  const idx = (name) => S_FILES.indexOf(name[0]) + 10 * (parseInt(name.slice(1), 10) - 1);
  const by = new Map();
  for (const m of s.legal) {
    const from = idx(m.slice(0, 2)), to = idx(m.slice(2));
    if (!by.has(from)) by.set(from, []);
    by.get(from).push(to);
  }
  return by;
}

function star(cx, cy, r, parent) {
  let pts = "";
  for (let k = 0; k < 10; k++) {
    const a = -Math.PI / 2 + (k * Math.PI) / 5, rr = k % 2 === 0 ? r : r * 0.45;
    pts += `${(cx + rr * Math.cos(a)).toFixed(2)},${(cy + rr * Math.sin(a)).toFixed(2)} `;
  }
  return el("polygon", { points: pts.trim(), class: "star" }, parent);
}

function drawPiece(i, p) {
  const cx = sqX(i) + 5, cy = sqY(i) + 5;
  const g = el("g", { class: `piece ${p.owner}${p.super ? " super" : ""}`, "data-sq": sqName(i) }, layers.pieces);
  if (p.super) el("circle", { cx, cy, r: 4.6, class: "halo" }, g);
  el("circle", { cx, cy, r: 3.9, class: "disc" }, g);
  const n = el("text", { x: cx, y: cy + 0.2, class: "num" }, g);
  n.textContent = p.number;
  if (p.points > 0) {
    el("circle", { cx: cx + 3.3, cy: cy - 3.3, r: 1.9, class: "badge" }, g);
    const t = el("text", { x: cx + 3.3, y: cy - 3.2, class: "pts" }, g);
    t.textContent = p.points;
  }
  if (p.super) star(cx - 3.3, cy - 3.3, 2, g);
  const title = el("title", {}, g);
  title.textContent = `${sqName(i)}: ${p.owner}'s ${p.number}` + (p.points ? `, ${p.points} points` : "") + (p.super ? ", super" : "");
}

function drawSuper15(s) {
  for (const name of ["marks", "pieces", "dests", "heat"]) layers[name].replaceChildren();
  const central = new Set(s.central);
  for (let i = 0; i < 80; i++) $("s" + i).classList.toggle("central", central.has(i));
  for (const i of s.central) {
    const x = sqX(i), y = sqY(i);
    el("line", { x1: x + 2, y1: y + 2, x2: x + 8, y2: y + 8, class: "forbid" }, layers.marks);
    el("line", { x1: x + 8, y1: y + 2, x2: x + 2, y2: y + 8, class: "forbid" }, layers.marks);
  }
  if (s.last) for (const i of s.last) el("rect", { x: sqX(i), y: sqY(i), width: 10, height: 10, class: "lastsq" }, layers.marks);
  const live = currentLive(s);
  if ($("heat").checked && live && live.heat.length === 80) {
    const max = Math.max(...live.heat, 1);
    live.heat.forEach((v, i) => {
      if (v > 0) el("rect", { x: sqX(i) + 0.5, y: sqY(i) + 0.5, width: 9, height: 9, rx: 1, class: "heatcell", "fill-opacity": (0.15 + 0.7 * v / max).toFixed(2) }, layers.heat);
    });
  }
  const by = movesByFrom(s);
  if (selected !== null && !by.has(selected)) selected = null;
  if (selected !== null) {
    el("rect", { x: sqX(selected), y: sqY(selected), width: 10, height: 10, class: "selsq" }, layers.marks);
  }
  s.pieces.forEach((p, i) => { if (p) drawPiece(i, p); });
  const hits = layers.hit.children;
  for (let i = 0; i < 80; i++) {
    const p = s.pieces[i];
    const code = p ? (p.super ? p.owner.toUpperCase() : p.owner) + p.number : "";
    if (code) hits[i].dataset.piece = code;
    else delete hits[i].dataset.piece;
    hits[i].setAttribute("aria-label", p ? `${sqName(i)}, ${p.owner}'s ${p.number}${p.points ? `, ${p.points} points` : ""}${p.super ? ", super" : ""}` : `${sqName(i)}, empty`);
  }
  drawArrow(s);
  for (const h of layers.hit.children) h.classList.remove("target");
  if (selected !== null) {
    for (const to of by.get(selected)) {
      const cx = sqX(to) + 5, cy = sqY(to) + 5;
      if (s.pieces[to]) el("circle", { cx, cy, r: 4.5, class: "dest capture" }, layers.dests);
      else el("circle", { cx, cy, r: 1.6, class: "dest" }, layers.dests);
      layers.hit.children[to].classList.add("target");
    }
  }
}

function clickSquare(i) {
  if (!state || state.game !== "super15") return;
  if (state.outcome) return say("the game is over: start a new one (n) or take back (u)", true);
  const by = movesByFrom(state);
  if (selected !== null && selected !== i && (by.get(selected) || []).includes(i)) {
    const mv = sqName(selected) + sqName(i);
    selected = null;
    drawBoard(state);
    api({ cmd: "play", mv });
    return;
  }
  const p = state.pieces[i];
  if (p && p.owner === state.side && selected !== i) {
    selected = i;
    if (!by.has(i)) {
      selected = null;
      say(`the piece on ${sqName(i)} has no legal move`, true);
    }
  } else {
    selected = null; // a click elsewhere cancels
  }
  drawBoard(state);
}

function clickCell(i) {
  if (!state) return;
  if (state.outcome) return say("the game is over: start a new one (n) or take back (u)", true);
  if (!state.legal[i]) return api({ cmd: "play", mv: cellName(i) }); // the server says why
  api({ cmd: "play", mv: cellName(i) });
}

// --- Panels ----------------------------------------------------------------

function currentLive(s) {
  return s.live && s.live.fen === s.fen ? s.live : null;
}

const pct = (v) => Math.round(v / 10) + "%";

// The lines are updated in place (rows and buttons kept), so that a click
// on a move is not lost to an update between press and release.
function drawAnalysis(s) {
  const tbody = $("lines").tBodies[0];
  const live = s.analysis ? currentLive(s) : null;
  let q = null;
  if (live && live.lines.length) {
    q = s.side === "x" ? live.lines[0].q : 1 - live.lines[0].q;
    // A position solved before any search (a forced result found at
    // once) has no node count to show: say so instead of "0 nodes".
    const searched = live.nodes > 0
      ? `${live.nodes.toLocaleString()} nodes, ${(live.ms / 1000).toFixed(1)} s` : "solved without a search";
    $("ana-info").textContent = `${live.engine}: ${searched}; win / draw / loss for ${s.side}`;
    $("ana-depth").textContent = live.depth
      ? `depth ${live.depth}` + (live.seldepth ? `, seldepth ${live.seldepth}` : "") : "";
    $("ana-nps").textContent = live.ms > 0 && live.nodes > 0 ? `${Math.round(live.nodes * 1000 / live.ms).toLocaleString()} nodes/s` : "";
  } else {
    $("ana-depth").textContent = "";
    $("ana-nps").textContent = "";
    $("ana-info").textContent = s.analysis ? (s.outcome ? "the game is over" : s.seats[2].error ? "the analysis engine failed" : "thinking…") : "";
  }
  const lines = live ? live.lines : [];
  while (tbody.rows.length > lines.length) tbody.deleteRow(-1);
  lines.forEach((l, i) => {
    let tr = tbody.rows[i];
    if (!tr) {
      tr = tbody.insertRow();
      tr.className = "line";
      tr.insertCell().className = "res";
      tr.insertCell().className = "pv";
    }
    const [res, pv] = tr.cells;
    // A move the search never visited (the root was solved by another
    // one) has no win/draw/loss of its own: not 50 / 0 / 50.
    const text = l.proven ? l.proven : l.visits === 0 ? "not searched" : l.wdl ? `${pct(l.wdl[0])} / ${pct(l.wdl[1])} / ${pct(l.wdl[2])}` : (l.cp / 100).toFixed(2);
    if (res.textContent !== text) res.textContent = text;
    res.title = "win / draw / loss for " + s.side + (l.visits ? `, ${l.visits} visits` : "");
    const moves = l.pv.slice(0, 12);
    while (pv.children.length > moves.length) pv.lastChild.remove();
    moves.forEach((m, k) => {
      let a = pv.children[k];
      if (!a) {
        a = document.createElement("button");
        a.type = "button";
        a.className = "pvmove" + (k === 0 ? " first" : "");
        a.addEventListener("click", () => playLine(a.dataset.line.split(" ")));
        pv.appendChild(a);
      }
      if (a.textContent !== m) a.textContent = m;
      a.dataset.line = moves.slice(0, k + 1).join(" ");
      a.title = "play " + a.dataset.line;
    });
  });
  const heatNote = !$("heat").checked || !live ? ""
    : !live.heat.length ? `No heat map: ${live.engine} does not report how often it visits each move (Ultimo does).`
    : live.heat.every((v) => v === 0) ? "No heat map: the position was solved without visiting any move." : "";
  $("heat-note").textContent = heatNote;
  $("heat-note").hidden = !heatNote;
  // The bar: x's expected score, from the best line.
  if (s.outcome) q = s.outcome === "x" ? 1 : s.outcome === "o" ? 0 : 0.5;
  $("evalfill").style.height = q === null ? "50%" : (q * 100).toFixed(1) + "%";
  $("evaltext").textContent = q === null ? "" : Math.round(q * 100) + "%";
  $("evalbar").setAttribute("aria-valuenow", q === null ? 50 : Math.round(q * 100));
  $("evalbar").title = q === null ? "x's expected score (analysis off)" : `x's expected score: ${Math.round(q * 100)}%`;
  $("evalbar").classList.toggle("off", q === null);
}

async function playLine(moves) {
  for (const m of moves) if (!(await api({ cmd: "play", mv: m }))) break;
}

// The moves in x/o pairs under their numbers, each with its mark from the
// whole-game analysis.
function drawMoves(s) {
  const box = $("moves");
  box.replaceChildren();
  const judged = s.judged || [];
  const cell = (cls, text) => {
    const d = document.createElement("span");
    d.className = cls;
    d.textContent = text;
    box.appendChild(d);
    return d;
  };
  s.moves.forEach((m, k) => {
    const p = s.start_ply + k;
    if (p % 2 === 0 || k === 0) cell("num", `${Math.floor(p / 2) + 1}.`);
    if (k === 0 && p % 2 === 1) cell("mv empty", "…");
    const j = judged[k];
    const item = cell((p % 2 === 0 ? "mv mx" : "mv mo") + (k + 1 === s.cursor ? " current" : ""), m);
    item.setAttribute("role", "listitem");
    item.dataset.ply = k + 1;
    if (j && j.mark) {
      const mk = document.createElement("span");
      mk.className = "mark " + j.name;
      mk.textContent = j.mark;
      item.appendChild(mk);
      item.title = `${j.name}, loss ${j.loss.toFixed(2)}` + (j.best ? `, best ${j.best}` : "");
    }
    item.addEventListener("click", () => api({ cmd: "goto", ply: k + 1 }));
  });
  // Scroll the list only (not the page) to the current move, about the
  // middle, with a whole row at the top (none cut in half).
  const cur = box.querySelector(".current");
  if (cur && (cur.offsetTop < box.scrollTop || cur.offsetTop > box.scrollTop + box.clientHeight - cur.offsetHeight)) {
    const want = cur.offsetTop - box.clientHeight / 2;
    box.scrollTop = [...box.children].reduce((top, c) => (c.offsetTop <= want ? Math.max(top, c.offsetTop) : top), 0);
  }
  // The per-side summary, as `ultimo analyze --review` prints it.
  const sum = $("summary");
  sum.hidden = !s.summary;
  if (s.summary) {
    const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
    sum.replaceChildren(...["x", "o"].map((side, i) => {
      const v = s.summary[i];
      const d = document.createElement("div");
      d.className = "side-summary " + side;
      d.dataset.side = side;
      d.textContent = `${side}: ${plural(v.inaccuracies, "inaccuracy", "inaccuracies")}, ${plural(v.mistakes, "mistake", "mistakes")}, ${plural(v.blunders, "blunder", "blunders")}, average loss ${v.average_loss.toFixed(2)}`;
      return d;
    }));
  }
}

// "25. h7" or "25... g7": the move's number counts from a set-up start.
function moveLabel(s, k) {
  const p = s.start_ply + k;
  return `${Math.floor(p / 2) + 1}.${p % 2 ? ".." : ""} ${s.moves[k]}`;
}

function drawGraph(s) {
  const g = $("graph");
  g.replaceChildren();
  const pts = s.scan;
  g.classList.toggle("empty", !pts.some((p) => p !== null));
  if (!pts.length) return;
  const n = Math.max(pts.length - 1, 1);
  const X = (k) => (k / n) * 300, Y = (q) => 58 - q * 56;
  el("line", { x1: 0, y1: 30, x2: 300, y2: 30, class: "mid" }, g);
  let d = "";
  pts.forEach((q, k) => { if (q !== null) d += (d ? "L" : "M") + X(k).toFixed(1) + " " + Y(q).toFixed(1); });
  if (d) el("path", { d, class: "curve" }, g);
  el("line", { x1: X(s.cursor), y1: 0, x2: X(s.cursor), y2: 60, class: "cursor" }, g);
  // The marks are the server's: the command line's review judges them.
  (s.judged || []).forEach((j, k) => {
    if (!j || !j.mark || pts[k + 1] === null) return;
    const c = el("circle", { cx: X(k + 1), cy: Y(pts[k + 1]), r: 3, class: "mistake " + j.name, "data-ply": k + 1 }, g);
    const t = el("title", {}, c);
    t.textContent = `${moveLabel(s, k)}${j.mark}: ${j.name} (loss ${j.loss.toFixed(2)})` + (j.best ? `, best ${j.best}` : "");
  });
  for (let k = 0; k < pts.length; k++) {
    const r = el("rect", { x: X(k) - 150 / n, y: 0, width: 300 / n, height: 60, class: "hitcol" }, g);
    r.addEventListener("click", () => api({ cmd: "goto", ply: k }));
  }
}

function drawErrors(s) {
  const box = $("errors");
  box.replaceChildren();
  const names = ["x", "o", "analysis", "game analysis"];
  s.seats.forEach((seat, i) => {
    if (!seat.error) return;
    const p = document.createElement("p");
    p.className = "engine-error";
    p.textContent = `${names[i]}: ${seat.error} `;
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = "Restart";
    b.addEventListener("click", () => api({ cmd: "restart", seat: i }));
    p.appendChild(b);
    box.appendChild(p);
  });
}

// m:ss, with tenths under 10 s.
function fmtClock(ms) {
  ms = Math.max(0, ms);
  if (ms < 10000) return `0:0${(Math.floor(ms / 100) / 10).toFixed(1)}`;
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// The side whose clock runs: at the end of a clock game not over, unless
// engine play is paused.
function runningClock(s) {
  if (!s || s.limit.kind !== "clock" || s.result || s.cursor !== s.moves.length) return null;
  if (s.mode === "eve" && s.paused) return null;
  return s.side;
}
let stateAt = performance.now();
function drawClocks() {
  const s = state;
  if (!s) return;
  const run = runningClock(s);
  ["x", "o"].forEach((side, i) => {
    const c = $("clock-" + side);
    const ms = s.clocks[i] - (run === side ? performance.now() - stateAt : 0);
    c.textContent = `${side} ${fmtClock(ms)}`;
    c.classList.toggle("running", run === side);
    c.classList.toggle("low", ms < 10000);
  });
}
setInterval(drawClocks, 100);

function drawControls(s) {
  const ana = s.mode === "hvh" && s.analysis;
  if (document.activeElement !== $("game")) $("game").value = s.game;
  $("setup-moves").placeholder = s.game === "super15" ? "moves, e.g. e2e3 e7e6" : "moves, e.g. e5 e4 d2";
  if (document.activeElement !== $("mode")) $("mode").value = ana ? "ana" : s.mode;
  $("human").value = s.human;
  for (const sel of document.querySelectorAll("select.engines")) {
    if (sel.options.length !== s.engines.length) {
      sel.replaceChildren(...s.engines.map((n, i) => new Option(n, i)));
    }
  }
  $("x-engine").value = s.seats[0].engine;
  $("o-engine").value = s.seats[1].engine;
  // Ultimo's levels: Full, then Level 1-10 with each level's Elo.
  ["x", "o"].forEach((side, i) => {
    const sel = $(side + "-level");
    if (sel.options.length !== s.levels.length + 1) {
      sel.replaceChildren(new Option("Full strength", 0),
        ...s.levels.map((elo, k) => new Option(`Level ${k + 1} (Elo ${elo})`, k + 1)));
    }
    sel.value = s.seats[i].level;
    sel.hidden = s.seats[i].engine !== 0;
  });
  $("ana-engine").value = s.seats[2].engine;
  $("side-box").hidden = s.mode !== "hve";
  $("x-box").hidden = s.mode !== "eve" && !(s.mode === "hve" && s.human === "o");
  $("o-box").hidden = s.mode !== "eve" && !(s.mode === "hve" && s.human === "x");
  $("start").hidden = s.mode !== "eve";
  const over = !!s.result;
  $("start").disabled = over;
  $("start").textContent = over ? "Game over" : s.paused ? "Start" : "Pause";
  $("analysis").checked = s.analysis;
  $("multipv").value = s.multipv;
  const lim = s.limit;
  if (document.activeElement !== $("limit-value") && document.activeElement !== $("limit-kind")) {
    $("limit-kind").value = lim.kind;
    $("limit-value").value = lim.kind === "movetime" ? lim.ms / 1000 : lim.kind === "nodes" ? lim.nodes : `${lim.base_ms / 60000}+${lim.inc_ms / 1000}`;
  }
  $("clocks").hidden = lim.kind !== "clock";
  drawClocks();
  const playing = !s.result && s.mode !== "eve";
  $("resign").disabled = !playing;
  $("draw").disabled = !playing || !!s.draw_offer;
  const offered = s.mode === "hvh" && !!s.draw_offer && !s.result;
  $("accept-draw").hidden = $("decline-draw").hidden = !offered;
  $("end-row").hidden = s.mode === "eve";
  $("move-input").placeholder = s.game === "super15" ? "move, e.g. e2e3 + Enter" : "move, e.g. e5 + Enter";
  if (document.activeElement !== $("fen")) $("fen").value = s.fen;
  $("scan").disabled = s.scanning || !s.moves.length;
  $("scan").textContent = s.scanning ? "Analysing…" : "Analyse game";
}

function whoseTurn(s) {
  if (s.outcome || (s.result && s.cursor === s.moves.length)) return "over";
  if (s.cursor !== s.moves.length) return "review";
  const engine = s.mode === "eve" || (s.mode === "hve" && s.side !== s.human);
  return engine ? "engine" : "human";
}

function turnText(s) {
  const end = s.outcome || (s.cursor === s.moves.length ? s.result : null);
  if (end) return (end === "draw" ? "Game over: a draw" : `Game over: ${end} wins`) + (s.ending && !s.outcome ? ` (${s.ending})` : "");
  const mover = s.side;
  const atEnd = s.cursor === s.moves.length;
  // Plies, not moves: the move list numbers moves in x/o pairs.
  if (!atEnd) return `Ply ${s.cursor} of ${s.moves.length} (${mover} to move)`;
  const engine = s.mode === "eve" || (s.mode === "hve" && mover !== s.human);
  if (engine) {
    const seat = s.seats[mover === "x" ? 0 : 1];
    const name = s.players[mover === "x" ? 0 : 1];
    if (seat.error) return `${name} (${mover}) failed: restart it to go on`;
    return s.mode === "eve" && s.paused ? `${mover} to move: press Start` : `${name} (${mover}) is thinking…`;
  }
  return s.mode === "hve" ? `Your move (${mover})` : `${mover} to move`;
}

// --- Solve: the proof-number solver on the position shown -----------------

// The FEN the result shown is for; the result goes when the position changes.
let solvedFen = null;

// While a solve runs, the button stops it.
let solving = false;

async function solve() {
  if (solving) {
    fetch("/solve/stop", { method: "POST" }).catch(() => say("the server cannot be reached", true));
    return;
  }
  solving = true;
  const fen = state && state.fen;
  $("solve").textContent = "Stop solving";
  $("solve-info").textContent = "";
  try {
    const r = await fetch("/solve", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    const body = await r.json();
    if (body.error) say(body.error, true);
    else if (state && state.fen === fen) {
      solvedFen = fen;
      $("solve-info").textContent = body.pv.length ? `${body.text}: ${body.pv.join(" ")}` : body.text;
    }
  } catch (e) {
    say("the server cannot be reached", true);
  }
  solving = false;
  $("solve").textContent = "Solve";
}

function statusText(s) {
  return s.status ? `${turnText(s)} — ${s.status}` : turnText(s);
}

function render(s) {
  if (solvedFen !== null && s.fen !== solvedFen) {
    solvedFen = null;
    $("solve-info").textContent = "";
  }
  // An update sent before the last step was answered would move the cursor
  // back; keep the local one until every step has been answered.
  if (pendingSteps > 0 && state) s.cursor = state.cursor;
  // A piece chosen stays chosen only in the same position.
  if (state && state.fen !== s.fen) selected = null;
  state = s;
  stateAt = performance.now();
  if (s.moves.length > lastMoveCount && lastMoveCount >= 0) moveSound();
  lastMoveCount = s.moves.length;
  drawBoard(s);
  drawAnalysis(s);
  drawMoves(s);
  drawGraph(s);
  drawErrors(s);
  drawControls(s);
  document.body.dataset.turn = whoseTurn(s);
  document.body.dataset.game = s.game;
  const text = statusText(s);
  // An error (an illegal click, a refused command) stays until the game
  // itself moves on: updates that change nothing on the board (analysis,
  // an engine's late report) do not wipe it before it is read.
  const place = `${s.moves.length}:${s.cursor}:${s.mode}`;
  if (!$("status").classList.contains("error") || place !== lastPlace) say(text);
  lastPlace = place;
}
let lastPlace = "";
let lastMoveCount = -1;

// A short click at each new move, when the person turned sound on.
let audio = null;
function moveSound() {
  if (!$("sound").checked) return;
  try {
    audio = audio || new AudioContext();
    const o = audio.createOscillator(), g = audio.createGain();
    o.frequency.value = 660;
    g.gain.setValueAtTime(0.15, audio.currentTime);
    g.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.08);
    o.connect(g).connect(audio.destination);
    o.start();
    o.stop(audio.currentTime + 0.08);
    document.body.dataset.sounds = (+(document.body.dataset.sounds || 0) + 1).toString();
  } catch (e) { /* no audio here */ }
}

// The theme: the system's (prefers-color-scheme) unless chosen.
function applyTheme(t) {
  if (t === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = t;
}

// A link that opens this game: /?game=super15&fen=...&moves=e5+e4.
function shareLink(s) {
  const q = new URLSearchParams();
  if (s.game !== "uttt") q.set("game", s.game);
  if (s.set_up) q.set("fen", s.start_fen);
  if (s.moves.length) q.set("moves", s.moves.join(" "));
  const text = q.toString();
  return location.origin + "/" + (text ? "?" + text : "");
}

// /?fen=...&moves=...&game=super15 opens that position or game, once, on
// the analysis board (as lichess does): in whatever mode the page was, an
// engine to move there would otherwise play at once.
async function openSharedLink() {
  const q = new URLSearchParams(location.search);
  if (!q.has("fen") && !q.has("moves") && !q.has("game")) return;
  const game = q.get("game") || "uttt";
  let now;
  try {
    now = await (await fetch("/state")).json();
  } catch (e) {
    say("the server cannot be reached", true);
    return;
  }
  const seats = now.seats;
  api({ cmd: "mode", mode: "hvh", human: now.human, x: seats[0].engine, o: seats[1].engine,
    levels: [seats[0].level, seats[1].level], limit: now.limit });
  api({ cmd: "setup", game, fen: q.get("fen") || "", moves: (q.get("moves") || "").replace(/[+,]/g, " ") }).then((ok) => {
    if (!ok) return;
    history.replaceState(null, "", "/");
    api({ cmd: "analysis", on: true, multipv: now.multipv, engine: seats[2].engine });
  });
}

function typedMove() {
  const mv = $("move-input").value.trim().toLowerCase();
  if (!mv) return;
  api({ cmd: "play", mv }).then((ok) => { if (ok) $("move-input").value = ""; });
}

function flip() {
  flipped = !flipped;
  prefs.set("flipped", flipped ? "1" : "0");
  document.body.dataset.flipped = flipped;
  builtFor = null;
  if (state) drawBoard(state);
}

// --- Controls ----------------------------------------------------------------

// The thinking limit from the inputs, or null after saying what is wrong.
function limitFromInputs() {
  const kind = $("limit-kind").value;
  const v = $("limit-value").value.trim();
  const num = (t) => (/^\d+(\.\d+)?$/.test(t.trim()) ? parseFloat(t) : NaN);
  let limit;
  if (kind === "movetime") limit = { kind, ms: Math.round(num(v) * 1000) };
  else if (kind === "nodes") limit = { kind, nodes: /^\d+$/.test(v) ? parseInt(v, 10) : NaN };
  else {
    const [base, inc] = v.split("+");
    limit = { kind, base_ms: Math.round(num(base) * 60000), inc_ms: Math.round(num(inc || "0") * 1000) };
  }
  if (Object.values(limit).some((x) => typeof x === "number" && !Number.isFinite(x))) {
    const example = { movetime: "1 (seconds a move)", nodes: "10000 (nodes a move)", clock: "5+3 (minutes + seconds a move)" }[kind];
    say(`Think: '${v}' is not a number; e.g. ${example}`, true);
    return null;
  }
  return limit;
}

function sendMode() {
  const m = $("mode").value;
  const mode = m === "ana" ? "hvh" : m;
  const human = $("human").value;
  let x = +$("x-engine").value || 0, o = +$("o-engine").value || 0;
  // A level is Ultimo's (engine 0) only.
  const levels = [x === 0 ? +$("x-level").value || 0 : 0, o === 0 ? +$("o-level").value || 0 : 0];
  const limit = limitFromInputs();
  if (!limit) return;
  api({ cmd: "mode", mode, human, x, o, levels, limit }).then((ok) => {
    if (ok && m === "ana") api({ cmd: "analysis", on: true, multipv: +$("multipv").value, engine: +$("ana-engine").value || 0 });
  });
}

function sendAnalysis(on) {
  api({ cmd: "analysis", on, multipv: +$("multipv").value, engine: +$("ana-engine").value || 0 });
}

function goto(ply) {
  if (!state) return;
  // Counted here too, so that quick key presses add up before the server answers.
  state.cursor = Math.max(0, Math.min(state.moves.length, ply));
  pendingSteps += 1;
  api({ cmd: "goto", ply: state.cursor }).finally(() => {
    pendingSteps -= 1;
  });
}

// ultimo-YYYYMMDD-HHMMSS.pgn, in local time.
function saveName(d) {
  const two = (n) => String(n).padStart(2, "0");
  return `ultimo-${d.getFullYear()}${two(d.getMonth() + 1)}${two(d.getDate())}-` +
    `${two(d.getHours())}${two(d.getMinutes())}${two(d.getSeconds())}.pgn`;
}

function wire() {
  flipped = prefs.get("flipped", "0") === "1";
  document.body.dataset.flipped = flipped;
  $("sound").checked = prefs.get("sound", "0") === "1";
  $("sound").addEventListener("change", (e) => prefs.set("sound", e.target.checked ? "1" : "0"));
  $("theme").value = prefs.get("theme", "auto");
  applyTheme($("theme").value);
  $("theme").addEventListener("change", (e) => { prefs.set("theme", e.target.value); applyTheme(e.target.value); });
  $("flip").addEventListener("click", flip);
  $("move-input").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); typedMove(); } });
  $("resign").addEventListener("click", () => api({ cmd: "resign" }));
  $("draw").addEventListener("click", () => api({ cmd: "draw" }));
  $("accept-draw").addEventListener("click", () => api({ cmd: "draw", accept: true }));
  $("decline-draw").addEventListener("click", () => api({ cmd: "draw", accept: false }));
  $("share").addEventListener("click", async () => {
    const link = shareLink(state);
    $("share").dataset.link = link;
    try { await navigator.clipboard.writeText(link); say("link copied: " + link); }
    catch (e) { say("the link (copy it): " + link); }
  });
  $("game").addEventListener("change", (e) => api({ cmd: "new", game: e.target.value }));
  for (const id of ["mode", "human", "x-engine", "o-engine", "x-level", "o-level", "limit-kind"]) $(id).addEventListener("change", sendMode);
  $("limit-value").addEventListener("change", sendMode);
  $("start").addEventListener("click", () => api({ cmd: "pause", paused: !state.paused }));
  $("analysis").addEventListener("change", (e) => sendAnalysis(e.target.checked));
  $("multipv").addEventListener("change", () => sendAnalysis(true));
  $("ana-engine").addEventListener("change", () => sendAnalysis(true));
  // The board and the analysis panel (the heat map's note) at once.
  $("heat").addEventListener("change", () => { if (state) { drawBoard(state); drawAnalysis(state); } });
  $("first").addEventListener("click", () => goto(0));
  $("prev").addEventListener("click", () => state && goto(state.cursor - 1));
  $("next").addEventListener("click", () => state && goto(state.cursor + 1));
  $("last").addEventListener("click", () => state && goto(state.moves.length));
  $("undo").addEventListener("click", () => api({ cmd: "undo" }));
  $("new").addEventListener("click", () => api({ cmd: "new" }));
  $("scan").addEventListener("click", () => api({ cmd: "scan" }));
  $("solve").addEventListener("click", solve);
  $("setup").addEventListener("click", () => api({ cmd: "setup", fen: $("setup-fen").value, moves: $("setup-moves").value }));
  $("copy").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(state.fen); say("FEN copied"); }
    catch (e) { $("fen").select(); say("select and copy the FEN (the browser refused)"); }
  });
  // The server writes the PGN (state.record); the page only names the file.
  $("save").addEventListener("click", () => {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([state.record], { type: "application/x-chess-pgn" }));
    a.download = saveName(new Date());
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  });
  // A file or pasted text: PGN (its first game), a FEN or moves; the
  // server reads it, and says on the status line why it cannot.
  $("load").addEventListener("change", async (e) => {
    const f = e.target.files[0];
    if (f) api({ cmd: "load", text: await f.text(), name: f.name });
    e.target.value = "";
  });
  $("load-paste").addEventListener("click", () => api({ cmd: "load", text: $("load-text").value }));
  document.addEventListener("keydown", (e) => {
    if (!state || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target.tagName;
    if (t === "INPUT" || t === "SELECT" || t === "TEXTAREA") return;
    const keys = {
      ArrowLeft: () => goto(state.cursor - 1),
      ArrowRight: () => goto(state.cursor + 1),
      ArrowUp: () => goto(0),
      Home: () => goto(0),
      ArrowDown: () => goto(state.moves.length),
      End: () => goto(state.moves.length),
      n: () => api({ cmd: "new" }),
      u: () => api({ cmd: "undo" }),
      f: () => sendAnalysis(!state.analysis),
      r: flip,
      Escape: () => { if (selected !== null) { selected = null; drawBoard(state); } },
    };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
}

// The event stream. A page left (a reload, a link followed) closes its
// stream at once: the browser may keep a left page alive (its
// back-forward cache), and each stream it keeps open holds one of the few
// connections a browser opens to one server (six), so that after a few
// pages the next page's commands waited for a free one, and a click on
// the board seemed lost (issue 36, R5). A page shown again from that cache
// opens a new stream.
let events = null;
function connect() {
  events = new EventSource("/events");
  events.addEventListener("state", (e) => render(JSON.parse(e.data)));
  events.onerror = () => say("connection lost; retrying…", true);
}
window.addEventListener("pagehide", () => { if (events) events.close(); events = null; });
window.addEventListener("pageshow", (e) => { if (e.persisted && !events) connect(); });

wire();
connect();
openSharedLink();
