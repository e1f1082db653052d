// The Khmer screen: both rows, piles, discarded 6s, table total, turn, sums at close, match.
import { el } from "./cards.js";

const side = (view, p) => ({
  row: (view.rows || {})[p] || [],
  pile: (view.piles || {})[p] || [],
  hand: (view.hands || {})[p] || { known: [], size: 0 },
  match: (view.match || {})[p] ?? 0,
});

const sum = (xs) => xs.reduce((a, b) => a + Number(b), 0);

export function renderKhmer(root, state, { t }) {
  const view = (state.game && state.game.view) || {};
  const players = view.players || [];
  const camera = (state.table && state.table.zones) || {};
  root.replaceChildren(el("h2", { text: `Khmer · ${t("table_total")} ${view.table_total ?? 0}` }));
  const grid = el("div", { class: "khmer-grid" });
  for (const p of players) {
    const s = side(view, p);
    const read = camera[`row:${p}`];
    const box = el("div", { class: `khmer-side ${view.turn === p ? "turn" : ""}`, "data-player": p },
      el("div", { class: "row" }, el("strong", { text: p }), view.turn === p ? el("span", { class: "pill on", text: t("turn") }) : null,
        el("span", { class: "spacer" }), el("span", { class: "muted", text: `${t("match")} ` }),
        el("span", { class: "khmer-sum", text: `${s.match}/${view.match_target ?? 6}` })),
      el("div", { class: "muted small", text: t("row") }),
      el("div", { class: "khmer-cards" }, ...s.row.map((v) => el("span", { class: "kcard", text: String(v) }))),
      el("div", { class: "muted small", text: `${t("pile")} (${sum(s.pile)})` }),
      el("div", { class: "khmer-cards" }, ...s.pile.map((v) => el("span", { class: "kcard pile", text: String(v) }))),
      el("div", { class: "muted small", text: `${t("hand")}: ${s.hand.size}${s.hand.known.length ? " · " + s.hand.known.join(" ") : ""}` }),
      read && read.cards.length ? el("div", { class: "muted small", text: `camera: ${read.cards.join(" ")}` }) : null);
    grid.append(box);
  }
  root.append(grid);
  if ((view.out || []).length) root.append(el("p", { class: "muted", text: `6 ✕ ${view.out.length}` }));
  const close = (view.last_results || []).filter((r) => r.kind === "close").slice(-1)[0];
  if (close) {
    const totals = Object.entries(close.totals || {}).map(([p, v]) => `${p}: ${v}`).join(" · ");
    root.append(el("div", { class: "prompt info", "data-close": "1" },
      el("strong", { text: `${t("table_total")} ${close.table} — ${totals} — ` }),
      el("strong", { text: close.winner ? `${t("winner")}: ${close.winner}` : t("nobody") })));
  }
  if (view.outcome && view.outcome.winner) root.append(el("div", { class: "prompt warn", text: `${t("finished")} — ${t("winner")}: ${view.outcome.winner}` }));
}

// Manual Khmer moves for when the camera is off or a move was missed.
export function khmerButtons(root, ui, { api, act, t, players }) {
  const view = (ui.state.game && ui.state.game.view) || {};
  const awaiting = (ui.state.game && ui.state.game.awaiting) || {};
  const who = view.turn || ui.caller || players[0];
  const send = (event) => act(() => api("/api/events", { method: "POST", body: event }));
  if (awaiting.kind === "deal") {
    // Without a camera nothing records the deal: the hands are face down, so the deal
    // itself is the whole event (the referee knows who starts).
    root.replaceChildren(el("div", { class: "row wrap" },
      el("button", { class: "btn-kemps", "data-deal": "1", text: t("record_deal"), onclick: () => send({ type: "deal" }) }),
      awaiting.first ? el("span", { class: "muted", text: `${awaiting.first}: ${t("turn")}` }) : null));
    return;
  }
  root.replaceChildren(
    el("div", { class: "row wrap" }, el("strong", { text: `${who}:` }),
      el("span", { class: "muted", text: t("play") })),
    el("div", { class: "khmer-num" }, ...[1, 2, 3, 4, 5, 6].map((v) => el("button", {
      "data-play": v, text: String(v), onclick: () => send({ type: "play", player: who, card: v }),
    }))),
    el("div", { class: "targets" },
      el("button", { text: t("steal"), onclick: () => send({ type: "steal", player: who }) }),
      el("button", { text: t("discard6"), onclick: () => send({ type: "discard", player: who, card: 6 }) }),
      el("button", { class: "btn-kemps", text: t("close_k"), onclick: () => send({ type: "close", player: who }) }),
      el("button", { class: "btn-cut", text: t("fold"), onclick: () => send({ type: "fold", player: who }) })),
  );
}
