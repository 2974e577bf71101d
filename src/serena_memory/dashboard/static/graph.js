// Drawing graphs for the dashboard: the local graph around a memory, the topic map and the
// full graph. Layout runs in a web worker (layout-worker.js), so the page keeps answering
// clicks while a large graph settles; the main thread only draws: SVG for the small
// graphs (their nodes are links), a canvas for the full one (thousands of nodes).
"use strict";

window.serenaGraph = (() => {
  const SVG_NS = "http://www.w3.org/2000/svg";
  let worker = null;
  let nextId = 1;
  const waiting = new Map(); // layout id -> onPositions(positions, done)

  function layoutWorker() {
    if (!worker) {
      worker = new Worker("/static/layout-worker.js");
      worker.onmessage = (event) => {
        const { id, positions, done } = event.data;
        const listener = waiting.get(id);
        if (!listener) return;
        if (done) waiting.delete(id);
        listener(positions, done);
      };
    }
    return worker;
  }

  // Lay out `count` nodes joined by `links` ([source, target, weight]); `onPositions` is
  // called with a Float32Array [x0, y0, ...] after each slice of work, and at the end with
  // done = true. Asking for a new layout stops the previous one.
  function layout(count, links, { sizes = null, iterations = 300, pinned = null, onPositions }) {
    const id = nextId++;
    waiting.clear();
    waiting.set(id, onPositions);
    layoutWorker().postMessage({ id, count, links, sizes, iterations, pinned, chunkMs: 30 });
    return id;
  }

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined && value !== false) node.setAttribute(key, String(value));
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  function bounds(items, pos) {
    let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
    items.forEach((item, i) => {
      const x = pos[2 * i];
      const y = pos[2 * i + 1];
      const r = item.radius || 8;
      minX = Math.min(minX, x - r - 4);
      maxX = Math.max(maxX, x + r + 8 + 6.5 * (item.label || "").length);
      minY = Math.min(minY, y - r - 4);
      maxY = Math.max(maxY, y + r + 14);
    });
    if (!isFinite(minX)) return [0, 0, 10, 10];
    return [Math.floor(minX), Math.floor(minY), Math.ceil(maxX - minX), Math.ceil(maxY - minY)];
  }

  // A small graph as SVG. items: [{id, label, href, classes, radius, title, sub}], links:
  // [{source, target, classes, width}] (indexes into items). Returns the <svg>.
  function drawSvg(items, links, pos, label) {
    const [x, y, width, height] = bounds(items, pos);
    const root = svg("svg", { viewBox: `${x} ${y} ${width} ${height}`, role: "img", "aria-label": label });
    root.style.maxWidth = `${Math.max(width, 200)}px`;
    root.append(svg("defs", {}, svg("marker", {
      id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse",
    }, svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#8c959f" }))));
    for (const link of links) {
      const a = link.source;
      const b = link.target;
      if (a === b) continue;
      // stop the arrow at the target's rim
      const dx = pos[2 * b] - pos[2 * a];
      const dy = pos[2 * b + 1] - pos[2 * a + 1];
      const dist = Math.max(Math.hypot(dx, dy), 0.01);
      const rim = (items[b].radius || 6) + 2;
      root.append(svg("line", {
        class: link.classes || "edge",
        x1: pos[2 * a], y1: pos[2 * a + 1],
        x2: pos[2 * b] - (dx / dist) * rim, y2: pos[2 * b + 1] - (dy / dist) * rim,
        "stroke-width": link.width || null,
        "marker-end": link.arrow === false ? null : "url(#arrow)",
        "data-source": items[a].id, "data-target": items[b].id,
      }));
    }
    items.forEach((item, i) => {
      const title = svg("title", {});
      title.textContent = item.title || item.label;
      const text = svg("text", { x: pos[2 * i] + (item.radius || 6) + 3, y: pos[2 * i + 1] + 4 });
      text.textContent = item.label;
      const parts = [title, svg("circle", { cx: pos[2 * i], cy: pos[2 * i + 1], r: item.radius || 6 }), text];
      if (item.sub) {
        const sub = svg("text", { class: "sub", x: pos[2 * i] + (item.radius || 6) + 3, y: pos[2 * i + 1] + 16 });
        sub.textContent = item.sub;
        parts.push(sub);
      }
      root.append(svg("a", { href: item.href, class: item.classes, "data-node": item.id }, ...parts));
    });
    return root;
  }

  // Lay out then draw a small graph into `box` (replacing its content when done).
  // isCurrent: false once a newer drawing was asked of the same box (an older, slower
  // layout must not replace it).
  function smallGraph(box, items, links, { label, iterations = 300, pinned = null, onDrawn, isCurrent } = {}) {
    const linkIndexes = links.map((l) => [l.source, l.target, l.weight || 1]);
    const sizes = items.map((item) => item.radius || 6);
    layout(items.length, linkIndexes, {
      sizes, iterations, pinned,
      onPositions: (pos, done) => {
        if (!done || !box.isConnected || (isCurrent && !isCurrent())) return;
        // labels run to the right: give the drawing more room across than down
        for (let i = 0; i < pos.length; i += 2) pos[i] *= 1.6;
        box.replaceChildren(drawSvg(items, links, pos, label));
        if (onDrawn) onDrawn();
      },
    });
  }

  // The full graph on a canvas, redrawn after each slice of layout work. nodes: [{name,
  // classes, radius}], links: [[a, b, broken]]. A click on a node calls onOpen(name).
  function canvasGraph(box, nodes, links, { onOpen, onProgress }) {
    const canvas = document.createElement("canvas");
    canvas.className = "graph-canvas";
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", "Reference graph");
    const width = Math.max(box.clientWidth, 600);
    const height = Math.max(Math.round(width * 0.62), 420);
    const ratio = window.devicePixelRatio || 1;
    canvas.width = width * ratio;
    canvas.height = height * ratio;
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
    box.replaceChildren(canvas);
    const ctx = canvas.getContext("2d");
    const colors = {
      project: "#0969da", global: "#1a7f37", ro: "#8250df", missing: "#cf222e",
      unreadable: "#bc4c00", edge: "rgba(140,149,159,0.35)", broken: "rgba(207,34,46,0.7)",
    };
    const byKind = {};
    nodes.forEach((node, i) => { (byKind[node.kind] = byKind[node.kind] || []).push(i); });
    let pos = null;
    let view = { scale: 1, x: 0, y: 0 };
    let frame = 0;

    function fit() {
      let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
      for (let i = 0; i < nodes.length; i += 1) {
        minX = Math.min(minX, pos[2 * i]); maxX = Math.max(maxX, pos[2 * i]);
        minY = Math.min(minY, pos[2 * i + 1]); maxY = Math.max(maxY, pos[2 * i + 1]);
      }
      const scale = Math.min(width / Math.max(maxX - minX + 40, 1), height / Math.max(maxY - minY + 40, 1));
      view = { scale, x: width / 2 - ((minX + maxX) / 2) * scale, y: height / 2 - ((minY + maxY) / 2) * scale };
    }

    function draw() {
      frame = 0;
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, width, height);
      const sx = (i) => pos[2 * i] * view.scale + view.x;
      const sy = (i) => pos[2 * i + 1] * view.scale + view.y;
      ctx.lineWidth = 0.6;
      ctx.strokeStyle = colors.edge;
      ctx.beginPath();
      for (const [a, b, broken] of links) {
        if (broken) continue;
        ctx.moveTo(sx(a), sy(a)); ctx.lineTo(sx(b), sy(b));
      }
      ctx.stroke();
      ctx.strokeStyle = colors.broken;
      ctx.setLineDash([3, 2]);
      ctx.beginPath();
      for (const [a, b, broken] of links) {
        if (!broken) continue;
        ctx.moveTo(sx(a), sy(a)); ctx.lineTo(sx(b), sy(b));
      }
      ctx.stroke();
      ctx.setLineDash([]);
      // one path per colour and shade: a few fills, not one per node
      for (const faded of [true, false]) {
        ctx.globalAlpha = faded ? 0.35 : 1;
        for (const kind of Object.keys(byKind)) {
          const members = byKind[kind].filter((i) => Boolean(nodes[i].faded) === faded);
          if (!members.length) continue;
          ctx.beginPath();
          for (const i of members) {
            ctx.moveTo(sx(i) + nodes[i].radius, sy(i));
            ctx.arc(sx(i), sy(i), nodes[i].radius, 0, 2 * Math.PI);
          }
          if (kind === "missing") { ctx.strokeStyle = colors.missing; ctx.stroke(); } else { ctx.fillStyle = colors[kind]; ctx.fill(); }
        }
      }
      ctx.globalAlpha = 1;
      // labels only where they can be read: a few nodes, or zoomed in
      if (nodes.length <= 300 || view.scale > 2) {
        ctx.fillStyle = "#24292f";
        ctx.font = "11px system-ui, sans-serif";
        nodes.forEach((node, i) => {
          const x = sx(i);
          const y = sy(i);
          if (x > -50 && x < width && y > 0 && y < height + 10) ctx.fillText(node.name, x + node.radius + 2, y + 4);
        });
      }
    }

    function nodeAt(event) {
      if (!pos) return -1;
      const rect = canvas.getBoundingClientRect();
      const x = event.clientX - rect.left;
      const y = event.clientY - rect.top;
      let best = -1;
      let bestDist = 8 * 8;
      for (let i = 0; i < nodes.length; i += 1) {
        const dx = pos[2 * i] * view.scale + view.x - x;
        const dy = pos[2 * i + 1] * view.scale + view.y - y;
        const d = dx * dx + dy * dy;
        if (d < bestDist) { best = i; bestDist = d; }
      }
      return best;
    }

    canvas.addEventListener("click", (event) => {
      const i = nodeAt(event);
      if (i >= 0) onOpen(nodes[i].name);
    });
    canvas.addEventListener("mousemove", (event) => {
      const i = nodeAt(event);
      canvas.title = i >= 0 ? nodes[i].title : "";
      canvas.style.cursor = i >= 0 ? "pointer" : "default";
    });
    canvas.addEventListener("wheel", (event) => {
      if (!pos) return;
      event.preventDefault();
      const rect = canvas.getBoundingClientRect();
      const x = event.clientX - rect.left;
      const y = event.clientY - rect.top;
      const factor = event.deltaY < 0 ? 1.2 : 1 / 1.2;
      view = { scale: view.scale * factor, x: x - (x - view.x) * factor, y: y - (y - view.y) * factor };
      if (!frame) frame = requestAnimationFrame(draw);
    }, { passive: false });

    layout(nodes.length, links.map(([a, b]) => [a, b, 1]), {
      iterations: nodes.length > 800 ? 120 : 250,
      sizes: null,
      onPositions: (positions, done) => {
        if (!canvas.isConnected) return;
        pos = positions;
        fit();
        if (!frame) frame = requestAnimationFrame(draw);
        if (onProgress) onProgress(done);
      },
    });
    return canvas;
  }

  return { layout, smallGraph, canvasGraph, drawSvg };
})();
