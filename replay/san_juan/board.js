// San Juan's board, declared by the game (replay/san_juan/__init__.py: board) and drawn by the pages'
// BOARD_TABLE: the status bar and a panel per seat, from one step's rows as the view sent them. Card
// colours, costs and VP come from the catalogue the server sends (view.board_catalogue), the final
// scoring from the view too; the helpers (esc, chip, panelHead...) are the component's.

const SJ_STAGES = {
  over: "game over", role: "choosing a role", chapel: "chapel (start of turn)",
  hand_limit: "discarding to the hand limit", draft: "drafting the starting hand",
};

function sjGoodsOnBuildings(buildings, goods, cards) {
  const pending = goods.slice();
  return buildings.map((name) => {
    const card = cards[name];
    const good = card ? card.good : null;
    if (pending.length && good && good === pending[0]) { return pending.shift(); }
    return null;
  });
}

function sjCard(name, good, cards) {
  const card = cards[name];
  const cost = card ? card.cost : "?";
  const vpText = card ? card.vp_text : "? VP";
  const title = `${name}: cost ${cost}, ${card ? card.vp : "?"} VP` + (good ? `, holds ${good}` : "");
  const goodHtml = good ? `<span class="good good-${esc(good)}" title="${esc(good)}" data-piece="${esc(good)}"></span>` : "";
  return `<div class="card ${esc(card ? card.cls : "violet")}" title="${esc(title)}" data-piece="${esc(name)}"><span class="cost">${esc(cost)}</span>`
    + `<span class="vp">${esc(vpText)}</span><span class="cname">${esc(name)}</span>${goodHtml}</div>`;
}

function draw(game, step) {
  const t = rowAt(game, game.table, step);
  const cards = game.data.catalogue.cards || {};
  const tiles = game.data.catalogue.tiles || {};
  const taken = list(t.roles_taken);
  const roleChips = list(game.data.catalogue.roles).map((r) => chip(r, t.role === r && taken.includes(r) ? "now" : taken.includes(r) ? "done" : "", r)).join("");
  let tile;
  if (t.tile) {
    const prices = (tiles[String(t.tile)] || []).map(([g, p]) => `${g} ${p}`).join(", ");
    tile = `<b>Trading house</b> tile ${esc(t.tile)} <span title="cards paid per good">(${esc(prices)})</span>`;
  } else {
    // The next tile's number is in the row of the "everything" view only.
    tile = t.next_tile ? `<b>Trading house</b> next tile ${esc(t.next_tile)} (face down)` : "<b>Trading house</b> tiles face down";
  }
  const stage = t.stage === "phase" ? `${t.role} phase` : (SJ_STAGES[t.stage] || String(t.stage || "").replace(/_/g, " "));
  const acting = t.to_act;
  const waiting = acting !== null && acting !== undefined ? ` · <b>to act</b> ${nameHtml(seatName(game, acting), "who")}` : "";
  const bar = '<div class="bar">'
    + `<span><b>Round</b> <span class="round-now">${esc(num(t.round))}</span></span>`
    + `<span><b>Governor</b> ${nameHtml(seatName(game, t.governor), "who")}</span>`
    + `<span><b>Now</b> ${esc(stage)}${waiting}</span>`
    + `<span><b>Roles</b> ${roleChips}</span>`
    + `<span><b>Draw pile</b> ${esc(num(t.draw_pile))}</span>`
    + `<span><b>Discard pile</b> ${esc(num(t.discard_pile))}</span>`
    + `<span>${tile}</span></div>`;
  const over = t.stage === "over";
  const panels = game.seats.map((cols, seat) => {
    const p = rowAt(game, cols, step);
    const flags = { governor: seat === t.governor, acting: seat === acting, winner: over && game.data.winners.includes(seat) };
    const buildings = list(p.buildings);
    const goods = list(p.goods);
    const placed = sjGoodsOnBuildings(buildings, goods, cards);
    const parts = `buildings ${num(p.vp_buildings)} + chapel ${num(p.vp_chapel)} + bonus ${num(p.vp_bonus)}`;
    const built = buildings.map((b, i) => sjCard(b, placed[i], cards)).join("");
    let hand;
    if (Array.isArray(p.hand)) {
      hand = p.hand.map((c) => {
        const card = cards[c];
        const tip = card ? `${c}: cost ${card.cost}, ${card.vp} VP` : c;
        return `<span class="mini ${esc(card ? card.cls : "violet")}" title="${esc(tip)}" data-piece="${esc(c)}">${esc(c)}</span>`;
      }).join("") || '<span class="meta">(empty)</span>';
    } else {
      const n = Number(p.hand_size || 0);
      hand = n ? `<span class="backs" title="${n} cards, face down">${'<span class="back"></span>'.repeat(Math.min(n, 14))}</span>`
        : '<span class="meta">(empty)</span>';
    }
    const covered = list(p.covered);
    return `<div class="${panelClass(flags)}" data-seat="${seat}">`
      + panelHead(game.names[seat], p.vp, parts, flags)
      + `<div class="meta">Hand ${esc(num(p.hand_size))} · Goods ${goods.length} · Chapel ${esc(num(p.chapel_cards))}`
      + ` · ${buildings.length}/${esc(game.data.catalogue.city_size)} buildings</div>`
      + `<div class="cards">${built}</div>`
      + (covered.length ? `<div class="meta">Under cranes: ${esc(covered.join(", "))}</div>` : "")
      + `<div class="section">Hand (${esc(num(p.hand_size))})</div><div class="hand">${hand}</div></div>`;
  });
  return { bar, panels, cls: "players" };
}
