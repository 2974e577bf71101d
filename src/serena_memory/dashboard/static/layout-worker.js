// Force-directed layout of a graph, off the page's main thread (a dedicated worker).
//
// In:  { id, count, links: [[source, target, weight], ...], sizes: [radius, ...] | null,
//        iterations, chunkMs, pinned: index of a node kept in the middle, or null }
// Out: { id, positions: Float32Array [x0, y0, x1, y1, ...], done, step } after every slice
//      of about chunkMs of work, the last one with done: true.
//
// Fruchterman-Reingold from a deterministic start (a sunflower spiral, so the same graph
// always gets the same drawing), with repulsion counted only between nodes in nearby grid
// cells: each step costs about as much as the number of nodes and links, not its square,
// which keeps a few thousand nodes quick.
"use strict";

let current = 0; // the id of the layout asked for last; older ones stop

self.onmessage = (event) => {
  const job = event.data;
  current = job.id;
  run(job);
};

function run({ id, count, links, sizes, iterations, chunkMs, pinned = null }) {
  const k = 60; // ideal distance between linked nodes
  const pos = new Float32Array(2 * count);
  const disp = new Float32Array(2 * count);
  const golden = Math.PI * (3 - Math.sqrt(5));
  for (let i = 0; i < count; i += 1) {
    const r = k * 0.7 * Math.sqrt(i + 0.5);
    pos[2 * i] = r * Math.cos(i * golden);
    pos[2 * i + 1] = r * Math.sin(i * golden);
  }
  if (count <= 1) {
    self.postMessage({ id, positions: pos, done: true, step: 0 }, [pos.buffer]);
    return;
  }
  const radius = (i) => (sizes ? sizes[i] : 0);
  const largest = sizes ? Math.max(0, ...sizes) : 0;
  let temperature = k * Math.sqrt(count) * 0.5;
  const cool = Math.pow(0.5 / temperature, 1 / Math.max(iterations, 1));
  let step = 0;

  const slice = () => {
    if (id !== current) return; // a newer layout was asked for
    const until = performance.now() + chunkMs;
    while (step < iterations && performance.now() < until) {
      oneStep();
      step += 1;
    }
    const done = step >= iterations;
    const copy = pos.slice();
    self.postMessage({ id, positions: copy, done, step }, [copy.buffer]);
    if (!done) setTimeout(slice, 0); // let a newer request in between slices
  };

  function oneStep() {
    disp.fill(0);
    const cell = 2 * k + 2 * largest; // wide enough that big neighbours still push apart
    const grid = new Map();
    for (let i = 0; i < count; i += 1) {
      const key = Math.floor(pos[2 * i] / cell) * 73856093 ^ Math.floor(pos[2 * i + 1] / cell) * 19349663;
      let bucket = grid.get(key);
      if (!bucket) { bucket = []; grid.set(key, bucket); }
      bucket.push(i);
    }
    for (let i = 0; i < count; i += 1) {
      const cx = Math.floor(pos[2 * i] / cell);
      const cy = Math.floor(pos[2 * i + 1] / cell);
      for (let gx = cx - 1; gx <= cx + 1; gx += 1) {
        for (let gy = cy - 1; gy <= cy + 1; gy += 1) {
          const bucket = grid.get(gx * 73856093 ^ gy * 19349663);
          if (!bucket) continue;
          for (const j of bucket) {
            if (j <= i) continue;
            let dx = pos[2 * i] - pos[2 * j];
            let dy = pos[2 * i + 1] - pos[2 * j + 1];
            let dist = Math.hypot(dx, dy);
            if (dist < 0.01) { dx = 0.01 * (i - j); dy = 0.01; dist = Math.hypot(dx, dy); }
            if (dist > cell) continue;
            const room = k + radius(i) + radius(j);
            const force = (room * room) / dist;
            disp[2 * i] += (dx / dist) * force; disp[2 * i + 1] += (dy / dist) * force;
            disp[2 * j] -= (dx / dist) * force; disp[2 * j + 1] -= (dy / dist) * force;
          }
        }
      }
    }
    for (const [a, b, weight] of links) {
      const dx = pos[2 * a] - pos[2 * b];
      const dy = pos[2 * a + 1] - pos[2 * b + 1];
      const dist = Math.max(Math.hypot(dx, dy), 0.01);
      const force = ((dist * dist) / k) * Math.min(1 + Math.log(weight || 1) * 0.3, 3) * 0.5;
      disp[2 * a] -= (dx / dist) * force; disp[2 * a + 1] -= (dy / dist) * force;
      disp[2 * b] += (dx / dist) * force; disp[2 * b + 1] += (dy / dist) * force;
    }
    for (let i = 0; i < count; i += 1) {
      // a gentle pull to the middle keeps unconnected pieces from drifting away
      disp[2 * i] -= pos[2 * i] * 0.2;
      disp[2 * i + 1] -= pos[2 * i + 1] * 0.2;
      const len = Math.max(Math.hypot(disp[2 * i], disp[2 * i + 1]), 0.01);
      const move = Math.min(len, temperature);
      pos[2 * i] += (disp[2 * i] / len) * move;
      pos[2 * i + 1] += (disp[2 * i + 1] / len) * move;
    }
    if (pinned !== null) { pos[2 * pinned] = 0; pos[2 * pinned + 1] = 0; }
    temperature = Math.max(temperature * cool, 0.5);
  }

  slice();
}
