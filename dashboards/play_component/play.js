// The Play page in the browser: the Replay board of the game so far in the player's seat view, the
// bots' moves shown one by one (skippable), the player's legal moves as buttons, and the board's
// pieces as shortcuts to them. What the seat may not see never reaches the browser (the server sends
// one seat's view: dashboards/play_board.py); every move goes back to the server, which checks it.
// The drawing helpers and BOARD_TABLE are the Replay component's own (put before this script).

const STEP_MS = 900;
// Moves of one kind listed open at most; more are folded under a summary.
const FOLD_OVER = 40;

const PLAY_HTML = `<div class="gv-root gv-play">
  <div class="pl-status" role="status" aria-live="polite"></div>
  <div class="pl-anim" hidden><span class="pl-anim-text"></span><button type="button" class="pl-skip">Skip</button></div>
  <div class="pl-legal"><div class="pl-tools"></div><div class="pl-list" role="group" aria-label="legal moves"></div></div>
  <div class="pl-note" role="alert"></div>
  <div class="pl-main">
    <div class="pl-boardcol"><div class="board"></div><div class="scoring" hidden></div></div>
    <div class="pl-side"><div class="sidehead">Moves</div><div class="moves pl-moves" tabindex="-1"></div></div>
  </div>
</div>`;

// A name as a board and a move may both write it: "Some card", "some_card", "some  CARD".
function norm(text) {
  return String(text === null || text === undefined ? "" : text).replace(/_/g, " ").replace(/\s+/g, " ").trim().toLowerCase();
}

function kindWords(kind) { return String(kind).replace(/_/g, " "); }

// What a piece of the board names: the name its board gives it as moves write it (``data-piece``).
function tokensOf(el) {
  return [norm(el.getAttribute("data-piece"))].filter(Boolean);
}

// Every name a move's JSON holds (values, and the keys of its maps), in its field order.
function leavesOf(move) {
  const out = [];
  for (const [field, value] of Object.entries(move)) {
    if (field === "kind") { continue; }
    if (Array.isArray(value)) { value.forEach((v) => out.push([field, norm(v)])); }
    else if (value && typeof value === "object") { Object.keys(value).forEach((k) => out.push([field, norm(k)])); }
    else if (typeof value === "string") { out.push([field, norm(value)]); }
  }
  return out;
}

// The parts of a kind of move, from its variants (as dashboards/play_board.py's parts_of makes them).
function partsOf(moves) {
  const fields = {};
  moves.forEach((m) => {
    for (const [name, value] of Object.entries(m)) {
      if (name === "kind") { continue; }
      const f = fields[name] || (fields[name] = { type: null, values: new Map() });
      if (Array.isArray(value)) {
        f.type = "list";
        const counts = new Map();
        value.forEach((v) => counts.set(String(v), (counts.get(String(v)) || 0) + 1));
        counts.forEach((n, v) => f.values.set(v, Math.max(n, f.values.get(v) || 0)));
      } else if (value && typeof value === "object") {
        f.type = "map";
        Object.entries(value).forEach(([k, n]) => f.values.set(k, Math.max(Number(n), f.values.get(k) || 0)));
      } else {
        f.type = f.type || "scalar";
        f.values.set(JSON.stringify(value), 1);
      }
    }
  });
  const out = {};
  for (const [name, f] of Object.entries(fields)) {
    out[name] = f.type === "scalar" ? { type: "scalar", values: Array.from(f.values.keys()).map((v) => JSON.parse(v)) }
      : { type: f.type, values: Array.from(f.values.entries()) };
  }
  return out;
}

// Two moves' JSON forms alike (a list's order aside, a map's zero counts aside).
function canon(move) {
  const out = {};
  Object.keys(move).sort().forEach((k) => {
    const v = move[k];
    if (Array.isArray(v)) { out[k] = v.map(String).sort(); }
    else if (v && typeof v === "object") {
      const m = {};
      Object.keys(v).sort().forEach((key) => { if (Number(v[key])) { m[key] = Number(v[key]); } });
      out[k] = m;
    } else { out[k] = v; }
  });
  return JSON.stringify(out);
}

function setupPlay(parent, host) {
  const root = document.createElement("div");
  root.innerHTML = PLAY_HTML;
  parent.appendChild(root);
  const el = (sel) => root.querySelector(sel);
  const ui = {
    root: el(".gv-root"), status: el(".pl-status"), anim: el(".pl-anim"), animText: el(".pl-anim-text"),
    skip: el(".pl-skip"), legal: el(".pl-legal"), tools: el(".pl-tools"), list: el(".pl-list"), note: el(".pl-note"), board: el(".board"), scoring: el(".scoring"),
    moves: el(".pl-moves"),
  };
  const s = { ui, host, data: null, game: null, step: 0, timer: 0, pick: null, filter: null, busy: false, open: new Set() };
  ui.skip.addEventListener("click", () => { stopAnimation(s); s.step = s.game.total; renderAll(s); });
  ui.board.addEventListener("click", (event) => boardClick(s, event));
  ui.legal.addEventListener("click", (event) => legalClick(s, event));
  ui.list.addEventListener("toggle", (event) => {
    const fold = event.target;
    if (fold.open) { s.open.add(fold.dataset.kind); } else { s.open.delete(fold.dataset.kind); }
  }, true);
  return s;
}

function animating(s) { return Boolean(s.game) && s.step < s.game.total; }

function stopAnimation(s) { clearTimeout(s.timer); s.timer = 0; }

function animate(s) {
  stopAnimation(s);
  if (!animating(s)) { return; }
  s.timer = setTimeout(() => { s.timer = 0; s.step += 1; renderAll(s); animate(s); }, STEP_MS);
}

function moveWords(game, step) {
  const i = game.moveIndex.get(step);
  if (i === undefined) { return ""; }
  const m = game.data.moves;
  const who = seatName(game, m.seat[i]);
  return `${who}: ${m.words[i]}`;
}

function renderAll(s) {
  const { ui, game, data } = s;
  const step = s.step;
  const parts = BOARD_TABLE[game.data.game] ? BOARD_TABLE[game.data.game](game, step) : null;
  if (parts) {
    ui.board.innerHTML = `<div class="barbox">${parts.bar}</div><div class="${esc(parts.cls)}">`
      + parts.panels.map((p) => `<div class="slot">${p}</div>`).join("") + "</div>";
  }
  const over = data.over && step === game.total;
  const scoring = parts && game.data.scoring && over ? scoringHtml(game, game.data.scoring) : "";
  ui.scoring.innerHTML = scoring;
  ui.scoring.hidden = !scoring;
  // The move list: what happened so far as this seat knew it (the newest at the bottom, in view).
  const m = game.data.moves;
  let rows = "";
  for (let i = 0; i < m.step.length && m.step[i] <= step; i++) {
    const events = list(m.events[i]).length ? `<span class="ev">${esc(list(m.events[i]).join("; "))}</span>` : "";
    rows += `<div class="mv${m.step[i] === step ? " current" : ""}" data-step="${m.step[i]}"><span class="n">${m.step[i]}</span>`
      + `<span class="body">${esc(m.words[i])}${events}</span></div>`;
  }
  ui.moves.innerHTML = rows || '<div class="meta pl-empty">No move yet.</div>';
  ui.moves.scrollTop = ui.moves.scrollHeight;
  const moving = animating(s);
  ui.anim.hidden = !moving;
  ui.animText.textContent = moving ? `Move ${step + 1} of ${game.total}: ${moveWords(game, step + 1)}` : "";
  const seat = data.seat;
  const me = seatName(game, seat);
  let status;
  if (over) {
    const winners = list(game.data.winners).map((w) => iso(seatName(game, w)));
    status = "Game over" + (winners.length ? ` \u00b7 ${winners.length > 1 ? "winners" : "winner"} ${winners.join(", ")}` : "");
  }
  else if (moving) { status = "The bots are moving\u2026"; }
  else if (data.to_act === seat) { status = `Your move, ${iso(me)}`; }
  else { status = `Waiting for ${iso(seatName(game, data.to_act))}`; }
  if (!moving && !over && data.asked) {
    // The move's words name its mover already ("Ana chooses ...; ...").
    status += ` \u00b7 ${data.asked.words}: your part of it is asked`;
  }
  ui.status.textContent = status;
  ui.root.setAttribute("data-step", String(step));
  ui.root.setAttribute("data-total", String(game.total));
  ui.root.setAttribute("data-version", String(data.version));
  ui.root.setAttribute("data-state", over ? "over" : moving ? "moving" : data.to_act === seat ? "deciding" : "waiting");
  renderLegal(s);
}

// -- the legal moves ------------------------------------------------------------------------------

function sentMoves(s) { return list(s.data.legal && s.data.legal.moves); }
function partKinds(s) { return (s.data.legal && s.data.legal.parts) || {}; }

// A kind of move is assembled part by part when one of its fields is a list or a map (cards kept, a
// payment, pieces placed, goods stored) and it has several variants.
function assembled(s, kind) {
  if (partKinds(s)[kind]) { return partKinds(s)[kind].fields; }
  const moves = sentMoves(s).filter((m) => m.move.kind === kind).map((m) => m.move);
  if (moves.length < 2) { return null; }
  const parts = partsOf(moves);
  return Object.values(parts).some((f) => f.type !== "scalar") ? parts : null;
}

function startPick(s, kind) {
  const fields = assembled(s, kind);
  if (!fields) { return false; }
  const chosen = {};
  for (const [name, f] of Object.entries(fields)) {
    if (f.type === "scalar") { chosen[name] = f.values.length === 1 ? f.values[0] : undefined; }
    else if (f.type === "list") { chosen[name] = []; }
    else { chosen[name] = {}; }
  }
  s.pick = { kind, fields, chosen };
  s.filter = null;
  return true;
}

function pickedMove(s) {
  const move = { kind: s.pick.kind };
  for (const [name, value] of Object.entries(s.pick.chosen)) {
    if (value !== undefined) { move[name] = value; }
  }
  return move;
}

function pickMatch(s) {
  const want = canon(pickedMove(s));
  return sentMoves(s).find((m) => canon(m.move) === want) || null;
}

function missingScalar(s) {
  return Object.entries(s.pick.fields).find(([name, f]) => f.type === "scalar" && s.pick.chosen[name] === undefined);
}

function pickHtml(s) {
  const { fields, chosen, kind } = s.pick;
  let html = `<div class="pl-pick"><div class="pl-head">${esc(kindWords(kind))}: choose its parts (on the board or here), then confirm</div>`;
  for (const [name, f] of Object.entries(fields)) {
    html += `<div class="pl-field"><span class="pl-fname">${esc(kindWords(name))}</span>`;
    if (f.type === "scalar") {
      html += f.values.map((v) => `<button type="button" class="pl-part${JSON.stringify(chosen[name]) === JSON.stringify(v) ? " on" : ""}" `
        + `data-field="${esc(name)}" data-value="${esc(JSON.stringify(v))}" aria-pressed="${JSON.stringify(chosen[name]) === JSON.stringify(v)}">${esc(v === null ? "none" : v)}</button>`).join("");
    } else {
      html += f.values.map(([item, most]) => {
        const n = f.type === "list" ? chosen[name].filter((x) => x === item).length : Number(chosen[name][item] || 0);
        const count = most > 1 || f.type === "map" ? ` ${n}/${most}` : "";
        return `<button type="button" class="pl-part${n ? " on" : ""}" data-field="${esc(name)}" data-item="${esc(item)}" aria-pressed="${n > 0}">`
          + `${esc(item)}${esc(count)}</button>`;
      }).join("");
    }
    html += "</div>";
  }
  const match = pickMatch(s);
  const missing = missingScalar(s);
  const label = match ? `Confirm: ${match.text}` : "Confirm";
  html += `<div class="pl-field"><button type="button" class="pl-confirm" ${missing ? "disabled" : ""}>${esc(label)}</button>`
    + '<button type="button" class="pl-cancel">Cancel</button>'
    + (missing ? `<span class="meta"> choose its ${esc(kindWords(missing[0]))}</span>` : "") + "</div></div>";
  return html;
}

function renderLegal(s) {
  const { ui, data } = s;
  const deciding = !animating(s) && !data.over && data.to_act === data.seat && !s.busy;
  ui.root.toggleAttribute("data-busy", s.busy);
  if (!deciding) { ui.tools.innerHTML = ""; ui.list.innerHTML = ""; ui.legal.hidden = true; return; }
  ui.legal.hidden = false;
  const moves = sentMoves(s);
  const shown = s.filter ? moves.filter((m) => s.filter.includes(m)) : moves;
  const kinds = new Map();
  shown.forEach((m) => { const k = String(m.move.kind); if (!kinds.has(k)) { kinds.set(k, []); } kinds.get(k).push(m); });
  // The tools (assembling a move of several parts, the board's filter) beside the list of moves,
  // which holds the moves only, each button's text its text form.
  let tools = `<div class="pl-head">Your legal moves${s.filter ? ` (${shown.length} of ${moves.length}, from the board)` : ""}</div>`;
  if (s.pick) { tools += pickHtml(s); }
  const offers = [];
  if (!s.pick && !s.filter) {
    kinds.forEach((items, kind) => { if (assembled(s, kind)) { offers.push([kind, null]); } });
  }
  for (const [kind, part] of Object.entries(partKinds(s))) {
    if (!s.pick || s.pick.kind !== kind) { offers.push([kind, part.count]); }
  }
  if (offers.length) {
    tools += '<div class="pl-field">' + offers.map(([kind, count]) => `<button type="button" class="pl-assemble" data-kind="${esc(kind)}">`
      + `Assemble a ${esc(kindWords(kind))} move${count ? ` (${esc(count)} ways)` : ""}</button>`).join("")
      + (s.filter ? "" : '<span class="meta"> or click the board</span>') + "</div>";
  }
  if (s.filter) { tools += '<div class="pl-field"><button type="button" class="pl-all">Show all moves</button></div>'; }
  ui.tools.innerHTML = tools;
  let html = "";
  kinds.forEach((items, kind) => {
    const buttons = items.map((m) => `<button type="button" class="pl-move" data-i="${moves.indexOf(m)}" title="${esc(m.words)}">${esc(m.text)}</button>`).join("");
    // A kind with very many variants is folded: assembling it (or a click on the board) is quicker.
    const body = items.length > FOLD_OVER
      ? `<details class="pl-fold"${s.open.has(kind) ? " open" : ""} data-kind="${esc(kind)}"><summary>all ${esc(items.length)} ${esc(kindWords(kind))} moves</summary><div class="pl-buttons">${buttons}</div></details>`
      : `<div class="pl-buttons">${buttons}</div>`;
    html += `<div class="pl-kind"><span class="pl-kname">${esc(kindWords(kind))}</span>${body}</div>`;
  });
  ui.list.innerHTML = html;
}

function act(s, move) {
  if (s.busy) { return; }
  s.busy = true;
  s.ui.note.textContent = "";
  renderLegal(s);
  s.trigger("act", { id: s.data.id, version: s.data.version, move });
}

function legalClick(s, event) {
  const button = event.target.closest("button");
  if (!button || button.disabled) { return; }
  const moves = sentMoves(s);
  if (button.classList.contains("pl-move")) { act(s, moves[Number(button.dataset.i)].text); return; }
  if (button.classList.contains("pl-all")) { s.filter = null; }
  else if (button.classList.contains("pl-assemble")) { startPick(s, button.dataset.kind); }
  else if (button.classList.contains("pl-cancel")) { s.pick = null; }
  else if (button.classList.contains("pl-confirm")) {
    const match = pickMatch(s);
    act(s, match ? match.text : JSON.stringify(pickedMove(s)));
    return;
  } else if (button.classList.contains("pl-part")) {
    const name = button.dataset.field;
    if (button.dataset.value !== undefined) { s.pick.chosen[name] = JSON.parse(button.dataset.value); }
    else { bump(s, name, button.dataset.item); }
  }
  renderLegal(s);
}

// One more of ``item`` in a list or map field, back to none past the most it may hold.
function bump(s, name, item) {
  const f = s.pick.fields[name];
  const most = (f.values.find(([v]) => v === item) || [item, 1])[1];
  if (f.type === "list") {
    const held = s.pick.chosen[name].filter((x) => x === item).length;
    s.pick.chosen[name] = held >= most ? s.pick.chosen[name].filter((x) => x !== item) : [...s.pick.chosen[name], item];
  } else {
    const held = Number(s.pick.chosen[name][item] || 0);
    s.pick.chosen[name] = { ...s.pick.chosen[name], [item]: held >= most ? 0 : held + 1 };
  }
}

// A piece of the board clicked: a part of the move being assembled, else the moves that name it
// (one is played; several are listed; a kind made of parts is assembled from it).
function boardClick(s, event) {
  const { data } = s;
  if (animating(s) || data.over || data.to_act !== data.seat || s.busy) { return; }
  // A game's board marks the pieces a player may click with the name moves give them (``data-piece``).
  const el = event.target.closest("[data-piece]");
  if (!el || !s.ui.board.contains(el)) { return; }
  const tokens = tokensOf(el);
  if (s.pick && pickToken(s, tokens)) { renderLegal(s); return; }
  const moves = sentMoves(s);
  const matches = moves.filter((m) => leavesOf(m.move).some(([, leaf]) => tokens.includes(leaf)));
  const kinds = new Set(matches.map((m) => m.move.kind));
  for (const [kind, part] of Object.entries(partKinds(s))) {
    if (Object.values(part.fields).some((f) => f.values.some((v) => tokens.includes(norm(Array.isArray(v) ? v[0] : v))))) { kinds.add(kind); }
  }
  if (kinds.size === 1) {
    const kind = kinds.values().next().value;
    if (matches.length !== 1 && startPick(s, kind)) { pickToken(s, tokens); renderLegal(s); return; }
  }
  if (matches.length === 1) { act(s, matches[0].text); return; }
  if (matches.length > 1) { s.pick = null; s.filter = matches; renderLegal(s); return; }
  s.ui.note.textContent = `Nothing you can do now names ${tokens[0] || "that"}.`;
}

function pickToken(s, tokens) {
  // A part not chosen yet first, then the lists and counts, then a choice made already (changed).
  const fields = Object.entries(s.pick.fields);
  const rank = ([name, f]) => (f.type !== "scalar" ? 1 : s.pick.chosen[name] === undefined ? 0 : 2);
  for (const [name, f] of fields.sort((a, b) => rank(a) - rank(b))) {
    if (f.type === "scalar") {
      const v = f.values.find((x) => tokens.includes(norm(x)));
      if (v !== undefined) { s.pick.chosen[name] = v; return true; }
    } else {
      const item = f.values.find(([x]) => tokens.includes(norm(x)));
      if (item) { bump(s, name, item[0]); return true; }
    }
  }
  return false;
}

export default function (component) {
  const { parentElement } = component;
  const data = component.data;
  let s = parentElement.__governorPlay;
  if (!s) {
    s = setupPlay(parentElement, parentElement.host || parentElement);
    parentElement.__governorPlay = s;
  }
  s.ui.root.classList.toggle("dark", isDark(s.host));
  s.trigger = component.setTriggerValue;
  if (!data || !data.board) { return undefined; }
  // A move refused (illegal, stale) leaves the version as it was: ``answered`` changes, and the page
  // takes moves again.
  const request = `${data.id}|${data.version}|${data.seat}|${data.answered || 0}`;
  if (s.request !== request) {
    s.request = request;
    s.data = data;
    s.game = decode(data.board);
    s.pick = null;
    s.filter = null;
    s.busy = false;
    s.ui.note.textContent = "";
    // The moves this tab has not shown yet (the bots' since the player's last move) are played one
    // by one; a reload shows the position at once.
    const from = Number(data.from);
    s.step = Number.isFinite(from) ? Math.max(0, Math.min(from, s.game.total)) : s.game.total;
    renderAll(s);
  }
  if (animating(s) && !s.timer) { animate(s); }
  return () => { stopAnimation(s); };
}
