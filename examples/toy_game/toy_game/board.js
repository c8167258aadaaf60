// Climb's board, declared by the game (toy_game/__init__.py: board) and drawn by Governor's pages: the
// status bar and a panel per seat (its ladder face up, its hand face up or face down as the view sent
// it), from one step's rows. It lays out what the game's view sent and computes no rule: a hand the view
// hides arrives as its size only, a score that counts it not at all. The helpers (esc, num, list,
// rowAt, chip, nameHtml, panelHead, panelClass, seatName) are the page's.

const CLIMB_NOW = { draw: "draw or stay", climb: "climb or rest", over: "game over" };

function climbCard(value, cls) {
  return `<span class="climb-card climb-v${esc(value)}${cls ? ` ${cls}` : ""}" title="${esc(value)}">${esc(value)}</span>`;
}

function draw(game, step) {
  const t = rowAt(game, game.table, step);
  const facts = game.data.catalogue || {};
  const over = t.stage === "over";
  const acting = t.to_act;
  const waiting = acting !== null && acting !== undefined ? ` · <b>to act</b> ${nameHtml(seatName(game, acting), "who")}` : "";
  const pile = Number(t.pile || 0);
  const bar = '<div class="bar">'
    + `<span><b>Round</b> <span class="round-now">${esc(num(t.round))}</span> of ${esc(num(facts.rounds))}</span>`
    + `<span><b>Now</b> ${esc(CLIMB_NOW[t.stage] || String(t.stage || ""))}${waiting}</span>`
    + `<span><b>Pile</b> ${pile ? `${esc(pile)} cards, face down` : "empty: the last round"}</span></div>`;
  const panels = game.seats.map((cols, seat) => {
    const p = rowAt(game, cols, step);
    const flags = { governor: false, acting: seat === acting, winner: over && list(game.data.winners).includes(seat) };
    const ladder = list(p.ladder);
    const hidden = !Array.isArray(p.hand);
    const size = Number(p.hand_size || 0);
    // A score the view does not send counts a hidden hand: it is shown as unknown, never guessed.
    const vp = p.vp === null || p.vp === undefined ? "?" : p.vp;
    const parts = hidden ? "the score counts the hand, which this view does not see" : "ladder minus hand";
    const climbed = ladder.map((v, i) => climbCard(v, i === ladder.length - 1 ? "climb-top" : "")).join("")
      || '<span class="meta">(empty: any card starts it)</span>';
    let hand;
    if (hidden) {
      hand = size ? `<span class="climb-backs" title="${size} cards, face down">${'<span class="climb-back"></span>'.repeat(size)}</span>`
        : '<span class="meta">(empty)</span>';
    } else {
      hand = list(p.hand).map((v) => climbCard(v, "")).join("") || '<span class="meta">(empty)</span>';
    }
    return `<div class="${panelClass(flags)}" data-seat="${seat}">`
      + panelHead(game.names[seat], vp, parts, flags)
      + `<div class="meta">Ladder ${ladder.length} · top ${esc(num(p.ladder_top))} · Hand ${esc(num(p.hand_size))}</div>`
      + `<div class="section">Ladder</div><div class="climb-ladder">${climbed}</div>`
      + `<div class="section">Hand (${esc(num(p.hand_size))})</div><div class="climb-hand">${hand}</div></div>`;
  });
  return { bar, panels, cls: "players" };
}
