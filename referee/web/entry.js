// Cards a person enters by clicking: reveal corrections, the market without a camera,
// and the Kem's "show" / "redraw" cards. Each sends one REST call; the server decides.
import { api } from "./api.js";
import { cardEl, el, pickCard } from "./cards.js";
import { t } from "./i18n.js";
import { $, act, ui } from "./store.js";

// Kem's "show" (after a wrong Contre Kem's) and "redraw" (3-4 identical cards at the deal):
// the cards a player shows, entered by clicking, recorded as one event per player.
export function renderEntry(a) {
  const box = $("#entry");
  const kind = a.kind === "show" || a.kind === "redraw" ? a.kind : null;
  box.hidden = !kind;
  if (!kind) { ui.shown = null; return; }
  const slots = kind === "show" ? Number(a.count || 2) : 4;
  const need = kind === "show" ? slots : 3;
  // Picks are kept per player while the same kind of entry stays open: when one player's
  // cards are recorded the list of players shrinks, and the others' picks in progress must
  // survive that update (keyed on the whole list, they were wiped when it arrived late).
  const players = a.players || [];
  if (!ui.shown || ui.shown.kind !== kind) ui.shown = { kind, cards: {} };
  for (const p of Object.keys(ui.shown.cards)) if (!players.includes(p)) delete ui.shown.cards[p];
  box.replaceChildren();
  for (const p of players) {
    const cards = ui.shown.cards[p] || (ui.shown.cards[p] = Array(slots).fill(null));
    const row = el("div", { class: "seat-hand", "data-entry": p }, el("span", { class: "seat-name", text: p }));
    cards.forEach((card, i) => row.append(cardEl(card, { small: true, onclick: async () => {
      const picked = await pickCard($("#dlg-card"));
      if (picked === undefined) return;
      cards[i] = picked;
      renderEntry((ui.state && ui.state.game.awaiting) || {});  // the newest state: another player may have recorded meanwhile
    } })));
    const chosen = cards.filter(Boolean);
    const event = kind === "show" ? { type: "show", player: p, cards: chosen } : { type: "redraw", player: p, shown: chosen };
    row.append(el("button", { class: "primary", text: t("record"), disabled: chosen.length < need,
      onclick: () => act(() => api("/api/events", { method: "POST", body: event })) }));
    box.append(row);
  }
}

export async function correctCard(seat, cards, index) {
  const picked = await pickCard($("#dlg-card"));
  if (picked === undefined) return;
  const next = [...cards];
  if (picked === null) next.splice(index, 1); else next[index] = picked;
  await act(() => api("/api/reveal/correct", { method: "POST", body: { seat, cards: next } }));
}

// Without a camera reading, a person enters the dealt (or reset) market by clicking cards.
export function renderMarketEntry(awaiting) {
  const kind = awaiting.kind === "deal" ? "deal" : awaiting.kind === "reset" ? "reset" : null;
  const cameraReads = ui.state.feed && ui.state.feed.reader === "ok";
  const box = $("#market-entry");
  box.hidden = !kind || cameraReads;
  if (box.hidden) { ui.entry = null; return; }
  if (!ui.entry || ui.entry.kind !== kind) ui.entry = { kind, cards: [null, null, null, null] };
  $("#market-entry-label").textContent = t(kind === "deal" ? "enter_deal" : "enter_reset");
  const slots = ui.entry.cards.map((card, i) => cardEl(card, { small: true, onclick: async () => {
    const picked = await pickCard($("#dlg-card"));
    if (picked === undefined) return;
    ui.entry.cards[i] = picked;
    renderMarketEntry(awaiting);
  } }));
  slots.forEach((s, i) => { s.dataset.slot = i; s.classList.add("clickable"); });
  $("#market-entry-cards").replaceChildren(...slots);
  const btn = $("#btn-market-entry");
  btn.textContent = t(kind === "deal" ? "record_deal" : "record_reset");
  btn.disabled = ui.entry.cards.some((c) => !c);
  btn.onclick = async () => {
    const out = await act(() => api("/api/events", { method: "POST", body: { type: kind, market: ui.entry.cards } }));
    if (out) ui.entry = null;
  };
}
