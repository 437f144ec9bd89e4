"use strict";
// Every word the page shows, in one table, built from the messages the hall put in the
// page in the reader's language (l10n/locales/*/console.ftl; alerts, faults and results
// from alerts.ftl and clock.ftl). `{ $name }` is filled in by `say`. A message's id is
// kebab-case, as every id of the messages (`console-th-table`, `console-og--RESULT_EQUAL`);
// its key in `T` is the same words in camelCase (`T.thTable`, `T.og.RESULT_EQUAL`).
const T = (() => {
  const T = {codes: {}, checks: {}, faults: {}};
  const camel = (kebab) => kebab.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
  for (const [id, s] of Object.entries(L10N)) {
    if (id.startsWith("console-")) {
      const [kebab, k2] = id.slice("console-".length).split("--");
      const k = camel(kebab);
      if (k2 === undefined) { T[k] = s; continue; }
      T[k] = T[k] || {};
      // The Round view's states are words with spaces ("no board", "in file").
      T[k][k === "tableStates" || k === "resultStates" ? k2.replace(/_/g, " ") : k2] = s;
    } else if (/^alert-[a-z_]+-check$/.test(id)) {
      T.checks[id.slice("alert-".length, -"-check".length)] = s;
    } else if (/^alert-[a-z_]+$/.test(id) && id !== "alert-article") {
      T.codes[id.slice("alert-".length)] = s;
    } else if (id.startsWith("fault-")) {
      T.faults[id.slice("fault-".length)] = s;
    }
  }
  // OpenGotha's results in the order the file format lists them.
  const og = T.og || {};
  T.og = {};
  for (const k of ["RESULT_BLACKWINS", "RESULT_WHITEWINS", "RESULT_EQUAL", "RESULT_BOTHWIN", "RESULT_BOTHLOSE",
    "RESULT_BLACKWINS_BYDEF", "RESULT_WHITEWINS_BYDEF", "RESULT_EQUAL_BYDEF", "RESULT_BOTHWIN_BYDEF",
    "RESULT_BOTHLOSE_BYDEF", "RESULT_UNKNOWN"]) if (og[k] !== undefined) T.og[k] = og[k];
  return T;
})();

const $ = (id) => document.getElementById(id);
function say(key, vars) {
  const s = typeof key === "string" && T[key] !== undefined ? T[key] : key;
  return String(s).replace(/\{ *\$?(\w+) *\}/g, (m, k) => (vars && vars[k] != null ? vars[k] : m));
}
function el(tag, cls, t) { const e = document.createElement(tag); if (cls) e.className = cls; if (t != null) e.textContent = t; return e; }
function setText(e, t) { if (e.textContent !== t) e.textContent = t; }
for (const e of document.querySelectorAll("[data-t]")) e.textContent = T[e.dataset.t];
document.title = T.docTitle;
$("askCancel").textContent = T.cancel;
for (const o of $("penalties").options) o.textContent = (T.pen || {})[o.value || "board"] || o.value;

// ---- Words for the things the hall sends.
const keyOf = (t, b) => t + "/" + b;
const sideName = (c) => (c === "B" ? T.black : T.white);
const other = (c) => (c === "B" ? "W" : "B");
const pad = (n) => String(n).padStart(2, "0");
function place(x) { return x.table ? say("tableN", {table: x.table}) : say("boardN", {board: x.board}); }
function placeLower(x) { return x.table ? say("tableLower", {table: x.table}) : say("boardLower", {board: x.board}); }
/** "Table 4, Kim – Lee": where a confirmation acts. */
function where(x) {
  if (!x.black && !x.white) return place(x);
  return say("where", {place: place(x), black: x.black || T.unknownPlayer, white: x.white || T.unknownPlayer});
}
function clockText(ms) {
  const s = Math.floor(ms / 1000), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
  return h ? h + ":" + pad(m) + ":" + pad(s % 60) : m + ":" + pad(s % 60);
}
function agoText(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? say("agoS", {n: s}) : s < 3600 ? say("agoMin", {n: Math.floor(s / 60)}) : say("agoH", {n: Math.floor(s / 3600)});
}
function wallTime(agoMs) { const d = new Date(Date.now() - (agoMs || 0)); return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()); }
const RESULT = /^(0|Void|\?|Draw|[BW]\+(R|T|F|Resign|Time|Forfeit|\d+(\.\d+)?)?)$/;
// resultWords, articleWords, rankWords, alertCheck: the sentences of the page's messages
// (l10n/src/words.js, with the messages).
/** A round's result as the tournament file has it (RESULT_BLACKWINS), in words. */
const resultLabel = (t) => T.og[t.result] || t.result_label;
/** A player and rank: "Kim 3段". */
const withRank = (name, rank) => name + (rank ? " " + rankWords(rank) : "");
const codeWords = (c) => T.codes[c] || String(c).replace(/_/g, " ");
/** The alerts whose confirmation gives a warning: the referee's `is_penalised`. */
const WARNED = new Set(["uncaptured_stones", "wrong_capture", "takeback", "double_move", "ko", "clock_before_move"]);
function timeKind(tc) { return String(tc || "").trim().split(/\s+/)[0].toLowerCase(); }
function durWords(d) {
  const m = /^(\d+)(ms|s|m|h)$/.exec(d || "");
  return m ? say({ms: "durMs", s: "durS", m: "durMin", h: "durH"}[m[2]], {n: m[1]}) : (d || "");
}
/** A time control (the script form, `byoyomi 60m 5x30s`) in words. */
function timeWords(tc) {
  const w = String(tc || "").trim().split(/\s+/), kind = (w[0] || "").toLowerCase();
  if (kind === "none") return T.tcNone;
  if (kind === "absolute") return say("tcAbsolute", {main: durWords(w[1])});
  if (kind === "byoyomi") { const [n, p] = (w[2] || "").split(/x/i); return say("tcByoyomi", {main: durWords(w[1]), n, p: durWords(p)}); }
  if (kind === "canadian") { const [n, p] = (w[2] || "").split("/"); return say("tcCanadian", {main: durWords(w[1]), n, p: durWords(p)}); }
  if (kind === "fischer") return say("tcFischer", {main: durWords(w[1]), inc: durWords((w[2] || "").replace(/^\+/, ""))});
  return tc || "";
}

// ---- Talking to the hall.
let noticeTimer = null;
/** Says what was just done (or refused) for 15 s (30 s for a refusal); a tap closes it. */
function notice(text, error) {
  const s = $("said"); s.textContent = text; s.classList.toggle("error", !!error);
  clearTimeout(noticeTimer); noticeTimer = setTimeout(() => { s.textContent = ""; }, error ? 30000 : 15000);
}
$("said").onclick = () => { $("said").textContent = ""; };
/** A side's letter in the values of a message ("B" -> "Black"). */
function withSides(args) {
  const v = Object.assign({}, args || {});
  for (const k of ["color", "side"]) if (v[k] === "B" || v[k] === "W") v[k] = sideName(v[k]);
  return v;
}
/** Why the hall refused a request, in words: its message when the console has one. */
function errorWords(j, status) {
  const words = j && j.error_id && (T.err || {})[j.error_id];
  return words ? say(words, withSides(j.args)) : (j && j.error) || ("HTTP " + status);
}
/** Why a board refused a command (an entry of the commands' list), in words. */
function refusalWords(c) {
  const words = c && c.reason && (T.refusal || {})[c.reason.code];
  return words ? say(words, withSides(c.reason.args)) : (c && c.error) || "";
}
/** Why a table was left out (`why_id`, `why_args`, or the hall's English `why`). */
function whyWords(s) {
  const words = s && s.why_id && (T.why || {})[s.why_id];
  return words ? say(words, withSides(s.why_args)) : (s && s.why) || "";
}
/** POSTs `body`; the response and its JSON (null when it could not be sent). */
async function postRaw(url, body) {
  let r;
  try {
    r = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  } catch (e) { notice(say("refused", {why: String(e)}), true); return null; }
  if (r.status === 401) { location.reload(); return null; }
  return {r, j: await r.json().catch(() => ({}))};
}
async function post(url, body) {
  const a = await postRaw(url, body);
  if (!a) return null;
  if (!a.r.ok) { notice(say("refused", {why: errorWords(a.j, a.r.status)}), true); return null; }
  return a.j;
}
/** Sends a command to a board and says what became of it: sending, then done, or refused
 * with the board's reason (never "sent" for a refused one). Returns the answer when the board
 * carried it out, else null. */
async function command(x, body) {
  const what = commandWords({tournament: x.tournament, board: x.board, command: body}), place = placeLower(x);
  const j = await post("/api/console/command", Object.assign({tournament: x.tournament, board: x.board}, body));
  refresh();
  if (!j) return null;
  notice(say("sending", {what, place}));
  const done = await answered(j.id);
  refresh(); refreshBoards();
  if (!done) { notice(say("noAnswer", {what, place}), true); return null; }
  if (done.status === "refused") { notice(say("refusedCmd", {what, place, why: refusalWords(done)}), true); return null; }
  notice(say("done", {what, place}));
  return j;
}
/** Waits until the board answered command `id`; its entry in the command list. */
async function answered(id) {
  for (let i = 0; i < 60; i++) {
    const r = await fetch("/api/console/commands");
    if (r.ok) { const c = (await r.json()).find((e) => e.id === id); if (c && c.status !== "pending") return c; }
    await new Promise((ok) => setTimeout(ok, 250));
  }
  return null;
}

// ---- The confirmation: nothing that ends or changes a game goes in one tap.
const dlg = $("ask");
/** Shows the dialog; true when the arbiter chose OK (after `check`, which returns an error or "").
 * Settled by the buttons themselves (a hidden tab may deliver the dialog's `close` event late);
 * Escape, and Enter in a field, are Cancel. */
function ask(o) {
  if (dlg.open) return Promise.resolve(false);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (yes) => {
      if (settled) return;
      settled = true;
      if (dlg.open) dlg.close(yes ? "ok" : "cancel");
      resolve(yes);
      renderAlerts();
    };
    $("askTitle").textContent = o.title; $("askText").textContent = o.text;
    $("askFields").replaceChildren(...(o.fields || [])); $("askError").textContent = "";
    $("askOk").textContent = o.ok;
    $("askOk").onclick = () => {
      const err = o.check ? o.check() : "";
      if (err) { $("askError").textContent = err; return; }
      finish(true);
    };
    $("askCancel").onclick = (e) => { e.preventDefault(); finish(false); };
    dlg.querySelector("form").onsubmit = (e) => { e.preventDefault(); finish(false); };
    dlg.oncancel = (e) => { e.preventDefault(); finish(false); };
    // A question asked right after another (the hall's answer to the first asks again)
    // gets the first one's close event late, while it is open itself: not its own.
    dlg.onclose = () => { if (!dlg.open) finish(dlg.returnValue === "ok"); };
    dlg.returnValue = "";
    dlg.showModal();
    $("askCancel").focus();
  });
}
function field(label, input) { const l = el("label"); l.append(el("span", "", label + " "), input); return l; }
/** An input for a result, with its words below as it is typed. */
function resultField(label) {
  const input = el("input"); input.setAttribute("list", "results"); input.id = "askResult"; input.size = 8;
  const words = el("div", "muted"); input.oninput = () => { words.textContent = RESULT.test(input.value.trim()) ? resultWords(input.value.trim()) : ""; };
  const box = field(label, input); box.append(words);
  return {box, input};
}

// ---- Boards (/api/console/boards): who plays where, warnings, clocks.
const boards = new Map();
let boardsLoaded = false;
function byBoardId(id) { for (const b of boards.values()) if (b.board === id) return b; return null; }
function placeOfBoardId(id) { const b = byBoardId(id); return b ? placeLower(b) : say("boardLower", {board: id}); }
async function refreshBoards() {
  try {
    const r = await fetch("/api/console/boards"); if (!r.ok) return;
    const list = await r.json();
    boards.clear();
    for (const b of list) boards.set(keyOf(b.tournament, b.board), b);
    boardsLoaded = true;
    renderBoardSelect(); renderBoardPanel();
  } catch (e) { console.error(e); }
}

// ---- Alerts: cards keyed by board and id, updated in place; held while a pointer is over them.
const cards = new Map();
const alertCodes = new Map();
let lastAlerts = [], pointer = null, touchHold = 0;
const held = new Set();
const aKey = (a) => a.tournament + "/" + a.board + "/" + a.id;
/** A card's key: a card put right with its warning pending is a card of its own (other buttons). */
const cKey = (a) => aKey(a) + (a.restored ? "|restored" : "");
// Where the mouse is, from every move over the page (a question's button may have been over
// the list when it closed: no pointerenter comes then, but the mouse is there).
const mouseAt = (e) => { if (e.pointerType === "mouse") pointer = {x: e.clientX, y: e.clientY}; };
document.addEventListener("pointermove", mouseAt, {passive: true});
// A finger gives no hover: hold the cards for a few seconds after each touch.
document.addEventListener("pointerdown", (e) => { mouseAt(e); if (e.pointerType !== "mouse") touchHold = Date.now() + 4000; });
document.documentElement.addEventListener("pointerleave", () => { pointer = null; renderAlerts(); });
$("alerts").addEventListener("pointerleave", (e) => { mouseAt(e); renderAlerts(); });
function overAlerts() {
  if (!pointer) return false;
  const r = $("alerts").getBoundingClientRect();
  return pointer.x >= r.left && pointer.x <= r.right && pointer.y >= r.top && pointer.y <= r.bottom;
}
function holding() { return dlg.open || Date.now() < touchHold || overAlerts(); }
$("heldBar").onclick = () => { touchHold = 0; renderAlerts(true); };

const COLS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
function picture(size, pos, points) {
  const n = size || 19, c = 100 / n, NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg"); svg.setAttribute("viewBox", "0 0 100 100");
  let s = '<rect width="100" height="100" fill="#dcb35c"/>';
  for (let i = 0; i < n; i++) { const p = c / 2 + i * c;
    s += `<line x1="${c/2}" y1="${p}" x2="${100-c/2}" y2="${p}" stroke="#4a3a1a" stroke-width="0.2"/><line x1="${p}" y1="${c/2}" x2="${p}" y2="${100-c/2}" stroke="#4a3a1a" stroke-width="0.2"/>`; }
  if (pos && pos.length === n * n) for (let k = 0; k < pos.length; k++) {
    const ch = pos[k];
    if (ch === "?") { s += `<circle cx="${c/2+(k%n)*c}" cy="${c/2+Math.floor(k/n)*c}" r="${c*0.3}" fill="#9e9e9e" fill-opacity="0.6" stroke="#555" stroke-width="0.15" stroke-dasharray="0.6 0.4"/>`; continue; }
    if (ch !== "X" && ch !== "O") continue;
    s += `<circle data-p="${COLS[k % n]}${n - Math.floor(k / n)}" cx="${c/2+(k%n)*c}" cy="${c/2+Math.floor(k/n)*c}" r="${c*0.47}" fill="${ch === "X" ? "#111" : "#fafafa"}" stroke="#333" stroke-width="0.15"/>`; }
  for (const p of points || []) { const col = COLS.indexOf(p[0]), row = parseInt(p.slice(1), 10);
    if (col < 0 || !(row >= 1)) continue;
    s += `<rect x="${col*c+c*0.05}" y="${(n-row)*c+c*0.05}" width="${c*0.9}" height="${c*0.9}" fill="none" stroke="#e53935" stroke-width="${c*0.15}"/>`; }
  svg.innerHTML = s; return svg;
}
/** A time-out ruled by Art. 22.5 (byo-yomi); a board older than the article's choice says "12": its time control decides. */
function forfeitable(a) {
  if (a.article === "22.5") return true;
  const b = boards.get(keyOf(a.tournament, a.board));
  return a.article === "12" && !!b && timeKind(b.time_control) === "byoyomi";
}
function button(label, cls, onclick) { const b = el("button", cls, label); b.onclick = onclick; return b; }
const SEEN_NOT = new Set(["board_offline", "board_restarted", "storage_low", "storage_full", "absent"]);
/** The codes whose card shows the board's own words too: its specifics (how long it was off,
 * the clocks as they stood; what could not be written) beside the rule's sentence. */
const SAYS = new Set(["board_restarted", "storage_low", "storage_full"]);
function makeCard(a) {
  const d = el("div", "alert" + (a.restored ? " awaiting" : "")); d.dataset.alert = a.id; d.dataset.key = aKey(a); d.dataset.code = a.code;
  const c = {el: d, alert: a, shape: ""};
  c.pic = el("div", "pic");
  const body = el("div", "body");
  c.h = el("h3"); c.who = el("div", "who"); c.restored = el("div", "restored"); c.msg = el("div", "msg"); c.says = el("div", "says");
  c.taken = el("div", "taken"); c.meta = el("div", "muted meta");
  c.acts = el("div", "acts");
  const code = a.code, color = a.color;
  // What to do next, by what happened: each decisive step asks first.
  if (a.restored) {
    // Put right on the board: the warning stands all the same (Art. 17.2, 18.2, 22.6), or not.
    c.acts.append(button(say("warnPending", {article: a.article ? articleWords(a.article) : ""}), "danger warn", () => confirmAlert(c.alert)),
      button(T.noWarning, "nowarn", () => noWarning(c.alert)));
  } else if (code === "time_expired" && color) {
    c.acts.append(button(say("recordTime", {result: other(color) + "+T"}), "danger", () => recordTime(c.alert)));
    // A forfeited turn instead of the loss only where Art. 22.5 applies: a time-out in the
    // last byo-yomi period. Under sudden death (12.4) and Canadian periods (12.5) it loses.
    if (forfeitable(a)) c.acts.append(button(T.forfeitTurn, "danger", () => forfeitTurn(c.alert)));
  } else if (code === "absent") {
    // A player (or both) not seated at the lateness limit (Art. 22): the next step, asked
    // first; no automatic result. Dismissed if the player was there after all.
    c.acts.append(color
      ? button(say("recordDefault", {side: sideName(other(color))}), "danger", () => recordDefault(c.alert))
      : button(T.recordBothLose, "danger", () => recordDefault(c.alert)),
      button(T.dismiss, "", () => command(c.alert, {type: "dismiss", alert: c.alert.id})));
  } else if (code === "board_restarted") {
    c.acts.append(button(T.resumeClocks, "danger", () => resumeClocks(c.alert)),
      button(T.dismissRestart, "", () => command(c.alert, {type: "dismiss", alert: c.alert.id})));
  } else if (code === "board_offline") {
    // The hall's own alert: dismissed at the hall (a board taken off on purpose); it
    // comes back if the board is heard again and then drops off again.
    c.acts.append(button(T.dismiss, "", async () => {
      await post("/api/console/alert/dismiss", {tournament: c.alert.tournament, board: c.alert.board, alert: c.alert.id});
      refresh();
    }));
  } else {
    if (color) c.acts.append(button(WARNED.has(code) ? T.confirmWarning : T.confirmNoWarning, "danger", () => confirmAlert(c.alert)));
    c.acts.append(button(T.dismiss, "", () => command(c.alert, {type: "dismiss", alert: c.alert.id})));
  }
  // Taking an alert tells the other consoles who is on the way to the board.
  c.take = button(T.illGo, "take", async () => {
    await post("/api/console/alert/take", {tournament: c.alert.tournament, board: c.alert.board, alert: c.alert.id});
    refresh();
  });
  c.live = el("a", "live"); c.live.target = "_blank";
  c.acts.append(c.take, c.live);
  body.append(c.h, c.who, c.restored, c.msg, c.says, c.taken, c.meta, c.acts);
  // Under the picture, the evidence: what the board's sensors saw around the alert (the
  // rules' alerts, a flag fall included: a stone set down after it; not the board's or the
  // hall's own trouble). There it leaves the card's buttons where they were.
  const left = el("div", "left");
  left.append(c.pic);
  if (!SEEN_NOT.has(code) && a.time) left.append(button(T.seenButton, "seen", () => openSeen(c.alert, "around=" + encodeURIComponent(c.alert.time), c.alert.should_look)));
  d.append(left, body);
  updateCard(c, a);
  return c;
}
function updateCard(c, a) {
  c.alert = a;
  const shape = (a.size || 19) + "|" + (a.should_look || "") + "|" + (a.points || []).join(",");
  if (a.code !== "board_offline" && shape !== c.shape) { c.shape = shape; c.pic.replaceChildren(picture(a.size, a.should_look, a.points)); }
  setText(c.h, a.article ? say("alertHeading", {code: codeWords(a.code), article: articleWords(a.article)}) : codeWords(a.code));
  const since = a.time || a.since;
  const parts = [where(a)];
  if (a.number != null) parts.push(say("moveN", {n: a.number}));
  if (since && !isNaN(Date.parse(since))) parts.push(say("ago", {t: agoText(Date.now() - Date.parse(since))}));
  setText(c.who, parts.join(T.sep));
  setText(c.restored, a.restored && !isNaN(Date.parse(a.restored))
    ? say("restoredPending", {t: agoText(Date.now() - Date.parse(a.restored))}) : "");
  // The sentence of the rules for the code, in the reader's language; the event's English
  // `message` for a code the page does not know. Put right with the warning pending: what
  // is left to decide. The board's own words under the rule's where they say more (how
  // long it was off, what could not be written).
  setText(c.msg, a.restored ? T.pendingHint : alertCheck(a));
  setText(c.says, SAYS.has(a.code) && a.message && alertCheck(a) !== a.message ? say("boardSays", {message: a.message}) : "");
  setText(c.taken, a.taken_by ? say("takenBy", {who: a.taken_by}) : "");
  const meta = [say("alertMeta", {board: keyOf(a.tournament, a.board), id: a.id})];
  if ((a.points || []).length) meta.push(say("points", {p: a.points.join(" ")}));
  setText(c.meta, meta.join(T.sep));
  setText(c.take, a.taken_by ? T.takeOver : T.illGo);
  const base = "/console/board/" + encodeURIComponent(a.tournament) + "/" + encodeURIComponent(a.board) + "/";
  const href = a.number != null ? base + "?move=" + a.number : base;
  if (c.live.getAttribute("href") !== href) c.live.href = href;
  setText(c.live, a.number != null ? T.liveBoard : T.liveBoardNow);
}
function renderAlerts(force) {
  const list = lastAlerts, hold = !force && holding(), box = $("alerts");
  const open = new Set();
  held.clear();
  for (const a of list) {
    const k = cKey(a); open.add(k); alertCodes.set(aKey(a), a.code);
    const c = cards.get(k);
    if (c) {
      if (c.el.classList.contains("closed")) { c.el.classList.remove("closed"); for (const b of c.el.querySelectorAll("button")) b.disabled = false; }
      updateCard(c, a);
    }
    else if (hold) held.add(k);
    else cards.set(k, makeCard(a));
  }
  for (const [k, c] of cards) {
    if (open.has(k)) continue;
    if (hold) {
      // Closed under the pointer: greyed in place, gone once the pointer leaves.
      if (!c.el.classList.contains("closed")) { c.el.classList.add("closed"); c.el.title = T.closedCard; for (const b of c.el.querySelectorAll("button")) b.disabled = true; }
    } else { c.el.remove(); cards.delete(k); }
  }
  if (!hold) {
    const want = list.map((a) => cards.get(cKey(a)).el);
    if (want.length !== box.children.length || want.some((e, i) => box.children[i] !== e)) box.replaceChildren(...want);
  }
  $("heldBar").hidden = !held.size;
  setText($("heldBar"), held.size === 1 ? T.heldOne : say("heldMany", {n: held.size}));
  $("noAlert").hidden = box.children.length > 0;
  setText($("nalerts"), list.length ? "(" + list.length + ")" : "");
}

// A new alert rings (and vibrates a phone, where the browser allows) until an arbiter on
// this console says it was seen.
const seenAlerts = new Set(); let ringing = null, firstLoad = true;
function ring() {
  try {
    const ctx = new (window.AudioContext || window.webkitAudioContext)(), o = ctx.createOscillator(), g = ctx.createGain();
    o.frequency.value = 880; g.gain.value = 0.2; o.connect(g); g.connect(ctx.destination); o.start(); o.stop(ctx.currentTime + 0.25);
  } catch (e) { /* no audio: the button still shows */ }
  if (navigator.vibrate) navigator.vibrate([200, 100, 200]);
}
function noticeAlerts(list) {
  // An alert another arbiter took is not new any more: someone is on the way.
  const fresh = list.filter((a) => !a.taken_by && !seenAlerts.has(aKey(a)));
  if (firstLoad) { firstLoad = false; fresh.forEach((a) => seenAlerts.add(aKey(a))); return; }
  if (fresh.length && !ringing) { ring(); ringing = setInterval(ring, 4000); $("ring").hidden = false; }
  if (!fresh.length && ringing) { clearInterval(ringing); ringing = null; $("ring").hidden = true; }
}
$("ring").onclick = () => {
  clearInterval(ringing); ringing = null; $("ring").hidden = true;
  for (const a of lastAlerts) seenAlerts.add(aKey(a));
};

// ---- What each card's buttons do (each asks first).
async function confirmAlert(a) {
  await refreshBoards(); // the warning count as it is now
  const b = boards.get(keyOf(a.tournament, a.board)) || {};
  const v = {where: where(a), side: sideName(a.color), what: codeWords(a.code).toLowerCase(), result: other(a.color) + "+F"};
  if (!WARNED.has(a.code)) {
    if (await ask({title: T.confirmTitle, text: say("confirmText", v), ok: T.confirmOk})) await command(a, {type: "confirm", alert: a.id});
    return;
  }
  const count = ((b.warnings || {})[a.color] || 0) + 1;
  const text = say(count >= 2 ? "warnSecond" : "warnFirst", v);
  if (await ask({title: T.warnTitle, text, ok: T.warnOk})) await command(a, {type: "confirm", alert: a.id});
}
async function noWarning(a) {
  const v = {where: where(a), side: sideName(a.color), what: codeWords(a.code).toLowerCase()};
  if (await ask({title: T.noWarnTitle, text: say("noWarnText", v), ok: T.noWarning})) await command(a, {type: "dismiss", alert: a.id});
}
const WARNING_ARTICLES = ["17.2", "17.3", "17.4", "18.1", "18.2", "18.3", "22.6"];
/** The arbiter's own finding: a warning given with no alert (`give_warning`). */
async function giveWarning(b) {
  await refreshBoards();
  b = boards.get(keyOf(b.tournament, b.board)) || b;
  const side = el("select"); side.id = "askSide";
  for (const s of ["B", "W"]) { const o = el("option", "", sideName(s) + ((s === "B" ? b.black : b.white) ? " (" + (s === "B" ? b.black : b.white) + ")" : "")); o.value = s; side.append(o); }
  const art = el("select"); art.id = "askArticle";
  for (const x of WARNING_ARTICLES) { const o = el("option", "", (T.art || {})[x.replace(".", "_")] || articleWords(x)); o.value = x; art.append(o); }
  const why = el("input"); why.id = "askReason";
  const text = () => {
    const s = side.value, count = ((b.warnings || {})[s] || 0) + 1;
    return say(count >= 2 ? "giveSecond" : "giveFirst", {where: where(b), side: sideName(s), article: articleWords(art.value), result: other(s) + "+F"});
  };
  side.onchange = art.onchange = () => { $("askText").textContent = text(); };
  if (!(await ask({title: T.giveTitle, text: text(), ok: T.giveWarning,
    fields: [field(T.giveSide, side), field(T.giveArticle, art), field(T.reason, why)]}))) return;
  const body = {type: "give_warning", color: side.value, article: art.value};
  if (why.value.trim()) body.reason = why.value.trim();
  await command(b, body);
}
/** A game started by mistake: void, its board free, out of every public view. */
async function voidGame(x) {
  const why = el("input"); why.id = "askReason";
  if (!(await ask({title: T.voidTitle, text: say("voidText", {where: where(x)}), ok: T.voidGame, fields: [field(T.reason, why)]}))) return;
  await command(x, why.value.trim() ? {type: "void_game", reason: why.value.trim()} : {type: "void_game"});
}
async function recordTime(a) {
  const result = other(a.color) + "+T";
  const text = say("timeText", {where: where(a), side: sideName(a.color), res: resultWords(result)});
  if (await ask({title: T.timeTitle, text, ok: say("recordTime", {result})})) await command(a, {type: "set_result", result, reason: "time"});
}
/** A no-show (alert `absent`) defaulted in one step: a win by default for the opponent (`W+F`), or both lose (`Void`), reason `absent`, which the Round view and the results file take as by default. */
async function recordDefault(a) {
  const result = a.color ? other(a.color) + "+F" : "Void";
  const v = {where: where(a), late: a.late_ms != null ? clockText(a.late_ms) : "", article: a.article ? articleWords(a.article) : "",
    side: a.color ? sideName(a.color) : "", opp: a.color ? sideName(other(a.color)) : "", result, reopen: T.reopen};
  const q = a.color
    ? {title: T.defaultTitle, text: say("defaultText", v), ok: say("recordDefault", {side: v.opp})}
    : {title: T.bothLoseTitle, text: say("bothLoseText", v), ok: T.recordBothLose};
  if (await ask(q)) await command(a, {type: "set_result", result, reason: "absent"});
}
async function forfeitTurn(a) {
  const text = say("forfeitText", {where: where(a), side: sideName(a.color), opp: sideName(other(a.color))});
  // The board's resume_play after a flag fall: the side that moves next, the flagged side's opponent.
  if (await ask({title: T.forfeitTitle, text, ok: T.forfeitTurn})) await command(a, {type: "resume_play", color: other(a.color)});
}
async function resumeClocks(x) {
  const b = boards.get(keyOf(x.tournament, x.board)) || x;
  const running = b.clocks && b.clocks.running ? say("resumeRunning", {side: sideName(b.clocks.running)}) : "";
  if (await ask({title: T.resumeTitle, text: say("resumeText", {where: where(b), running}), ok: T.resumeClocks})) await command(x, {type: "resume"});
}

// ---- The Board panel: one board, chosen by table; the choice kept on this device.
const STORE = "tengen.console.board";
function chosenKey() { try { return localStorage.getItem(STORE) || ""; } catch (e) { return ""; } }
function choose(key) { try { localStorage.setItem(STORE, key); } catch (e) { /* private mode: kept for this page only */ } }
const tableNo = (b) => { const n = parseInt(b.table, 10); return isNaN(n) ? Infinity : n; };
function boardLabel(b, withTournament) {
  const id = withTournament ? keyOf(b.tournament, b.board) : b.board;
  if (!b.black && !b.white) return (b.table ? say("tableN", {table: b.table}) + T.sep : "") + id + T.sep + T.noGame;
  return [b.table ? say("tableN", {table: b.table}) : null, say("players", {black: b.black || T.unknownPlayer, white: b.white || T.unknownPlayer}), id]
    .filter(Boolean).join(T.sep);
}
function selected() { return boards.get($("board").value) || null; }
function renderBoardSelect() {
  const sel = $("board");
  const list = [...boards.values()].sort((a, b) => tableNo(a) - tableNo(b) || keyOf(a.tournament, a.board).localeCompare(keyOf(b.tournament, b.board)));
  const several = new Set(list.map((b) => b.tournament)).size > 1;
  let want = chosenKey() || sel.value;
  const opts = list.map((b) => [keyOf(b.tournament, b.board), boardLabel(b, several)]);
  // A board chosen here but not heard (yet, after a hall restart): kept, never replaced.
  if (want && !boards.has(want)) opts.unshift([want, say("notHeard", {key: want})]);
  if (!want && opts.length) want = opts[0][0];
  const sig = opts.map((o) => o.join("|")).join("\n");
  if (sel.dataset.sig !== sig) {
    sel.replaceChildren(...opts.map(([v, t]) => { const o = el("option", "", t); o.value = v; return o; }));
    sel.dataset.sig = sig;
  }
  if (sel.value !== want) sel.value = want;
  if (prefilledFor !== sel.value) prefillAdjust();
}
$("board").onchange = () => { choose($("board").value); prefillAdjust(); renderBoardPanel(); renderCommands(); };
function show(cls, on) { for (const e of document.querySelectorAll("#boardActs ." + cls)) e.hidden = !on; }
function renderBoardPanel() {
  const b = selected();
  const phase = b ? b.phase : null;
  const live = phase === "playing" || phase === "counting";
  show("when-live", live); show("when-counting", phase === "counting"); show("when-over", phase === "over" && !(b && b.voided));
  show("when-any", !!b); show("when-game", !!phase && !(b && b.voided));
  renderBoardLog();
  const w = (b && b.warnings) || {};
  show("when-warned", live && (w.B > 0 || w.W > 0));
  $("bWithdrawB").hidden = !(w.B > 0); $("bWithdrawW").hidden = !(w.W > 0);
  const info = $("boardInfo");
  if (!b) { setText(info, ""); return; }
  const lines = [];
  lines.push([where(b), b.board].join(T.sep));
  const state = !phase ? T.noGame : b.voided ? T.voided : phase === "over" ? say("overWith", {r: resultWords(b.result || "")})
    : [T.phases[phase] || phase, b.number != null ? say("moveN", {n: b.number}) : null].filter(Boolean).join(T.sep);
  const status = [state, T.statusWords[b.status] || b.status];
  if (b.last_heard_ms != null) status.push(say("heard", {t: agoText(b.last_heard_ms)}));
  lines.push(status.filter(Boolean).join(T.sep));
  const c = b.clocks;
  if (c && phase !== "over") {
    const kind = timeKind(b.time_control), periods = kind === "byoyomi" || kind === "canadian";
    const one = (s) => say("clockSide", {side: sideName(s), t: clockText(c[s])})
      + (periods && c.periods ? say(kind === "canadian" ? "clockStones" : "clockPeriods", {n: c.periods[s]}) : "");
    lines.push(say("clocksLine", {B: one("B"), W: one("W")}) + (c.paused ? T.sep + T.clocksPaused : ""));
    if (b.time_control) lines.push(timeWords(b.time_control));
  }
  if (w.B > 0 || w.W > 0) lines.push(say("warningsLine", {list: ["B", "W"].filter((s) => w[s] > 0).map((s) => sideName(s) + " " + w[s]).join(", ")}));
  const text = lines.join("\n");
  if (info.dataset.text !== text) { info.dataset.text = text; info.replaceChildren(...lines.map((l) => el("div", "", l))); }
  for (const s of ["B", "W"]) {
    const name = s === "B" ? b.black : b.white, label = sideName(s) + (name ? " (" + name + ")" : "");
    setText($("adjColor").querySelector(`option[value=${s}]`), label);
    setText($("bResign" + s), say("resigns", {side: label}));
    setText($("bPlay" + s), say("resumePlayFor", {side: sideName(s)}));
    setText($("bWithdraw" + s), say("withdrawFor", {side: sideName(s)}));
  }
  const kind = timeKind(b.time_control);
  $("adjPeriodsBox").hidden = !(kind === "byoyomi" || kind === "canadian");
  setText($("adjPeriodsLabel"), kind === "canadian" ? T.stonesLeft : T.periodsLeft);
}
/** The adjust-time fields start from the chosen side's clock as it reads now. */
let prefilledFor = null;
function prefillAdjust() {
  const b = selected(), c = b && b.clocks, s = $("adjColor").value;
  if (!c) return;
  prefilledFor = $("board").value;
  $("adjMin").value = Math.floor(c[s] / 60000); $("adjSec").value = Math.floor((c[s] % 60000) / 1000);
  $("adjPeriods").value = c.periods ? c.periods[s] : 0;
}
$("adjColor").onchange = prefillAdjust;
const whole = (v) => (/^\s*\d+\s*$/.test(v) ? parseInt(v, 10) : v.trim() === "" ? 0 : NaN);
$("bPause").onclick = () => { const b = selected(); if (b) command(b, {type: "pause"}); };
$("bResume").onclick = () => { const b = selected(); if (b) resumeClocks(b); };
$("bAdjust").onclick = async () => {
  const b = selected(); if (!b) return;
  const color = $("adjColor").value, min = whole($("adjMin").value), sec = whole($("adjSec").value);
  if (!(min >= 0 && min <= 5999 && sec >= 0 && sec <= 59)) { notice(T.badTime, true); return; }
  const body = {type: "adjust_time", color, ms: (min * 60 + sec) * 1000};
  const kind = timeKind(b.time_control);
  let periods = "";
  if (kind === "byoyomi" || kind === "canadian") {
    const p = whole($("adjPeriods").value);
    if (!(p >= 0 && p <= 99)) { notice(T.badPeriods, true); return; }
    body.periods = p; periods = say(kind === "canadian" ? "withStones" : "withPeriods", {n: p});
  }
  const text = say("adjustText", {where: where(b), side: sideName(color), time: clockText(body.ms), periods});
  if (await ask({title: T.adjustTitle, text, ok: T.adjustSet})) await command(b, body);
};
$("bSetResult").onclick = async () => {
  const b = selected(); if (!b) return;
  const result = $("result").value.trim();
  if (!RESULT.test(result)) { notice(T.badResult, true); return; }
  if (await ask({title: T.resultTitle, text: say("resultText", {where: where(b), res: resultWords(result)}), ok: T.setResultButton})) {
    await command(b, {type: "set_result", result});
  }
};
for (const s of ["B", "W"]) {
  $("bResign" + s).onclick = async () => {
    const b = selected(); if (!b) return;
    const text = say("resignText", {where: where(b), side: sideName(s), res: resultWords(other(s) + "+R")});
    if (await ask({title: T.resignTitle, text, ok: say("resigns", {side: sideName(s)})})) await command(b, {type: "resign", color: s});
  };
  $("bPlay" + s).onclick = async () => {
    const b = selected(); if (!b) return;
    if (await ask({title: T.playTitle, text: say("playText", {where: where(b), side: sideName(s)}), ok: say("resumePlayFor", {side: sideName(s)})})) {
      await command(b, {type: "resume_play", color: s});
    }
  };
  $("bWithdraw" + s).onclick = () => { const b = selected(); if (b) withdrawWarning(b, s); };
}
async function withdrawWarning(b, s) {
  const n = Math.max(0, ((b.warnings || {})[s] || 1) - 1);
  const text = say("withdrawText", {where: where(b), side: sideName(s), n});
  if (await ask({title: T.withdrawTitle, text, ok: say("withdrawFor", {side: sideName(s)})})) await command(b, {type: "withdraw_warning", color: s});
}
$("bGiveWarning").onclick = () => { const b = selected(); if (b) giveWarning(b); };
$("bVoid").onclick = () => { const b = selected(); if (b) voidGame(b); };
// The chosen board's incident log: its latest lines, and the whole log as a page to print.
let logFor = "", logAt = 0;
async function renderBoardLog(force) {
  const b = selected(), box = $("boardLog");
  if (!b || !b.game) { box.hidden = true; return; }
  const k = keyOf(b.tournament, b.board) + "/" + b.game;
  if (!force && k === logFor && Date.now() - logAt < 3000) return;
  logFor = k; logAt = Date.now();
  const path = encodeURIComponent(b.tournament) + "/" + encodeURIComponent(b.board);
  $("boardLogLink").href = "/console/incidents/" + path + "?game=" + encodeURIComponent(b.game);
  try {
    const r = await fetch("/api/console/incidents/" + path + "?game=" + encodeURIComponent(b.game));
    if (!r.ok) { box.hidden = true; return; }
    const j = await r.json();
    if (logFor !== k) return;
    const lines = j.lines.slice(-8).reverse();
    $("boardLogList").replaceChildren(...(lines.length ? lines.map((l) => el("li", "k-" + l.kind,
      [wallOf(l.time), l.move != null ? say("moveN", {n: l.move}) : null, l.text + (l.why ? " (" + l.why + ")" : ""), l.by].filter(Boolean).join(T.sep)))
      : [el("li", "muted", T.incidentsNone)]));
    box.hidden = false;
  } catch (e) { console.error(e); }
}
function wallOf(t) { const d = new Date(t); return isNaN(d) ? "" : pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()); }
$("bNewGame").onclick = async () => {
  const b = selected(); if (!b) return;
  if (await ask({title: T.newTitle, text: say("newText", {where: where(b), board: b.board}), ok: T.newGame})) await command(b, {type: "new_game"});
};
$("bReopen").onclick = () => { const b = selected(); if (b) reopen(b, b.result); };
$("bCorrect").onclick = () => { const b = selected(); if (b) correctResult(b, b.result); };
/** `x`: tournament, board, table, players; `result`: the result it ended with. */
async function reopen(x, result) {
  const why = el("input"); why.id = "askReason";
  const text = say("reopenText", {where: where(x), res: resultWords(result || "")});
  if (!(await ask({title: T.reopenTitle, text, ok: T.reopen, fields: [field(T.reason, why)]}))) return;
  await command(x, why.value.trim() ? {type: "reopen", reason: why.value.trim()} : {type: "reopen"});
}
async function correctResult(x, result) {
  const r = resultField(T.newResult), why = el("input"); why.id = "askReason";
  const text = say("correctText", {where: where(x), res: resultWords(result || "")});
  const ok = await ask({title: T.correctTitle, text, ok: T.correct, fields: [r.box, field(T.reason, why)],
    check: () => (RESULT.test(r.input.value.trim()) ? "" : T.badResult)});
  if (!ok) return;
  // The hall does the sequence (reopen, the board's word, then the new result) and says
  // how far it went; it then rewrites a confirmed result in the results file, the round
  // zip and the feed.
  const to = r.input.value.trim(), place = placeLower(x);
  const steps = {reopen: {type: "reopen"}, set_result: {type: "set_result", result: to}};
  const words = (step) => commandWords({tournament: x.tournament, board: x.board, command: steps[step] || steps.set_result});
  notice(say("sending", {what: words("reopen"), place}));
  const a = await postRaw("/api/console/correct", {tournament: x.tournament, board: x.board, result: to, reason: why.value.trim()});
  refresh(); refreshBoards();
  if (!a) return;
  const j = a.j || {};
  if (j.status === "done") notice(say("done", {what: words("set_result"), place}));
  else if (j.status === "refused" && j.step) notice(say("refusedCmd", {what: words(j.step), place, why: refusalWords(j)}), true);
  else if (j.status === "no_answer") notice(say("noAnswer", {what: words(j.step), place}), true);
  else notice(say("refused", {why: errorWords(j, a.r.status)}), true);
}

// ---- What the sensors saw (the black box): the board as its sensors read it, scan by
// scan, 10 s either side of a moment (an alert's time, or now), asked of the board through
// the hall (arbiters only). The expected position beside it; the points that changed at
// the scan shown are marked; the presses and the moment itself on the time line.
// From the Board panel: around a move of the game (its number), or around now.
$("bSeen").onclick = () => {
  const b = selected(); if (!b) return;
  const n = parseInt($("seenMove").value, 10);
  // At a move, the position the board had to show then (the hall sends it with the frames),
  // not the position now.
  openSeen(b, n >= 1 ? "move=" + n : "around=" + encodeURIComponent(new Date().toISOString()), n >= 1 ? "" : b.position);
};
function gtpOf(k, n) { return COLS[k % n] + (n - Math.floor(k / n)); }
/** `x`: the board; `query`: `around=TIME` or `move=N`; `expected`: the position it should show. */
async function openSeen(x, query, expected) {
  const dlg = $("seen"), scrub = $("seenScrub"), marks = $("seenMarks"), n = x.size || 19;
  setText($("seenTitle"), say("seenTitle", {where: where(x)}));
  setText($("seenSaid"), T.seenLoading); setText($("seenAt"), ""); setText($("seenWhat"), "");
  $("seenPhysical").replaceChildren(picture(n, "", [])); marks.replaceChildren(); scrub.max = 0; scrub.hidden = true;
  $("seenExpected").replaceChildren(picture(n, expected || "", []));
  if (!dlg.open) dlg.showModal();
  let r, lines = [];
  try {
    r = await fetch("/api/console/board/" + encodeURIComponent(x.tournament) + "/" + encodeURIComponent(x.board)
      + "/frames?" + query, {credentials: "same-origin"});
    const text = await r.text();
    if (!r.ok) { setText($("seenSaid"), say("seenFailed", {why: text.trim()})); return; }
    lines = text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  } catch (e) { setText($("seenSaid"), say("seenFailed", {why: String(e)})); return; }
  const then = r.headers.get("x-tengen-expected");
  if (then && then.length === n * n) $("seenExpected").replaceChildren(picture(n, then, []));
  if (!lines.length) { setText($("seenSaid"), T.seenNone); return; }
  const centre = Number(r.headers.get("x-tengen-around-ms")) || lines[0].ms;
  setText($("seenSaid"), say("seenSaid", {n: lines.length - 1, ms: centre}));
  // Start at the last scan at or before the moment.
  let at = 0; while (at + 1 < lines.length && lines[at + 1].ms <= centre) at++;
  // The time line follows the slider: one step per scan shown.
  const pct = (i) => (lines.length > 1 ? i * 100 / (lines.length - 1) : 0) + "%";
  const mark = (i, cls, t) => { const m = el("span", cls, t); m.style.left = pct(i); marks.append(m); };
  lines.forEach((l, i) => { if (i > 0 && !l.presses.length) mark(i, "change", ""); });
  mark(at, "moment", "▼");
  lines.forEach((l, i) => { for (const p of l.presses) mark(i, "press", p === "B" ? "●" : "○"); });
  scrub.hidden = false; scrub.max = lines.length - 1;
  scrub.value = at;
  const show = () => {
    const i = Number(scrub.value), l = lines[i], prev = i > 0 ? lines[i - 1].board : l.board;
    const changed = [];
    for (let k = 0; k < l.board.length; k++) if (l.board[k] !== prev[k]) changed.push(gtpOf(k, n));
    $("seenPhysical").replaceChildren(picture(n, l.board, changed));
    const dt = ((l.ms - centre) / 1000).toFixed(2);
    setText($("seenAt"), say("seenAt", {t: (l.ms >= centre ? "+" : "") + dt, ms: l.ms}));
    const what = [];
    if (changed.length) what.push(say("seenChanged", {p: changed.join(" ")}));
    for (const p of l.presses) what.push(say("seenPress", {side: sideName(p)}));
    setText($("seenWhat"), what.join(T.sep));
  };
  scrub.oninput = show; show();
}

// ---- Pause all / resume all (hall-wide, or one round).
async function allBoards(what, round) {
  const pause = what === "pause-all";
  const text = round ? say(pause ? "pauseRoundText" : "resumeRoundText", {round}) : (pause ? T.pauseAllText : T.resumeAllText);
  if (!(await ask({title: pause ? T.pauseAllTitle : T.resumeAllTitle, text, ok: pause ? T.pauseAll : T.resumeAll}))) return;
  const j = await post("/api/console/" + what, round ? {round} : {});
  if (!j) return;
  const sent = j.sent || [], skipped = j.skipped || [];
  let said = sent.length === 1 ? (pause ? T.pausedOne : T.resumedOne) : say(pause ? "pausedN" : "resumedN", {n: sent.length});
  if (skipped.length) said += "; " + say("notReached", {list: skipped.map((s) => placeOfBoardId(s.board) + " (" + whyWords(s) + ")").join(", ")});
  notice(said);
  if (round) $("roundSaid").textContent = said;
  refresh(); refreshBoards();
}
$("pauseAll").onclick = () => allBoards("pause-all", 0);
$("resumeAll").onclick = () => allBoards("resume-all", 0);
$("pauseRound").onclick = () => allBoards("pause-all", round);
$("resumeRound").onclick = () => allBoards("resume-all", round);

// ---- The history: what was done, in words, newest first.
let lastCommands = [];
function commandWords(c) {
  const x = c.command || {}, type = x.type || c.type;
  const v = {side: sideName(x.color), result: x.result ? resultWords(x.result) : "", time: x.ms != null ? clockText(x.ms) : "",
    periods: x.periods != null ? say("cmdPeriods", {n: x.periods}) : "", what: "", players: ""};
  if (type === "confirm" || type === "dismiss") {
    const code = alertCodes.get(c.tournament + "/" + c.board + "/" + x.alert);
    v.what = code ? ": " + codeWords(code).toLowerCase() : "";
  }
  if (type === "new_game" && (x.black || x.white)) v.players = ": " + say("players", {black: x.black || T.unknownPlayer, white: x.white || T.unknownPlayer});
  if (type === "give_warning") v.what = articleWords(x.article || "");
  if (type === "confirm_result" || type === "correct_result") {
    const label = (T.og || {})[x.result] || x.result || "";
    v.result = x.sgf ? label + " (" + resultWords(x.sgf) + ")" : label;
    v.from = /^RESULT_/.test(x.from || "") ? (T.og || {})[x.from] || x.from : resultWords(x.from || "");
    v.table = x.table;
  }
  const reason = x.reason && type !== "set_result" ? " (" + x.reason + ")" : "";
  return (T.cmd[type] ? say(T.cmd[type], v) : String(type || "").replace(/_/g, " ")) + reason;
}
function renderCommands() {
  const only = $("onlyTable").checked ? $("board").value : "";
  const list = lastCommands.filter((c) => !only || keyOf(c.tournament, c.board) === only).slice(0, 50);
  $("commands").replaceChildren(...list.map((c) => {
    const b = boards.get(keyOf(c.tournament, c.board)) || (c.board ? {board: c.board} : {table: (c.command || {}).table});
    const status = c.status === "refused" ? T.status.refused + (c.error ? ": " + refusalWords(c) : "") : (T.status[c.status] || c.status);
    const li = el("li", c.status, [commandWords(c), placeLower(b), c.by || "", wallTime(c.age_ms), status].join(T.sep));
    li.dataset.id = c.id;
    return li;
  }));
}
$("onlyTable").onchange = renderCommands;

function renderHardware(list) {
  setText($("nhardware"), list.length ? "(" + list.length + ")" : "");
  const box = $("hardware");
  if (!list.length) { const tr = el("tr"); tr.append(el("td", "muted", T.noHardware)); box.replaceChildren(tr); return; }
  box.replaceChildren(...list.map((h) => {
    const tr = el("tr"); tr.dataset.fault = h.kind;
    const b = boards.get(keyOf(h.tournament, h.board));
    tr.append(el("td", "", b && b.table ? say("tableLower", {table: b.table}) + " (" + h.board + ")" : keyOf(h.tournament, h.board)),
      el("td", "refused", T.faults[h.kind] || h.kind), el("td", "", (h.points || []).join(" ")),
      el("td", "muted", String(h.time || h.since || "").slice(11, 19)));
    return tr;
  }));
}
async function refresh() {
  try {
    const [a, c, h] = await Promise.all([fetch("/api/console/alerts"), fetch("/api/console/commands"), fetch("/api/console/hardware")]);
    if (a.status === 401) { location.reload(); return; }
    lastAlerts = await a.json(); noticeAlerts(lastAlerts); renderAlerts();
    lastCommands = await c.json(); renderCommands();
    renderHardware(await h.json());
  } catch (e) { console.error(e); }
}

// ---- The Round view ([tournament] in hall.toml).
let round = 0, lastRound = null;
const rows = new Map();
async function roundPost(what, body) {
  const a = await postRaw("/api/console/round/" + round + "/" + what, body);
  if (!a) return;
  let j = a.j;
  if (a.r.status === 409 && j.error_id === "has-results") {
    // Match morning: this round's results are in the file already. Say so, and ask again.
    const args = j.args || {};
    if (!(await ask({title: T.hasResultsTitle, text: say("hasResultsText", args), ok: say("startAnyway", {round})}))) return;
    return roundPost(what, Object.assign({}, body, {despite_results: true}));
  }
  if (!a.r.ok) { notice(say("refused", {why: errorWords(j, a.r.status)}), true); return; }
  const said = $("roundSaid");
  const paper = j.paper_tables || [];
  if (j.sent) said.textContent = say("sentN", {n: j.sent.length}) + (j.skipped.length ? "; " + say("leftOut", {list: j.skipped.map((s) => say("tableLower", {table: s.table}) + " (" + whyWords(s) + ")").join(", ")}) : "")
    + (paper.length ? "; " + say("paperTables", {list: paper.join(", ")}) : "");
  if (j.confirmed) said.textContent = say("confirmedN", {n: j.confirmed.length});
  refreshRound(); refresh();
}
const rowWhere = (t) => where({table: t.table, black: t.black, white: t.white, board: t.board});
const rowBoard = (t) => ({tournament: t.tournament, board: t.board, table: t.table, black: t.black, white: t.white});
function makeRow(t) {
  const tr = el("tr"); tr.dataset.table = t.table;
  const r = {tr, t};
  r.tbl = el("td", "tbl", String(t.table)); r.players = el("td", "players");
  r.b = el("div"); r.w = el("div"); r.sub = el("div", "muted sub"); r.players.append(r.b, r.w, r.sub);
  r.seats = el("td", "seats");
  r.state = el("td", "state"); r.result = el("td", "result"); r.act = el("td", "act");
  r.resultText = el("div"); r.margin = el("div", "margin"); r.flag = el("div", "flag"); r.result.append(r.resultText, r.margin, r.flag);
  r.confirm = button("", "confirm danger", async () => {
    const t = r.t;
    if (await ask({title: T.confirmResultTitle, text: say("confirmResultText", {where: rowWhere(t), label: resultLabel(t)}), ok: T.confirmOk})) {
      roundPost("confirm", {results: [{table: t.table}]});
    }
  });
  r.override = el("select", "override");
  const none = el("option", "", T.pickResult); none.value = "";
  r.override.append(none, ...Object.keys(T.og).map((v) => { const o = el("option", "", T.og[v]); o.value = v; return o; }));
  r.set = button(T.set, "", async () => {
    const t = r.t, v = r.override.value; if (!v) return;
    if (await ask({title: T.setTableTitle, text: say("setTableText", {where: rowWhere(t), label: T.og[v]}), ok: T.set})) {
      roundPost("confirm", {results: [{table: t.table, result: v}]});
    }
  });
  r.start = button(T.start, "", async () => {
    const t = r.t;
    if (await ask({title: T.startTableTitle, text: say("startTableText", {where: rowWhere(t), board: t.board}), ok: T.start})) {
      roundPost("start", Object.assign({tables: [t.table], force: true}, penaltiesChosen()));
    }
  });
  r.reopen = button(T.reopen, "", () => reopen(rowBoard(r.t), r.t.board_result));
  r.correct = button(T.correct, "", () => correctResult(rowBoard(r.t), r.t.board_result));
  r.void = button(T.voidGame, "void", () => voidGame(rowBoard(r.t)));
  r.act.append(r.confirm, r.override, r.set, r.start, r.reopen, r.correct, r.void);
  tr.append(r.tbl, r.players, r.seats, r.state, r.result, r.act);
  for (const td of [r.tbl, r.players, r.seats, r.state, r.result]) td.onclick = () => tr.classList.toggle("open");
  return r;
}
/** A table's seats (Art. 22) at a glance: both seated, or each player missing (for how long),
 * not checked in yet, or late (how late, all it cost). One line a player; none without check-in. */
function seatLines(seats) {
  if (!seats) return [];
  const one = (mark, s) => {
    switch (s.state) {
      case "expected": return ["missing", mark + " " + T.seatNotIn];
      case "absent": return ["missing", mark + " " + say(s.defaulted ? "seatDefaulted" : "seatMissing", {late: clockText(s.late_ms || 0)})];
      case "arrived": return ["late", mark + " " + say("seatLate", {late: clockText(s.late_ms || 0), taken: clockText(s.taken_ms || 0)})];
      default: return null;
    }
  };
  const lines = [one("●", seats.B), one("○", seats.W)].filter(Boolean);
  return lines.length ? lines : [["seated", T.seatsBoth]];
}
function updateSeats(r, t) {
  const lines = seatLines(t.seats), key = JSON.stringify(lines);
  if (r.seatsKey === key) return;
  r.seatsKey = key;
  r.seats.replaceChildren(...lines.map(([cls, text]) => el("div", cls, text)));
}
/** `[hall] late_reminder_s` before a board's late limit, players still missing: the tables still
 * waiting, once per round start (until the arbiter says they go and look). */
function renderReminder(j) {
  const rem = j.late_reminder, box = $("lateReminder");
  const key = rem ? "tengen.console.reminded." + j.round + "." + rem.began : "";
  let done = false;
  try { done = !!key && sessionStorage.getItem(key) === "1"; } catch (e) { done = remindedHere.has(key); }
  if (!rem || done || remindedHere.has(key)) { box.hidden = true; return; }
  setText($("lateReminderText"), say("reminderText", {n: rem.tables.length, left: clockText(rem.reminder_s * 1000)}));
  const items = rem.tables.map((t) => say("reminderItem", {table: t.table, board: t.board,
    missing: t.missing.map((m) => (m.color === "B" ? "● " : "○ ") + say("seatMissing", {late: clockText(m.late_ms)})).join(T.sep)}));
  const list = $("lateReminderList");
  if (list.dataset.key !== JSON.stringify(items)) { list.dataset.key = JSON.stringify(items); list.replaceChildren(...items.map((i) => el("li", "", i))); }
  if (box.hidden) { box.hidden = false; ring(); }
  $("lateReminderOk").onclick = () => {
    remindedHere.add(key);
    try { sessionStorage.setItem(key, "1"); } catch (e) { /* kept for this page */ }
    box.hidden = true;
  };
}
const remindedHere = new Set();
function updateRow(r, t) {
  r.t = t;
  updateSeats(r, t);
  setText(r.b, "● " + withRank(t.black, t.black_rank));
  setText(r.w, "○ " + withRank(t.white, t.white_rank));
  setText(r.sub, [t.board, t.handicap ? say("hc", {n: t.handicap}) : null].filter(Boolean).join(T.sep));
  const heard = t.last_heard_ms != null ? t.last_heard_ms : (byBoardId(t.board) || {}).last_heard_ms;
  const state = [T.tableStates[t.state] || t.state, t.number && t.state !== "over" ? say("moveN", {n: t.number}) : null,
    t.state === "other game" ? "(" + t.board_game + ")" : null,
    (t.state === "set up" || t.state === "playing") && t.clocks_stopped ? T.clocksPaused : null].filter(Boolean).join(T.sep);
  setText(r.state, state + (heard != null && t.state !== "no board" ? T.sep + say("heard", {t: agoText(heard)}) : ""));
  r.state.className = "state st-" + t.state.replace(/ /g, ".");
  const rs = T.resultStates[t.result_state] || t.result_state;
  const label = resultLabel(t);
  setText(r.resultText, t.result_state === "none" ? "" : t.confirmed_by ? say("resultCellBy", {label, state: rs, who: t.confirmed_by})
    : say("resultCell", {label, state: rs}));
  // The margin and the reason, as on the players' signed slip (W+3.5, W+R).
  const sgf = t.result_state === "confirmed" ? t.confirmed_sgf : t.board_result;
  setText(r.margin, [sgf ? resultWords(sgf) : "", t.corrected_from ? say("correctedFrom", {from: resultWords(t.corrected_from)}) : ""].filter(Boolean).join(T.sep));
  // A board result that differs from the confirmed one, flagged until resolved.
  const flag = t.confirmation && t.confirmation !== "ok" ? t.confirmation : "";
  setText(r.flag, flag ? say((T.confirmation || {})[flag] || flag, {board: resultWords(t.board_result || "")}) : "");
  r.tr.classList.toggle("flagged", !!flag);
  r.result.className = "result r-" + t.result_state;
  const needs = t.result_state === "pending" || flag === "differs";
  r.confirm.hidden = !needs;
  r.tr.classList.toggle("pending", needs);
  setText(r.confirm, say("confirmLabel", {label: flag === "differs" ? resultWords(t.board_result || "") : label}));
  const over = t.state === "over" && !!t.tournament;
  r.reopen.hidden = !over; r.correct.hidden = !over;
  r.void.hidden = !t.tournament || !["set up", "playing", "counting", "over"].includes(t.state);
}
/** The round's penalty mode as chosen above the tables (none: each board's own). */
function penaltiesChosen() { const v = $("penalties").value; return v ? {penalties: v} : {}; }
/** The rows the filters leave: boards only, those needing a decision only. */
function rowShown(t) {
  if ($("fBoards").checked && t.state === "no board") return false;
  if ($("fPending").checked) {
    const flag = t.confirmation && t.confirmation !== "ok";
    if (!(t.result_state === "pending" || flag || ["offline", "other game"].includes(t.state))) return false;
  }
  return true;
}
const FILTERS = "tengen.console.roundFilters";
for (const id of ["fBoards", "fPending", "fCompact"]) {
  try { $(id).checked = (JSON.parse(localStorage.getItem(FILTERS) || "{}"))[id] === true; } catch (e) { /* none kept */ }
  $(id).onchange = () => {
    try { localStorage.setItem(FILTERS, JSON.stringify({fBoards: $("fBoards").checked, fPending: $("fPending").checked, fCompact: $("fCompact").checked})); } catch (e) { /* kept for this page */ }
    $("roundTable").classList.toggle("compact", $("fCompact").checked);
    if (lastRound) renderRound(lastRound);
  };
}
$("roundTable").classList.toggle("compact", $("fCompact").checked);
function renderRound(j) {
  lastRound = j;
  renderReminder(j);
  setText($("roundInfo"), say("roundInfo", {name: j.tournament, time: timeWords(j.time), file: j.results_file}));
  const sel = $("roundNo");
  if (sel.options.length !== j.rounds.length) sel.replaceChildren(...j.rounds.map((n) => { const o = el("option", "", String(n)); o.value = n; return o; }));
  if (sel.value !== String(round)) sel.value = String(round);
  const body = $("tables"), want = [];
  const seen = new Set();
  for (const t of j.tables) {
    const k = String(t.table); seen.add(k);
    let r = rows.get(k); if (!r) { r = makeRow(t); rows.set(k, r); }
    updateRow(r, t);
    if (rowShown(t)) want.push(r.tr);
  }
  $("roundLog").href = "/console/incidents/round/" + encodeURIComponent(round);
  if (!penaltiesSet) { penaltiesSet = true; $("penalties").value = j.penalties || ""; }
  for (const k of [...rows.keys()]) if (!seen.has(k)) rows.delete(k);
  if (want.length !== body.children.length || want.some((e, i) => body.children[i] !== e)) body.replaceChildren(...want);
  setText($("byes"), j.byes.length ? say("bye", {list: j.byes.map((b) => withRank(b.name, b.rank)).join(", ")}) : "");
}
let penaltiesSet = false;
/** The round to open: the hall's choice (the round in play, else the first whose games lack a
 * result: never yesterday's finished round on match morning), else the newest with a game on
 * a board. */
async function roundToOpen(j) {
  if (j.round_to_open && j.rounds.includes(j.round_to_open)) return j.round_to_open;
  if (j.round_in_play && j.rounds.includes(j.round_in_play)) return j.round_in_play;
  if (!boardsLoaded) await refreshBoards();
  const played = [...boards.values()].filter((b) => b.game && b.phase).map((b) => parseInt(b.round, 10)).filter((n) => j.rounds.includes(n));
  return played.length ? Math.max(...played) : (j.rounds[0] || 1);
}
async function refreshRound() {
  try {
    const r = await fetch("/api/console/round/" + (round || 1));
    if (r.status === 404 && !round) return; // no [tournament]: no Round view
    if (!r.ok) return;
    const j = await r.json();
    if (!round) { round = await roundToOpen(j); if (j.round !== round) return refreshRound(); }
    if (j.round !== round) return; // an answer for the round shown before
    $("roundBox").hidden = false;
    renderRound(j);
  } catch (e) { console.error(e); }
}
$("roundNo").onchange = (e) => { round = parseInt(e.target.value, 10); rows.clear(); $("tables").replaceChildren(); refreshRound(); };
$("startRound").onclick = async () => {
  const force = $("force").checked;
  const pen = penaltiesChosen(), penText = pen.penalties ? " " + say("startPenalties", {how: (T.pen || {})[pen.penalties]}) : "";
  if (await ask({title: T.startTitle, text: say(force ? "startForceText" : "startText", {round}) + penText, ok: T.startRound})) {
    roundPost("start", Object.assign({force}, pen));
  }
};
$("beginPlay").onclick = async () => {
  if (await ask({title: T.beginTitle, text: say("beginText", {round}), ok: T.beginPlay})) roundPost("begin", {});
};
$("confirmAll").onclick = async () => {
  const pending = ((lastRound && lastRound.tables) || []).filter((t) => t.result_state === "pending");
  if (!pending.length) { $("roundSaid").textContent = T.noPending; return; }
  const list = pending.map((t) => rowWhere(t) + ": " + resultLabel(t)).join("; ");
  if (await ask({title: T.confirmAllTitle, text: say("confirmAllText", {list}), ok: T.confirmAll})) roundPost("confirm", {all: true});
};

refresh(); refreshBoards(); refreshRound();
setInterval(refresh, 1000); setInterval(refreshBoards, 2000); setInterval(() => { if (round) refreshRound(); }, 2000);
