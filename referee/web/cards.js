// Card rendering and the click-to-correct card picker.
export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
export const SUITS = ["C", "D", "H", "S"];
const SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
}

export function splitCard(card) {
  const s = String(card || "");
  return { rank: s.slice(0, -1), suit: s.slice(-1) };
}

export function cardLabel(card) {
  const { rank, suit } = splitCard(card);
  return rank + (SYMBOL[suit] || suit);
}

// A card face; `confidence` (0..1) draws a bar at the bottom, low ones in orange.
export function cardEl(card, { confidence = null, small = false, onclick = null, extra = "" } = {}) {
  if (!card) {
    const empty = el("div", { class: `card empty ${small ? "small" : ""} ${onclick ? "clickable" : ""} ${extra}` }, el("span", { class: "suit", text: "?" }));
    if (onclick) empty.addEventListener("click", onclick);
    return clickable(empty, onclick);
  }
  const { rank, suit } = splitCard(card);
  const red = suit === "H" || suit === "D";
  const node = el("div", {
    class: `card ${red ? "red" : ""} ${small ? "small" : ""} ${onclick ? "clickable" : ""} ${extra}`,
    "data-card": card, title: confidence == null ? card : `${card} ${(confidence * 100).toFixed(0)}%`,
  }, el("span", { class: "rank", text: rank }), el("span", { class: "suit", text: SYMBOL[suit] || suit }));
  if (confidence != null) {
    node.append(el("span", { class: `conf ${confidence < 0.8 ? "low" : ""}`, style: `width:${Math.round(confidence * 100)}%` }));
  }
  if (onclick) node.addEventListener("click", onclick);
  return clickable(node, onclick);
}

// A clickable card is a button to the keyboard and to screen readers too: a div is skipped by
// Tab, so the market could not be entered nor a revealed card corrected without a mouse.
function clickable(node, onclick) {
  if (!onclick) return node;
  node.setAttribute("role", "button");
  node.setAttribute("tabindex", "0");
  if (!node.getAttribute("aria-label")) node.setAttribute("aria-label", node.dataset.card ? `card ${node.dataset.card}` : "choose a card");
  node.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); onclick(ev); }
  });
  return node;
}

// Opens the picker dialog; resolves with a card string, null (remove) or undefined (cancel).
export function pickCard(dialog) {
  const grid = dialog.querySelector("#card-picker");
  grid.replaceChildren();
  return new Promise((resolve) => {
    let done = false;
    const finish = (v) => { if (!done) { done = true; dialog.close(); resolve(v); } };
    for (const suit of SUITS) {
      for (const rank of RANKS) {
        const card = rank + suit;
        grid.append(el("button", { class: suit === "H" || suit === "D" ? "red" : "", "data-card": card,
          type: "button", text: cardLabel(card), onclick: () => finish(card) }));
      }
    }
    dialog.querySelector("#card-remove").onclick = () => finish(null);
    dialog.addEventListener("close", () => finish(undefined), { once: true });
    dialog.showModal();
  });
}
