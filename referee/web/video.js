// Camera view: frames from /ws/video drawn on a canvas with zones and card boxes on top,
// and the calibration canvas where zones are drawn on a still frame.
import { cardLabel } from "./cards.js";

const ZONE_COLORS = { market: "#f2c14e", reveal: "#4cc38a", row: "#6cb4ff", pile: "#c38cff", discard: "#ff8c8c" };

function zoneColor(name) { return ZONE_COLORS[name.split(":")[0]] || "#ffffff"; }

export class CameraView {
  constructor(canvas, msg, wsUrl) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.msg = msg;
    this.wsUrl = wsUrl;
    this.layout = null; // {size:[w,h], zones:{name:[[x,y],…]}}
    this.showZones = true;
    this.showCards = true;
    this.frames = 0;
  }

  setLayout(layout) { this.layout = layout && layout.size ? layout : null; }

  connect() {
    const ws = new WebSocket(this.wsUrl);
    ws.binaryType = "arraybuffer";
    ws.onmessage = (ev) => { if (ev.data instanceof ArrayBuffer) this.onPacket(ev.data); };
    ws.onclose = () => setTimeout(() => this.connect(), 1500);
    this.ws = ws;
  }

  async onPacket(buf) {
    const view = new DataView(buf);
    const n = view.getUint32(0);
    const overlay = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 4, n)));
    const blob = new Blob([new Uint8Array(buf, 4 + n)], { type: "image/jpeg" });
    const bitmap = await createImageBitmap(blob);
    this.draw(bitmap, overlay);
    bitmap.close();
    this.frames += 1;
    this.msg.textContent = "";
  }

  draw(bitmap, overlay) {
    const c = this.canvas;
    if (c.width !== bitmap.width || c.height !== bitmap.height) { c.width = bitmap.width; c.height = bitmap.height; }
    const ctx = this.ctx;
    ctx.drawImage(bitmap, 0, 0);
    if (this.showZones && this.layout) drawZones(ctx, this.layout, c.width, c.height);
    if (this.showCards) {
      ctx.font = `bold ${Math.max(12, Math.round(c.width / 55))}px DejaVu Sans, sans-serif`;
      for (const d of overlay.cards || []) {
        const [x1, y1, x2, y2] = d.box;
        ctx.strokeStyle = d.confidence >= 0.8 ? "#4cc38a" : "#f29e4c";
        ctx.lineWidth = 2;
        ctx.strokeRect(x1, y1, x2 - x1, y2 - y1);
        const label = `${cardLabel(d.card)} ${(d.confidence * 100).toFixed(0)}%`;
        const w = ctx.measureText(label).width + 8;
        ctx.fillStyle = "rgba(0,0,0,.7)";
        ctx.fillRect(x1, Math.max(0, y1 - 20), w, 20);
        ctx.fillStyle = "#fff";
        ctx.fillText(label, x1 + 4, Math.max(14, y1 - 5));
      }
    }
  }
}

export function drawZones(ctx, layout, w, h) {
  const sx = w / layout.size[0], sy = h / layout.size[1];
  ctx.lineWidth = 2;
  ctx.font = "12px DejaVu Sans, sans-serif";
  for (const [name, poly] of Object.entries(layout.zones || {})) {
    if (!poly.length) continue;
    ctx.strokeStyle = zoneColor(name);
    ctx.setLineDash([6, 4]);
    ctx.beginPath();
    poly.forEach(([x, y], i) => (i ? ctx.lineTo(x * sx, y * sy) : ctx.moveTo(x * sx, y * sy)));
    ctx.closePath();
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = zoneColor(name);
    ctx.fillText(name, poly[0][0] * sx + 4, poly[0][1] * sy + 14);
  }
}

// Calibration: drag a rectangle on the still; `onZone(polygon in layout pixels)`.
export class Calibrator {
  constructor(canvas, onZone) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.onZone = onZone;
    this.image = null;
    this.layout = null;
    this.drag = null;
    canvas.addEventListener("pointerdown", (e) => { this.drag = { a: this.point(e), b: this.point(e) }; canvas.setPointerCapture(e.pointerId); });
    canvas.addEventListener("pointermove", (e) => { if (this.drag) { this.drag.b = this.point(e); this.render(); } });
    canvas.addEventListener("pointerup", () => this.finish());
  }

  point(e) {
    const r = this.canvas.getBoundingClientRect();
    return [(e.clientX - r.left) * (this.canvas.width / r.width), (e.clientY - r.top) * (this.canvas.height / r.height)];
  }

  async load(url, layout) {
    this.layout = layout;
    const res = await fetch(url, { cache: "no-store" });
    if (!res.ok) { const body = await res.json().catch(() => ({})); throw new Error(body.message || res.statusText); }
    this.image = await createImageBitmap(await res.blob());
    this.canvas.width = this.image.width;
    this.canvas.height = this.image.height;
    this.render();
  }

  render() {
    const { ctx, canvas } = this;
    if (this.image) ctx.drawImage(this.image, 0, 0); else { ctx.fillStyle = "#000"; ctx.fillRect(0, 0, canvas.width, canvas.height); }
    if (this.layout) drawZones(ctx, this.layout, canvas.width, canvas.height);
    if (this.drag) {
      const [[x1, y1], [x2, y2]] = [this.drag.a, this.drag.b];
      ctx.strokeStyle = "#fff"; ctx.lineWidth = 2; ctx.setLineDash([]);
      ctx.strokeRect(Math.min(x1, x2), Math.min(y1, y2), Math.abs(x2 - x1), Math.abs(y2 - y1));
    }
  }

  finish() {
    if (!this.drag || !this.layout) { this.drag = null; return; }
    const [[ax, ay], [bx, by]] = [this.drag.a, this.drag.b];
    this.drag = null;
    if (Math.abs(bx - ax) < 8 || Math.abs(by - ay) < 8) { this.render(); return; }
    const sx = this.layout.size[0] / this.canvas.width, sy = this.layout.size[1] / this.canvas.height;
    const [x1, x2] = [Math.min(ax, bx) * sx, Math.max(ax, bx) * sx];
    const [y1, y2] = [Math.min(ay, by) * sy, Math.max(ay, by) * sy];
    this.onZone([[x1, y1], [x2, y1], [x2, y2], [x1, y2]].map(([x, y]) => [Math.round(x), Math.round(y)]));
  }
}
