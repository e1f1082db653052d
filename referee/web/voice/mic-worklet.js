// AudioWorkletProcessor: microphone Float32 blocks (128 samples) → Int16 PCM at 16 kHz,
// posted to the main thread in batches of ~20–40 ms (transferable ArrayBuffers).
// When the AudioContext could not run at 16 kHz (Safari/Firefox may ignore the
// requested sampleRate), the audio is low-passed and resampled here.
class Pcm16Batcher extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const o = (options && options.processorOptions) || {};
    this.targetRate = o.targetRate || 16000;
    this.batch = Math.round(this.targetRate * (o.batchMs || 20) / 1000);
    this.out = new Int16Array(this.batch);
    this.fill = 0;
    this.ratio = sampleRate / this.targetRate; // input samples per output sample
    this.pos = 0; // fractional read position into the current block (carried over)
    this.prev = 0; // last input sample of the previous block (for interpolation)
    // 2nd-order Butterworth low-pass below the target Nyquist (only when downsampling)
    this.lp = this.ratio > 1 ? biquadLowpass(sampleRate, 0.45 * this.targetRate) : null;
    this.z1 = 0; this.z2 = 0;
  }

  push(v) {
    const s = Math.max(-1, Math.min(1, v));
    this.out[this.fill++] = s < 0 ? s * 0x8000 : s * 0x7fff;
    if (this.fill === this.batch) {
      this.port.postMessage(this.out.buffer, [this.out.buffer]);
      this.out = new Int16Array(this.batch);
      this.fill = 0;
    }
  }

  process(inputs) {
    const ch = inputs[0] && inputs[0][0];
    if (!ch) return true; // no input yet (device starting): keep the node alive
    if (this.ratio === 1) {
      for (let i = 0; i < ch.length; i++) this.push(ch[i]);
      return true;
    }
    let x = ch;
    if (this.lp) {
      const f = this.lp; x = new Float32Array(ch.length);
      for (let i = 0; i < ch.length; i++) { // transposed direct form II
        const y = f.b0 * ch[i] + this.z1;
        this.z1 = f.b1 * ch[i] - f.a1 * y + this.z2;
        this.z2 = f.b2 * ch[i] - f.a2 * y;
        x[i] = y;
      }
    }
    // linear interpolation; position -1 refers to the previous block's last sample
    while (this.pos < x.length - 1 + 1e-9) {
      const i = Math.floor(this.pos), frac = this.pos - i;
      const a = i < 0 ? this.prev : x[i];
      const b = x[Math.min(i + 1, x.length - 1)];
      this.push(a + (b - a) * frac);
      this.pos += this.ratio;
    }
    this.pos -= x.length;
    this.prev = x[x.length - 1];
    return true;
  }
}

function biquadLowpass(rate, cutoff) {
  const w = 2 * Math.PI * cutoff / rate, c = Math.cos(w), alpha = Math.sin(w) / Math.SQRT2;
  const a0 = 1 + alpha;
  return { b0: (1 - c) / 2 / a0, b1: (1 - c) / a0, b2: (1 - c) / 2 / a0, a1: -2 * c / a0, a2: (1 - alpha) / a0 };
}

registerProcessor("pcm16-batcher", Pcm16Batcher);
