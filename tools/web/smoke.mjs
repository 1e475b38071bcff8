// Plays games through the web page of `tavla serve` without a browser: the page's script runs
// in Node against a small stand-in for the DOM, its requests go to a live server, and the
// script clicks what a person would (New game, Roll, Hint, Take, Next game, and each play made
// on the board checker by checker, point then point) until the games end; after the first, it
// has the game analysed, looks at an error in the analysis panel and asks for the best plays,
// the evaluation, the temperature map and a short rollout there, then pastes the game's record into "Analyse a
// record". The money games are played with the tutor; the decisions it holds back are made
// anyway. Any exception in the page's code, an error shown on
// the page, or a game that does not end fails the run.
//
//   tavla serve --listen 127.0.0.1:8080 &
//   node tools/web/smoke.mjs http://127.0.0.1:8080 [GAMES]
//
// Node 18 or later (for fetch). Prints one line per game and exits non-zero on a failure.
// With SMOKE_SVG=FILE set, the board as drawn after the first game's first move is written to
// FILE as SVG, to look at.

const base = process.argv[2] || "http://127.0.0.1:8080";
const games = Number(process.argv[3] || 3);

class Node {
  constructor(tag) {
    this.tagName = tag;
    this.children = [];
    this.attrs = {};
    this.listeners = {};
    this.text = "";
    this.hidden = false;
    this.value = "";
    this.className = "";
    this.style = {};
    this.title = "";
    this.scrollTop = 0;
    this.scrollHeight = 0;
  }
  appendChild(c) { this.children.push(c); return c; }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  addEventListener(t, f) { (this.listeners[t] ||= []).push(f); }
  set innerHTML(v) { this.children = []; this.text = ""; }
  get innerHTML() { return ""; }
  set textContent(v) { this.children = []; this.text = String(v); }
  get textContent() { return this.text + this.children.map((c) => c.textContent).join(""); }
  click() { globalThis.clicked = this; }
  fire(type, ev = {}) {
    for (const f of this.listeners[type] || []) f({ preventDefault() {}, target: this, ...ev });
  }
  svg() {
    if (this.tagName === "#text") return this.text.replace(/&/g, "&amp;").replace(/</g, "&lt;");
    const attrs = Object.entries(this.attrs).map(([k, v]) => ` ${k}="${v}"`).join("");
    const inner = this.text.replace(/&/g, "&amp;").replace(/</g, "&lt;") + this.children.map((c) => c.svg()).join("");
    const ns = this.tagName === "svg" ? ' xmlns="http://www.w3.org/2000/svg"' : "";
    return `<${this.tagName}${ns}${attrs}>${inner}</${this.tagName}>`;
  }
  all(pred, out = []) {
    if (pred(this)) out.push(this);
    for (const c of this.children) c.all(pred, out);
    return out;
  }
}

const byId = {};
byId.board = Object.assign(new Node("svg"), { attrs: { viewBox: "0 0 760 460", width: "760", height: "460" } });
const newForm = Object.assign(new Node("form"), {
  ply: { value: "0" }, cube: { checked: true }, beavers: { checked: true }, jacoby: { checked: true }, match_length: { value: "0" },
  side: { value: "x" }, seed: { value: "" }, tutor: { checked: false }, tutor_warn: { value: "0.04" },
});
byId.new = newForm;
globalThis.document = {
  getElementById(id) { return (byId[id] ||= new Node("div")); },
  createElement(tag) { return new Node(tag); },
  createElementNS(ns, tag) { return new Node(tag); },
  createTextNode(t) { const n = new Node("#text"); n.text = String(t); return n; },
};
const store = {};
globalThis.localStorage = { getItem: (k) => store[k] ?? null, setItem: (k, v) => { store[k] = v; } };
globalThis.window = { open() {} };
let inFlight = 0;
const realFetch = globalThis.fetch;
globalThis.fetch = async (path, options) => {
  inFlight++;
  try { return await realFetch(base + path, options); } finally { inFlight--; }
};

async function settle() {
  do { await new Promise((r) => setTimeout(r, 5)); } while (inFlight > 0);
  await new Promise((r) => setTimeout(r, 5));
}

const res = await realFetch(base + "/");
const html = await res.text();
const script = html.match(/<script>([\s\S]*)<\/script>/)[1];
(0, eval)(script);

const buttons = (id) => document.getElementById(id).all((n) => n.tagName === "button");
const button = (id, text) => buttons(id).find((b) => b.textContent === text);
const error = () => document.getElementById("error").textContent;
const status = () => document.getElementById("status").textContent;

let failures = 0;
let sent = 0, listed = 0, swapped = 0, warned = 0;
// Where the tutor held an action back, makes it anyway; whether it did.
async function anyway() {
  const b = button("warning", "Play it anyway") || button("warning", "Do it anyway");
  if (!b) return false;
  if (!/^The tutor: .+ loses \d\.\d{3} /.test(document.getElementById("warning").textContent)) {
    throw new Error(`the tutor's warning reads: ${document.getElementById("warning").textContent}`);
  }
  warned++;
  b.fire("click");
  await settle();
  return true;
}
// Clicks the board's point p (25 the bar, 0 the tray).
function clickBoard(p) {
  const target = document.getElementById("board").all((n) => n.tagName === "rect" && n.attrs["data-point"] === String(p))[0];
  if (!target) throw new Error(`no clickable point ${p}`);
  target.fire("click");
}
// Drags a checker from the board's point `from` to `to`: pressed at the middle of `from`'s
// area, carried, let go at the middle of `to`'s.
function dragBoard(from, to) {
  const rect = (p) => document.getElementById("board").all((n) => n.tagName === "rect" && n.attrs["data-point"] === String(p))[0];
  const middle = (r) => ({ clientX: Number(r.attrs.x) + Number(r.attrs.width) / 2, clientY: Number(r.attrs.y) + Number(r.attrs.height) / 2 });
  const a = rect(from), b = rect(to);
  if (!a || !b) throw new Error(`no point ${a ? to : from} to drag ${a ? "to" : "from"}`);
  a.fire("pointerdown", { pointerId: 1, ...middle(a) });
  const board = document.getElementById("board");
  board.fire("pointermove", { pointerId: 1, ...middle(b) });
  board.fire("pointermove", { pointerId: 1, ...middle(b) });
  board.fire("pointerup", { pointerId: 1, ...middle(b) });
}
let dragged = 0, droppedBack = false;
let dumped = false;
for (let g = 1; g <= games; g++) {
  newForm.seed.value = String(1000 + g);
  newForm.match_length.value = g % 2 ? "0" : "3";
  // The tutor in the money games, holding back doubtful decisions.
  newForm.tutor.checked = g % 2 === 1;
  newForm.fire("submit");
  await settle();
  let actions = 0, hinted = false;
  for (; actions < 3000; actions++) {
    if (error()) throw new Error(`game ${g}: the page shows an error: ${error()} (${status()})`);
    if (await anyway()) continue;
    if (button("actions", "Next game")) { button("actions", "Next game").fire("click"); await settle(); continue; }
    const text = status();
    if (button("actions", "Analyse the game") && !button("actions", "Next game")) break;
    if (!hinted && button("actions", "Hint")) {
      button("actions", "Hint").fire("click");
      await settle();
      hinted = document.getElementById("hint").textContent.length > 0 || document.getElementById("hint").children.length > 0;
      if (!hinted) throw new Error(`game ${g}: the hint shows nothing`);
      if (error()) throw new Error(`game ${g}: hint: ${error()}`);
    }
    for (const word of ["Roll", "Take", "Reject"]) {
      if (button("actions", word)) { button("actions", word).fire("click"); break; }
    }
    if (!button("actions", "Roll") && !button("actions", "Take") && !button("actions", "Reject")) {
      const plays = buttons("plays");
      if (plays.length === 0) throw new Error(`game ${g}: no action and no play: ${text}`);
      // Make a play by moving its checkers on the board, point by point, one checker's two
      // moves in the other order from the server's when it has them: the page sends the play
      // once it is whole (or lists it among the plays still possible, hits told apart).
      const id = document.getElementById("ids").textContent.match(/^Game (\d+)/)[1];
      const v = await (await realFetch(`${base}/v1/games/${id}`)).json();
      const choice = v.plays[(actions * 7919) % v.plays.length];
      let moves = choice.moves;
      if (moves.length === 2 && moves[0][1] === moves[1][0] && moves[1][1] !== 0) {
        // The other order, where both ways are free of the engine's checkers (the same play).
        const [s0, m] = moves[0], d = moves[1][1], other = s0 - (m - d);
        const free = (p) => p >= 1 && p <= 24 && v.board.points[p] >= 0;
        if (other !== m && free(other) && free(m)) {
          moves = [[s0, other], [other, d]];
          swapped++;
        }
      }
      const before = JSON.stringify(v.log);
      // Every third play dragged checker by checker, the others clicked.
      const drags = actions % 3 === 0;
      const blocked = v.board.points.findIndex((n, p) => p >= 1 && n <= -2);
      if (drags && !droppedBack && blocked > 0 && moves[0][0] !== 25) {
        // Once: a checker let go on a point the engine holds goes back, with the reason.
        dragBoard(moves[0][0], blocked);
        if (!/cannot go to/.test(error())) throw new Error(`game ${g}: a checker dropped on ${blocked}: ${error() || "no error shown"}`);
        droppedBack = true;
      }
      for (const [from, to] of moves) {
        if (drags) {
          dragBoard(from, to);
          dragged++;
          if (error()) throw new Error(`game ${g}: dragging from ${from} to ${to} for ${choice.play}: ${error()}`);
        } else {
          clickBoard(from);
          if (error()) throw new Error(`game ${g}: picking up at ${from} for ${choice.play}: ${error()}`);
          clickBoard(to);
          if (error()) throw new Error(`game ${g}: putting down at ${to} for ${choice.play}: ${error()}`);
        }
        await settle();
      }
      const after = await (await realFetch(`${base}/v1/games/${id}`)).json();
      if (await anyway()) {
        sent++;
      } else if (JSON.stringify(after.log) === before) {
        // Not sent: the play is among those still possible; click it.
        const b = buttons("plays").find((x) => x.textContent === choice.play);
        if (!b) throw new Error(`game ${g}: ${choice.play} made on the board is neither sent nor listed`);
        listed++;
        b.fire("click");
        await settle();
        await anyway();
      } else {
        sent++;
      }
      if (g === 1 && process.env.SMOKE_SVG && !dumped) {
        await settle();
        (await import("node:fs")).writeFileSync(process.env.SMOKE_SVG, document.getElementById("board").svg());
        dumped = true;
      }
    }
    await settle();
  }
  if (actions >= 3000) { failures++; console.log(`game ${g}: did not end`); continue; }
  const tutor = document.getElementById("tutorsum").textContent;
  if (newForm.tutor.checked && !tutor.startsWith("The tutor (0-ply): ")) throw new Error(`game ${g}: no tutor's summary: ${tutor}`);
  console.log(`game ${g}: ${actions} actions, ${status()}${tutor ? " " + tutor : ""}`);
  if (g === 1) await analysis();
}

async function until(what, done) {
  for (let i = 0; i < 2000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  await settle();
  if (!done()) throw new Error(`${what}: not done`);
}

// The game's analysis, one of its errors looked at, and the analysis panel's three requests.
async function analysis() {
  const reviewBox = document.getElementById("review");
  button("actions", "Analyse the game").fire("click");
  await until("the game's analysis", () => reviewBox.all((n) => n.tagName === "table").length > 0);
  if (error()) throw new Error(`analysis: ${error()}`);
  const rows = reviewBox.all((n) => n.tagName === "tr").length;
  const look = reviewBox.all((n) => n.tagName === "button" && n.textContent === "look")[0];
  const aerror = () => document.getElementById("aerror").textContent;
  const out = document.getElementById("aout");
  if (look) {
    look.fire("click");
    await settle();
  } else {
    document.getElementById("apos").value = "4HPwATDgc/ABMA";
    document.getElementById("adice").value = "31";
    document.getElementById("aform").fire("submit");
    await settle();
  }
  if (aerror()) throw new Error(`analyse: ${aerror()}`);
  if (document.getElementById("analysepanel").hidden) throw new Error("the analysis panel is hidden");
  document.getElementById("aply").value = "1";
  document.getElementById("ahint").fire("click");
  await until("best plays", () => out.all((n) => n.tagName === "tr").length > 1);
  const plays = out.all((n) => n.tagName === "tr").length - 1;
  document.getElementById("aeval").fire("click");
  await until("evaluation", () => /cubeless equity/.test(out.textContent));
  document.getElementById("amap").fire("click");
  await until("temperature map", () => /spread/.test(out.textContent));
  document.getElementById("adiagram").fire("click");
  await settle();
  if (aerror() || !globalThis.clicked || globalThis.clicked.download !== "position.svg" || !/^blob:/.test(globalThis.clicked.href)) {
    throw new Error(`the diagram: ${aerror()}`);
  }
  const cells = out.all((n) => n.className === "mapcell");
  if (cells.length !== 36 || cells.some((c) => !/^[+-]\d\.\d{3}$/.test(c.textContent) || !c.title || !c.style.background)) {
    throw new Error(`the temperature map: ${cells.length} cells, ${out.textContent}`);
  }
  document.getElementById("agames").value = "72";
  document.getElementById("aroll").fire("click");
  await until("rollout", () => /: done,/.test(out.textContent));
  // With the cube (and the Jacoby rule), the position alone: both lines.
  document.getElementById("adice").value = "";
  document.getElementById("apos").value = "4HPwATDgc/ABMA";
  document.getElementById("aform").fire("submit");
  await settle();
  document.getElementById("acube").checked = true;
  document.getElementById("ajacoby").checked = true;
  document.getElementById("agames").value = "36";
  document.getElementById("aroll").fire("click");
  await until("cubeful rollout", () => /: done,/.test(out.textContent) && /proper action/.test(out.textContent));
  document.getElementById("acube").checked = false;
  document.getElementById("ajacoby").checked = false;
  if (aerror()) throw new Error(`rollout: ${aerror()}`);
  // The game's record pasted into "Analyse a record", at 0-ply, with its rules.
  const id = document.getElementById("ids").textContent.match(/^Game (\d+)/)[1];
  document.getElementById("rtext").value = await (await realFetch(`${base}/v1/games/${id}/record`)).text();
  document.getElementById("rply").value = "0";
  document.getElementById("rcube").checked = true;
  document.getElementById("rjacoby").checked = newForm.jacoby.checked;
  const rout = document.getElementById("rout");
  document.getElementById("rform").fire("submit");
  await until("the record's analysis", () => rout.all((n) => n.tagName === "table").length > 0 || aerror());
  if (aerror()) throw new Error(`the record's analysis: ${aerror()}`);
  const recordRows = rout.all((n) => n.tagName === "tr").length;
  console.log(`analysis: ${rows - 1} rows of the game's analysis, ${plays} best plays, then the evaluation, the temperature map (36 cells), the diagram saved and ` +
    `a rollout (${out.textContent.split("\n")[0].slice(0, 60)}…); the record pasted and analysed: ${recordRows - 1} rows`);
  // "Play from here": a bearoff with the cube at 2 and the dice, played out against the engine
  // (first listed play each time), recorded as SGF and analysed as any game.
  const from = "XGID=-BBBBAA--------------bbbb-:1:1:1:65:0:0:0:0:10";
  document.getElementById("apos").value = from;
  document.getElementById("adice").value = "";
  document.getElementById("aform").fire("submit");
  await settle();
  document.getElementById("aplay").fire("click");
  await settle();
  if (aerror() || error()) throw new Error(`play from here: ${aerror() || error()}`);
  if (document.getElementById("playpanel").hidden) throw new Error("play from here: no game shown");
  const ids = document.getElementById("ids").textContent;
  if (!ids.includes("record (.sgf)")) throw new Error(`play from here: the record is not SGF: ${ids}`);
  if (!document.getElementById("log").textContent.includes(`From ${from}: you are on roll.`)) {
    throw new Error(`play from here: the log does not start from the position: ${document.getElementById("log").textContent}`);
  }
  let steps = 0;
  for (; steps < 200 && !button("actions", "Analyse the game"); steps++) {
    if (error()) throw new Error(`play from here: ${error()} (${status()})`);
    if (await anyway()) continue;
    const word = ["Roll", "Take", "Reject"].find((w) => button("actions", w));
    if (word) { button("actions", word).fire("click"); await settle(); continue; }
    const listed = buttons("plays");
    if (!listed.length) throw new Error(`play from here: no action and no play: ${status()}`);
    listed[0].fire("click");
    await settle();
  }
  if (steps >= 200) throw new Error(`play from here: the game did not end: ${status()}`);
  const final = status();
  button("actions", "Analyse the game").fire("click");
  await until("the analysis of the game from a position", () => reviewBox.all((n) => n.tagName === "table").length > 0 || error());
  if (error()) throw new Error(`play from here: analysis: ${error()}`);
  console.log(`play from here: ${steps} actions, ${final}; its SGF record analysed`);
  document.getElementById("modeplay").fire("click");
}
console.log(`plays made on the board: ${sent} sent when whole, ${listed} chosen from the list (hits told apart); ${swapped} with one checker's moves in the other order; ${dragged} checker moves dragged${droppedBack ? " (and one dropped where it could not go, which went back)" : ""}; ${warned} decisions the tutor held back, made anyway`);
if (failures) process.exit(1);
