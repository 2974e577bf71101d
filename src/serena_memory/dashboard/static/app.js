// The dashboard page: plain JavaScript, no build step, no outside resources.
// Memory content is only ever inserted as text, except the HTML the server rendered with
// markdown-it (raw HTML disabled, links validated). No inline handlers anywhere.
"use strict";

(() => {
  const main = document.getElementById("main");
  const treeBox = document.getElementById("tree");
  const filterBox = document.getElementById("filter");
  const flashBox = document.getElementById("flash");
  const searchBox = document.getElementById("search-box");

  const state = {
    project: null,
    memories: [],
    filter: "",
    localDepth: 1, // steps out in a memory's local graph
    expanded: new Set(), // topics opened by hand
    folded: new Set(), // topics closed by hand
    currentName: null,
    dirty: false, // an editor holds unsaved text
    viewing: null, // {name, version} of the memory shown read-only, kept fresh
    notice: null, // {kind, text} shown once on the next view
    serverNotices: [], // what the server said on the side of a call (its `notices`), shown next
    stale: false, // the server refused this page's token (a bookmark from an earlier run)
  };

  // -- small helpers -------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on") && typeof value === "function") {
        node.addEventListener(key.slice(2), value);
      } else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // Puts children in a node. Helpers that have nothing to show return null (a notice with
  // no conflicts, a missing badge); replaceChildren would print those as the text "null".
  function fill(node, ...children) {
    node.replaceChildren(...children.flat().filter(
      (child) => child !== null && child !== undefined && child !== false && child !== ""));
  }

  // `1 memory`, `2 memories`: a count as a person writes it, as core/display.py's counted.
  function counted(number, singular, plural) {
    return `${number} ${number === 1 ? singular : plural || singular + "s"}`;
  }

  function memoryHref(name) {
    return "#/memory/" + name.split("/").map(encodeURIComponent).join("/");
  }

  // The access token: taken from the printed URL once, then kept in this origin's storage
  // (scheme, host and port: no other local server can read it) and sent as a header.
  // Never a cookie: cookies ignore ports and would reach every server on 127.0.0.1.
  const TOKEN_KEY = "serena-dashboard-token";
  const accessToken = (() => {
    const params = new URLSearchParams(location.search);
    const given = params.get("token");
    if (given) {
      try { localStorage.setItem(TOKEN_KEY, given); } catch (err) { /* storage off: this tab only */ }
      params.delete("token");
      const rest = params.toString();
      history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
      return given;
    }
    try { return localStorage.getItem(TOKEN_KEY) || ""; } catch (err) { return ""; }
  })();

  // One JSON call. `options.etag`: a tag the page already holds; when the server has
  // nothing newer it answers 304 and the result says `unchanged` (no body sent or parsed).
  async function api(method, path, body, options = {}) {
    const init = { method, credentials: "omit", headers: { "X-Serena-Token": accessToken } };
    if (options.etag) init.headers["If-None-Match"] = options.etag;
    if (options.signal) init.signal = options.signal;
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (err) {
      return { ok: false, status: 0, data: { error: "the dashboard server can't be reached" } };
    }
    const etag = response.headers.get("ETag");
    if (response.status === 401 || state.stale) {
      // no valid token: every view would be empty, so one page says so, and no caller
      // goes on to draw over it (this answer never comes)
      if (!state.stale) {
        state.stale = true;
        showStaleLink();
      }
      return new Promise(() => {});
    }
    if (response.status === 304) return { ok: true, status: 304, unchanged: true, etag, data: null };
    let data;
    try {
      data = await response.json();
    } catch (err) {
      const hint = response.status === 401
        ? "not authorized: open the URL (with ?token=...) that `serena dashboard` printed; each run has a new one"
        : `the server answered ${response.status}`;
      data = { error: hint };
    }
    // said on the side of this call (a history that could not be recorded, an interrupted
    // rename finished): shown with the next view, as warnings
    if (data && Array.isArray(data.notices)) state.serverNotices.push(...data.notices.map(String));
    return { ok: response.ok, status: response.status, data, etag };
  }

  let flashTimer = null;
  function flash(text, kind) {
    flashBox.textContent = text;
    flashBox.className = "flash" + (kind === "error" ? " error" : "");
    flashBox.hidden = false;
    clearTimeout(flashTimer);
    flashTimer = setTimeout(() => { flashBox.hidden = true; }, 5000);
  }

  // link: {href, text}, a way on from what the notice says (a deleted memory's history)
  function noticeBox(kind, text, link) {
    return el("div", { class: `notice ${kind}`, role: kind === "error" ? "alert" : "status" }, text,
      link ? [" ", el("a", { href: link.href, class: "notice-link", text: link.text })] : null);
  }

  function takeNotice() {
    const notice = state.notice;
    const told = state.serverNotices;
    state.notice = null;
    state.serverNotices = [];
    const boxes = told.map((text) => noticeBox("warn", text));
    if (notice) boxes.unshift(noticeBox(notice.kind, notice.text, notice.link));
    if (boxes.length <= 1) return boxes[0] || null;
    return el("div", { class: "notices" }, ...boxes);
  }

  function go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  }

  // -- the sidebar tree ----------------------------------------------------------------
  let stateTag = null; // the ETag of the sidebar's data: an unchanged poll is a 304

  async function refreshState({ force = false } = {}) {
    const res = await api("GET", "/api/state", undefined, { etag: force ? null : stateTag });
    if (res.unchanged) return;
    if (!res.ok) {
      stateTag = null;
      fill(treeBox, noticeBox("error", res.data.error));
      return;
    }
    stateTag = res.etag;
    state.project = res.data.project;
    state.memories = res.data.memories;
    state.syncConflicts = res.data.sync_conflicts || [];
    const reviewCount = document.getElementById("review-count");
    reviewCount.textContent = String(res.data.proposals || 0);
    reviewCount.hidden = !res.data.proposals;
    const projectName = document.getElementById("project-name");
    projectName.textContent = state.project ? state.project.name : "no project active";
    projectName.title = state.project ? state.project.root : "";
    renderTree();
  }

  // The tree is built once per change of the list or the filter, and only what is on
  // show is rendered: a topic's content when it is expanded, and at most LEVEL_PAGE
  // entries of one level until "Show more". Large projects start with topics folded.
  const LEVEL_PAGE = 200;
  const OPEN_ALL_UNDER = 300; // below this many memories every topic starts expanded
  let treeCache = null; // {memories, filter, sections}

  function buildTree(items, prefix) {
    const root = { topics: new Map(), memories: [], count: 0 };
    for (const memory of items) {
      const parts = memory.name.slice(prefix.length).split("/");
      let node = root;
      node.count += 1;
      for (const part of parts.slice(0, -1)) {
        if (!node.topics.has(part)) node.topics.set(part, { topics: new Map(), memories: [], count: 0 });
        node = node.topics.get(part);
        node.count += 1;
      }
      node.memories.push({ name: memory.name, read_only: memory.read_only, leaf: parts[parts.length - 1] });
    }
    sortTree(root);
    return root;
  }

  const byText = (a, b) => (a < b ? -1 : a > b ? 1 : 0); // names: plain code point order

  function sortTree(node) {
    node.sortedTopics = [...node.topics.entries()].sort((a, b) => byText(a[0], b[0]));
    node.memories.sort((a, b) => byText(a.leaf, b.leaf));
    for (const [, child] of node.sortedTopics) sortTree(child);
  }

  function isExpanded(topicPath) {
    if (state.expanded.has(topicPath)) return true;
    if (state.folded.has(topicPath)) return false;
    const shown = treeCache ? treeCache.project.length + treeCache.global.length : state.memories.length;
    if (shown < OPEN_ALL_UNDER) return true;
    // the way to the memory on show is open
    return state.currentName !== null && state.currentName.startsWith(topicPath + "/");
  }

  function renderNode(node, path) {
    const list = el("ul", { class: "tree" });
    const entries = node.sortedTopics.map(([topic, child]) => ({ topic, child }))
      .concat(node.memories.map((memory) => ({ memory })));
    const renderSome = (from) => {
      const page = entries.slice(from, from + LEVEL_PAGE);
      for (const entry of page) list.append(entry.memory ? memoryItem(entry.memory) : topicItem(entry.topic, entry.child, path));
      const rest = entries.length - from - page.length;
      if (rest > 0) {
        const more = el("li", { class: "more-item" }, el("button", {
          class: "link", onclick: () => { more.remove(); renderSome(from + LEVEL_PAGE); },
        }, `Show ${Math.min(rest, LEVEL_PAGE)} more of ${rest}`));
        list.append(more);
      }
    };
    renderSome(0);
    return list;
  }

  function topicItem(topic, child, path) {
    const topicPath = path + topic;
    const open = isExpanded(topicPath);
    const details = el("details", { open, "data-topic": topicPath },
      el("summary", {}, el("span", { class: "topic", text: topic + "/" }),
        el("span", { class: "count", text: String(child.count) })));
    let rendered = false;
    const fill = () => {
      if (rendered) return;
      rendered = true;
      details.append(renderNode(child, topicPath + "/"));
    };
    if (open) fill();
    details.addEventListener("toggle", () => {
      if (details.open) {
        fill();
        state.expanded.add(topicPath);
        state.folded.delete(topicPath);
      } else {
        state.expanded.delete(topicPath);
        state.folded.add(topicPath);
      }
    });
    return el("li", { class: "topic-item" }, details);
  }

  function memoryItem(memory) {
    return el("li", { class: "memory-item" },
      el("a", {
        href: memoryHref(memory.name),
        "data-name": memory.name,
        class: memory.name === state.currentName ? "active" : null,
        title: memory.name,
      }, memory.leaf),
      memory.read_only ? el("span", { class: "badge ro", text: "read-only" }) : null);
  }

  function treeSection(title, scope, items, tree, prefix) {
    const readOnly = items.filter((m) => m.read_only).length;
    const heading = el("h2", {}, title, el("span", { class: "count", text: String(items.length) }),
      readOnly ? el("span", { class: "badge ro", text: `${readOnly} read-only` }) : null);
    const body = items.length
      ? renderNode(tree, prefix)
      : el("p", { class: "empty", text: state.filter ? "No match." : "None yet." });
    return el("section", { class: "tree-section", "data-scope": scope }, heading, body);
  }

  function renderTree() {
    if (!treeCache || treeCache.memories !== state.memories || treeCache.filter !== state.filter) {
      const needle = state.filter.toLowerCase();
      const shown = state.memories.filter((m) => !needle || m.name.toLowerCase().includes(needle));
      const project = shown.filter((m) => !m.global);
      const global = shown.filter((m) => m.global);
      treeCache = {
        memories: state.memories, filter: state.filter,
        project, global, projectTree: buildTree(project, ""), globalTree: buildTree(global, "global/"),
      };
    }
    const t = treeCache;
    fill(treeBox,
      treeSection("Project", "project", t.project, t.projectTree, ""),
      treeSection("Global", "global", t.global, t.globalTree, "global/"),
    );
  }

  // Marks the memory on show without rebuilding the tree (and opens the way to it).
  function markCurrentInTree() {
    const previous = treeBox.querySelector("a.active");
    if (previous) previous.classList.remove("active");
    if (!state.currentName) return;
    const link = treeBox.querySelector(`a[data-name="${CSS.escape(state.currentName)}"]`);
    if (link) link.classList.add("active");
    else renderTree(); // inside a folded topic: open the way
  }

  let filterTimer = null;
  filterBox.addEventListener("input", () => {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(() => {
      state.filter = filterBox.value.trim();
      state.folded.clear();
      state.expanded.clear();
      renderTree();
    }, 120);
  });

  // The page's token is not this run's (a bookmark, a tab kept across a restart): instead
  // of an empty project with live buttons, one page that says what to do.
  function showStaleLink() {
    document.body.classList.add("stale-link");
    fill(treeBox);
    document.getElementById("project-name").textContent = "";
    fill(main, el("section", { id: "stale-link", role: "alert" },
      el("h1", { text: "This dashboard link is out of date" }),
      el("p", { text: "Each run of the dashboard has its own access token, and this page has none " +
        "that the dashboard running here now accepts: it was opened from a bookmark or an " +
        "address without ?token=..., or left open across a restart. Nothing was read or changed." }),
      el("p", {}, "Run ", el("code", { text: "serena dashboard" }),
        " in the project's folder (or ", el("code", { text: "serena dashboard PROJECT" }),
        ") and open the address it prints, with its ", el("code", { text: "?token=..." }),
        ". If the dashboard came with ", el("code", { text: "serena start-mcp-server" }),
        ", its address is in the MCP client's log (the line starting with ",
        el("code", { text: "Memories dashboard:" }), ").")));
  }

  // -- routing -------------------------------------------------------------------------
  function route() {
    if (state.stale) return showStaleLink();
    const hash = location.hash.replace(/^#/, "") || "/";
    const parts = hash.split("/").slice(1);
    const view = parts[0] || "";
    let arg = "";
    try {
      arg = parts.slice(1).map(decodeURIComponent).join("/");
    } catch (err) {
      arg = "";
    }
    state.currentName = view === "memory" ? arg : null;
    state.viewing = null;
    state.dirty = false;
    markCurrentInTree();
    if (view !== "search") searchBox.value = ""; // the box shows the search page's query only
    if (view === "memory" && arg) return showMemory(arg);
    if (view === "new") return showNew(arg);
    if (view === "check") return showCheck();
    if (view === "sync-conflict" && arg) return showSyncConflict(arg);
    if (view === "graph") return showGraph();
    if (view === "topics") return showTopics(arg);
    if (view === "search") return showSearch(arg);
    if (view === "history") return showRecentChanges();
    if (view === "review") return showReview();
    return showHome();
  }

  window.addEventListener("hashchange", route);
  window.addEventListener("beforeunload", (event) => {
    if (state.dirty) event.preventDefault();
  });

  // -- home ----------------------------------------------------------------------------
  function showHome() {
    const project = state.memories.filter((m) => !m.global).length;
    const global = state.memories.filter((m) => m.global).length;
    const readOnly = state.memories.filter((m) => m.read_only).length;
    const hasCore = state.memories.some((m) => m.name === "core");
    fill(main,
      takeNotice() || "",
      el("h1", { text: state.project ? state.project.name : "No project" }),
      el("p", { class: "muted mono", text: state.project ? state.project.root : "" }),
      el("p", {}, `${counted(project, "project memory", "project memories")}, ${counted(global, "global memory", "global memories")}, ${readOnly} read-only.`),
      syncConflictsNotice(),
      hasCore ? el("p", {}, "Start from ", el("a", { href: memoryHref("core"), text: "core" }), ", the entry point of the memory graph.") : "",
      el("div", { class: "toolbar" },
        el("button", { class: "primary", onclick: () => go("#/new") }, "New memory"),
        el("button", { onclick: () => go("#/check") }, "Check references"),
        el("button", { onclick: () => go("#/topics") }, "Topic map"),
        el("button", { onclick: () => go("#/graph") }, "Reference graph"),
        el("button", { onclick: () => go("#/history") }, "Recent changes")),
    );
  }

  // -- one memory ----------------------------------------------------------------------
  async function showMemory(name) {
    if (!state.viewing || state.viewing.name !== name) {
      // never leave another memory's buttons clickable while this one loads
      fill(main, el("h1", { text: name }), el("p", { class: "muted", text: "Loading…" }));
    }
    const res = await api("GET", "/api/memory?name=" + encodeURIComponent(name));
    if (state.currentName !== name) return; // the person navigated away meanwhile
    if (!res.ok) {
      const actions = el("div", { id: "actions" });
      const gone = { name, read_only: false, deleted: true };
      fill(main, takeNotice() || "", el("h1", { class: "mono", text: name }),
        noticeBox("error", res.data.error),
        res.status === 404 ? el("div", { class: "toolbar" },
          el("button", { id: "history-button", onclick: () => showHistory(gone, actions) }, "History")) : null,
        actions);
      return;
    }
    renderMemory(res.data, res.etag);
  }

  function sizeText(chars) {
    if (chars >= 1e6) return `${(chars / 1e6).toFixed(1)} million characters`;
    return `${Math.round(chars / 1000)} thousand characters`;
  }

  function renderMemory(memory, etag) {
    state.viewing = { name: memory.name, version: memory.version, etag };
    const tooLarge = memory.truncated
      ? `Too large to edit here (${sizeText(memory.size)}): edit it in an editor.` : null;
    const actions = el("div", { id: "actions" });
    const readOnlyHint = "read-only (it matches read_only_memory_patterns): change it in an editor or lift the pattern";
    const button = (label, id, handler, cls, blockedBy) => el("button", {
      id, class: cls || null, disabled: memory.read_only || Boolean(blockedBy),
      title: memory.read_only ? readOnlyHint : blockedBy || null,
      onclick: handler,
    }, label);
    const article = el("article", { class: "markdown", id: "rendered" });
    const localGraph = localGraphSection(memory.name);
    // Rendered by markdown-it on the server with raw HTML off and links validated.
    article.innerHTML = memory.html;
    markDrift(article, memory.code_drift || []);
    const refs = memory.references.length
      ? el("ul", {}, memory.references.map((ref) => el("li", {},
        el("a", { href: memoryHref(ref.name), class: ref.exists ? null : "broken-name" }, ref.name),
        ref.exists ? null : el("span", { class: "badge", text: "missing" }))))
      : el("p", { class: "muted", text: "None." });
    const backlinks = el("div", { id: "backlinks-box" },
      el("p", { class: "muted", text: "Looking for the memories that refer to this one…" }));
    fill(main,
      takeNotice() || "",
      el("div", { class: "memory-header" },
        el("h1", { text: memory.name }),
        el("span", { class: memory.global ? "badge global" : "badge", text: memory.global ? "global" : "project" }),
        memory.read_only ? el("span", { class: "badge ro", text: "read-only" }) : null,
        (state.syncConflicts || []).includes(memory.name)
          ? el("a", { class: "badge ro", id: "sync-conflict-badge", href: "#/sync-conflict/" + encodeURIComponent(memory.name), text: "sync conflict" }) : null),
      el("div", { class: "toolbar" },
        button("Edit", "edit-button", () => renderEditor(memory, memory.content), "primary", tooLarge),
        button("Rename / move", "rename-button", () => showRename(memory, actions)),
        button("Delete", "delete-button", () => showDelete(memory, actions)),
        el("button", { id: "history-button", onclick: () => showHistory(memory, actions) }, "History")),
      actions,
      memory.lifecycle ? el("div", { class: "notice warn", id: "lifecycle-note", role: "status", text: memory.lifecycle }) : "",
      memory.trust ? el("p", { class: "muted", id: "trust-line", text: memory.trust }) : "",
      memory.truncated ? el("div", { class: "notice warn", id: "truncated-note", role: "status" },
        `This memory is large (${sizeText(memory.size)}): only the first ${sizeText(memory.content.length)} are shown. ` +
        "Open the file in an editor to see or change the rest.") : "",
      el("div", { class: "memory-body" }, article,
        el("aside", { class: "links-panel" },
          el("h2", { text: "References" }), refs,
          el("h2", { text: "Backlinks" }), backlinks,
          el("h2", { text: "Reads" }), usageLine(memory.usage),
          driftList(memory.code_drift || []))),
      localGraph,
    );
    loadBacklinks(memory.name, backlinks);
    loadLocalGraph(memory.name, localGraph);
  }

  // How often the memory was read on this machine (any client), as `serena memories usage`
  // counts: only shown, never used to order or pick what the agent is given.
  function usageLine(usage) {
    if (!usage) return el("p", { class: "muted", id: "usage", text: "Reads can't be counted here now." });
    if (!usage.reads) {
      return el("p", { class: "muted", id: "usage", text: `Never read since ${localTime(usage.counted_since)}.` });
    }
    const clients = Object.entries(usage.clients).map(([c, n]) => `${c}: ${n}`).join(", ");
    const times = usage.reads === 1 ? "once" : `${usage.reads} times`;
    return el("p", { id: "usage", title: `counted since ${localTime(usage.counted_since)}` },
      `Read ${times}, last ${localTime(usage.last_read)} (${clients}).`);
  }

  function localTime(iso) {
    const when = new Date(iso);
    return Number.isNaN(when.getTime()) ? String(iso) : when.toLocaleString();
  }

  // The memories that refer to this one: every memory is read for them, so they come after
  // the memory itself is shown.
  async function loadBacklinks(name, box) {
    const res = await api("GET", `/api/backlinks?name=${encodeURIComponent(name)}`);
    if (!box.isConnected) return;
    if (!res.ok) {
      fill(box, noticeBox("error", res.data.error));
      return;
    }
    const found = res.data.backlinks;
    fill(box, found.length
      ? el("ul", { id: "backlinks" }, found.map((link) => el("li", {},
        el("a", { href: memoryHref(link.source), text: link.source }),
        el("span", { class: "muted", text: ` (line ${link.lines.join(", ")})` }))))
      : el("p", { class: "muted", id: "backlinks", text: "No memory refers to this one." }));
  }

  // -- code drift: mentions of files that are gone or moved --------------------------------
  function driftBadge(f) {
    if (f.status === "moved") {
      return el("span", { class: "badge drift moved", title: f.commit === "work-tree" ? "moved in the work tree, not committed yet" : `moved in commit ${(f.commit || "").slice(0, 10)}` },
        "moved to ", el("code", { text: f.new_path }));
    }
    return el("span", { class: "badge drift missing", title: f.note || "no such file or folder in the project now" }, "missing");
  }

  // A mark right after every place the text shows a drifted mention: the code spans that
  // hold exactly the mention, else the prose that contains it (never inside a code block).
  function markDrift(article, findings) {
    const byMention = new Map();
    for (const f of findings) if (!byMention.has(f.mention)) byMention.set(f.mention, f);
    if (!byMention.size) return;
    for (const code of article.querySelectorAll("code")) {
      if (code.closest("pre")) continue;
      const f = byMention.get(code.textContent.trim());
      if (f) code.after(" ", driftBadge(f));
    }
    const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
    const texts = [];
    while (walker.nextNode()) {
      if (!walker.currentNode.parentElement.closest("code, pre, .drift")) texts.push(walker.currentNode);
    }
    for (let node of texts) {
      for (const [mention, f] of byMention) {
        let at = node.data.indexOf(mention);
        while (at >= 0) {
          const rest = node.splitText(at + mention.length);
          node.after(" ", driftBadge(f));
          node = rest;
          at = node.data.indexOf(mention);
        }
      }
    }
  }

  function driftList(findings) {
    if (!findings.length) return null;
    return [el("h2", { text: "Code" }), el("ul", { id: "code-drift" }, findings.map((f) => el("li", {},
      el("code", { text: f.mention }), " ", driftBadge(f), el("span", { class: "muted", text: ` (line ${f.line})` }))))];
  }

  function showRename(memory, actions) {
    const input = el("input", { type: "text", id: "rename-to", value: memory.name, "aria-label": "New name" });
    const submit = async () => {
      const res = await api("POST", "/api/rename", { old: memory.name, new: input.value });
      if (!res.ok) {
        fill(actions, form, noticeBox("error", res.data.error));
        return;
      }
      state.notice = { kind: "ok", text: res.data.summary };
      await refreshState();
      go(memoryHref(res.data.new));
    };
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") submit(); });
    const form = el("div", { class: "inline-form" },
      el("label", { for: "rename-to", text: "New name" }), input,
      el("button", { class: "primary", id: "rename-confirm", onclick: submit }, "Rename"),
      el("button", { onclick: () => fill(actions) }, "Cancel"));
    fill(actions, form);
    input.focus();
    input.select();
  }

  // What a delete does, said before it is done: the history keeps the text (so it can be
  // brought back), unless history is off; and the memories whose references it breaks.
  async function showDelete(memory, actions) {
    fill(actions, el("p", { class: "muted", text: "Looking for the memories that refer to this one…" }));
    const links = await api("GET", `/api/backlinks?name=${encodeURIComponent(memory.name)}`);
    if (!actions.isConnected) return;
    const referrers = links.ok ? links.data.backlinks.map((b) => b.source) : [];
    const confirmDelete = async () => {
      const res = await api("POST", "/api/delete", { name: memory.name, base_version: memory.version });
      if (!res.ok) {
        fill(actions, noticeBox("error", res.data.error));
        return;
      }
      state.notice = { kind: "ok", text: `Deleted memory '${res.data.deleted}'.`,
        link: memory.undoable ? { href: memoryHref(res.data.deleted), text: "Its history brings it back." } : null };
      await refreshState();
      go("#/");
    };
    const undo = memory.undoable
      ? "The history keeps its text: History on its page brings it back."
      : "History is off for it (memory_history: false), so this can't be undone.";
    const broken = referrers.length
      ? el("span", { id: "delete-referrers" },
        ` ${counted(referrers.length, "memory refers", "memories refer")} to it (${referrers.join(", ")}): ` +
        `${referrers.length === 1 ? "its reference" : "their references"} will be stale.`)
      : null;
    fill(actions, el("div", { class: "inline-form confirm", role: "alertdialog" },
      el("span", {}, "Delete ", el("strong", { text: memory.name }), `? ${undo}`, broken),
      el("button", { class: "danger", id: "delete-confirm", onclick: confirmDelete }, "Delete"),
      el("button", { id: "delete-cancel", onclick: () => fill(actions) }, "Cancel")));
  }

  // -- history: who changed a memory, what each change did, and undo --------------------
  // A time as the command line prints it (`serena memories history`): 2026-12-01 09:05:36,
  // in this computer's time zone, whatever the browser's language.
  function isoTime(text) {
    const t = new Date(text);
    const two = (n) => String(n).padStart(2, "0");
    return `${t.getFullYear()}-${two(t.getMonth() + 1)}-${two(t.getDate())} ` +
      `${two(t.getHours())}:${two(t.getMinutes())}:${two(t.getSeconds())}`;
  }

  // The memories an entry touched: the first few as links, the rest behind a button, so
  // an entry that changed dozens of memories stays one readable line.
  const SHOWN_CHANGES = 5;
  function changedMemories(changes) {
    const link = (c) => el("a", {
      href: memoryHref(c.memory), class: "history-memory " + c.change.toLowerCase(),
      title: { A: "created", M: "changed", D: "deleted" }[c.change] || null, text: c.memory,
    });
    const box = el("span", { class: "history-memories" }, changes.slice(0, SHOWN_CHANGES).map(link));
    if (changes.length > SHOWN_CHANGES) {
      const rest = changes.length - SHOWN_CHANGES;
      const more = el("button", {
        class: "link history-more",
        onclick: () => { more.replaceWith(...changes.slice(SHOWN_CHANGES).map(link)); },
      }, `and ${rest} more`);
      box.append(more);
    }
    return box;
  }

  function entryLine(entry) {
    const who = `${entry.entry_point} ${entry.who}` + (entry.action ? ` (${entry.action})` : "");
    return [el("code", { class: "rev", text: entry.rev.slice(0, 10) }), " ",
      el("time", { class: "muted", datetime: entry.time, title: entry.time, text: isoTime(entry.time) }), " ",
      el("strong", { class: "who", text: who }), " ", el("span", { text: entry.summary })];
  }

  async function showHistory(memory, actions) {
    fill(actions, el("p", { class: "muted", text: "Loading the history…" }));
    const res = await api("GET", "/api/history?name=" + encodeURIComponent(memory.name));
    if (!res.ok) {
      fill(actions, noticeBox("error", res.data.error));
      return;
    }
    const detail = el("div", { id: "history-change" });
    const readOnlyHint = memory.read_only ? "read-only: change it in an editor or lift the pattern" : null;
    const rows = res.data.entries.map((entry, i) => el("li", { class: "history-entry" },
      ...entryLine(entry), " ",
      el("button", { class: "history-show", onclick: () => showChange(memory, entry, detail) }, "Show change"),
      // the newest entry of an existing memory is its current text: nothing to restore
      i === 0 && !memory.deleted ? null : el("button", {
        class: "history-restore", disabled: memory.read_only, title: readOnlyHint,
        onclick: () => restoreVersion(memory, memory.deleted && i === 0 ? null : entry.rev, actions),
      }, memory.deleted && i === 0 ? "Bring back the text before this" : "Restore this version")));
    const more = res.data.total > rows.length
      ? el("p", { class: "muted", text: `The newest ${rows.length} of ${res.data.total} entries; \`serena memories history ${memory.name}\` lists them all.` })
      : null;
    fill(actions, el("section", { class: "history-panel", id: "history-panel" },
      el("h2", { text: "History" }),
      rows.length ? el("ul", { class: "history-list" }, rows)
        : el("p", { class: "muted", text: "No recorded changes yet." }),
      more, detail,
      el("button", { id: "history-close", onclick: () => fill(actions) }, "Close")));
  }

  async function showChange(memory, entry, detail) {
    const query = `?name=${encodeURIComponent(memory.name)}&rev=${encodeURIComponent(entry.rev)}`;
    const res = await api("GET", "/api/history/change" + query);
    if (!res.ok) {
      fill(detail, noticeBox("error", res.data.error));
      return;
    }
    const lines = (res.data.diff || "No difference.\n").split("\n").map((line) => el("span", {
      class: line.startsWith("+") && !line.startsWith("+++") ? "add"
        : line.startsWith("-") && !line.startsWith("---") ? "del" : null,
      text: line + "\n",
    }));
    fill(detail, el("pre", { class: "diff", id: "history-diff" }, lines));
  }

  async function restoreVersion(memory, rev, actions) {
    // no rev: the text before the latest entry (for a deleted memory, its last text)
    const res = await api("POST", "/api/restore", rev ? { name: memory.name, rev } : { name: memory.name });
    if (!res.ok) {
      fill(actions, noticeBox("error", res.data.error));
      return;
    }
    state.notice = { kind: "ok", text: res.data.summary };
    await refreshState();
    if (location.hash === memoryHref(memory.name)) showMemory(memory.name);
    else go(memoryHref(memory.name));
  }

  async function showRecentChanges() {
    fill(main, el("h1", { text: "Recent changes" }), el("p", { class: "muted", text: "Loading…" }));
    const res = await api("GET", "/api/history");
    if (location.hash !== "#/history") return; // the person navigated away meanwhile
    if (!res.ok) {
      fill(main, el("h1", { text: "Recent changes" }), noticeBox("error", res.data.error));
      return;
    }
    const rows = res.data.entries.map((entry) => el("li", { class: "history-entry" },
      ...entryLine(entry), " ", changedMemories(entry.changes)));
    fill(main, takeNotice() || "", el("h1", { text: "Recent changes" }),
      el("p", { class: "muted", text: "Every change to a memory, newest first: who made it and what it touched. Open a memory and press History to see a change or undo it." }),
      rows.length ? el("ul", { class: "history-list", id: "recent-changes" }, rows)
        : el("p", { class: "muted", text: "No recorded changes yet." }));
  }

  // -- review mode: the agent's proposals -------------------------------------------------
  function diffBlock(text) {
    return el("pre", { class: "diff" }, (text || "No difference.\n").split("\n").map((line) => el("span", {
      class: line.startsWith("+") && !line.startsWith("+++") ? "add"
        : line.startsWith("-") && !line.startsWith("---") ? "del" : null,
      text: line + "\n",
    })));
  }

  async function decideProposal(id, verb) {
    const res = await api("POST", `/api/proposals/${verb}`, { id });
    state.notice = { kind: res.ok ? "ok" : "error", text: res.ok ? res.data.summary : res.data.error };
    await refreshState({ force: true });
    showReview();
  }

  async function showReview() {
    const title = el("h1", { text: "Review" });
    fill(main, title, el("p", { class: "muted", text: "Loading…" }));
    const res = await api("GET", "/api/proposals");
    if (location.hash !== "#/review") return;
    if (!res.ok) {
      fill(main, title, noticeBox("error", res.data.error));
      return;
    }
    const items = res.data.proposals.map((p) => el("li", { class: "proposal", id: "proposal-" + p.id, "data-id": p.id },
      el("p", {}, el("code", { text: p.id }), " ", el("strong", { text: p.describe }), " ",
        el("span", { class: "muted", text: `by ${p.agent}` })),
      p.conflict ? noticeBox("warn", "Conflict: the memory changed since this was proposed, so it can't be accepted; reject it (the agent may propose again).") : null,
      diffBlock(p.diff),
      el("button", { class: "proposal-accept", disabled: p.conflict, onclick: () => decideProposal(p.id, "accept") }, "Accept"), " ",
      el("button", { class: "proposal-reject", onclick: () => decideProposal(p.id, "reject") }, "Reject")));
    const skipped = res.data.skipped.length
      ? noticeBox("warn", `${counted(res.data.skipped.length, "file in the proposals folder is not a proposal and was", "files in the proposals folder are not proposals and were")} ignored.`)
      : null;
    fill(main, takeNotice() || "", title,
      el("p", { class: "muted", text: "What the agent proposed to change (memory_agent_writes: propose). Nothing changes until you accept it." }),
      skipped,
      items.length ? el("ul", { class: "proposal-list", id: "proposals" }, items)
        : el("p", { class: "muted", id: "no-proposals", text: "No proposals await review." }));
  }

  // -- editing and the conflict flow -----------------------------------------------------
  function renderEditor(memory, text) {
    state.viewing = null;
    const area = el("textarea", { id: "editor", spellcheck: "false", "aria-label": "Memory content" });
    area.value = text;
    area.addEventListener("input", () => { state.dirty = true; });
    const status = el("div", {});
    const preview = el("article", { class: "markdown", id: "preview", hidden: true });
    const togglePreview = async () => {
      if (!preview.hidden) { preview.hidden = true; return; }
      const res = await api("POST", "/api/render", { content: area.value });
      if (!res.ok) { fill(status, noticeBox("error", res.data.error)); return; }
      preview.innerHTML = res.data.html; // rendered like a saved memory: raw HTML off
      preview.hidden = false;
    };
    const save = () => saveMemory(memory.name, area.value, memory.version, status);
    area.addEventListener("keydown", (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key === "s") { e.preventDefault(); save(); }
    });
    fill(main,
      el("div", { class: "memory-header" }, el("h1", { text: memory.name }),
        el("span", { class: "badge", text: "editing" })),
      status,
      el("div", { class: "editor" }, area),
      el("div", { class: "toolbar" },
        el("button", { class: "primary", id: "save-button", onclick: save }, "Save"),
        el("button", { id: "cancel-button", onclick: () => { state.dirty = false; showMemory(memory.name); } }, "Cancel"),
        el("button", { id: "preview-button", onclick: togglePreview }, "Preview"),
        el("span", { class: "muted", text: "Ctrl+S saves. A change made elsewhere meanwhile is never overwritten." })),
      preview,
    );
    area.focus();
  }

  // A save refused because the text looks like it holds a secret: the person confirms it
  // is none (the override), or goes back to the editor to put a placeholder in.
  function confirmNotSecret(res) {
    return res.status === 422 && res.data.secret &&
      window.confirm(`${res.data.error}.\n\nSave anyway? Only if this is not a secret.`);
  }

  async function saveMemory(name, content, baseVersion, status, allowSecret = false) {
    const res = await api("PUT", "/api/memory",
      { name, content, base_version: baseVersion, allow_secret: allowSecret });
    if (!allowSecret && confirmNotSecret(res)) {
      await saveMemory(name, content, baseVersion, status, true);
      return;
    }
    if (res.ok) {
      state.dirty = false;
      state.notice = { kind: "ok", text: `Saved '${res.data.name}'.` };
      await refreshState();
      if (state.currentName === res.data.name) showMemory(res.data.name);
      else go(memoryHref(res.data.name));
      return;
    }
    if (res.status === 409 && res.data.conflict) {
      renderConflict(name, content, res.data);
      return;
    }
    fill(status, noticeBox("error", res.data.error));
  }

  // What happened, said once, and what to do: the server's error says the same thing in
  // the library's words, so it is not repeated here.
  function conflictWords(name, deleted) {
    const what = deleted ? "was deleted" : "was changed";
    const choice = deleted
      ? "Save my version to bring it back with your text, or Discard mine."
      : "Compare both versions, edit yours to merge them if you like, then Save my version or Take theirs.";
    return `Not saved: '${name}' ${what} since you opened it (by the agent, an editor or another tab). ` +
      `Your text is kept below. ${choice}`;
  }

  function renderConflict(name, mine, info) {
    state.dirty = true;
    const mineArea = el("textarea", { id: "conflict-mine", spellcheck: "false", "aria-label": "Your version" });
    mineArea.value = mine;
    let theirs;
    if (info.current === null) {
      theirs = el("div", { class: "deleted-note", id: "conflict-theirs-deleted", text: "The memory was deleted." });
    } else {
      theirs = el("textarea", { id: "conflict-theirs", readonly: true, "aria-label": "Their version" });
      theirs.value = info.current;
    }
    const status = el("div", {});
    fill(main,
      el("div", { class: "memory-header" }, el("h1", { text: name }),
        el("span", { class: "badge ro", text: "conflict" })),
      noticeBox("warn", conflictWords(name, info.current === null)),
      status,
      el("div", { class: "conflict-columns" },
        el("div", {}, el("h2", { text: info.current === null ? "Theirs: deleted" : "Theirs (on disk now)" }), theirs),
        el("div", {}, el("h2", { text: "Yours (not saved yet; editable)" }), mineArea)),
      el("div", { class: "toolbar" },
        el("button", {
          class: "primary", id: "keep-mine",
          onclick: () => saveMemory(name, mineArea.value, info.current_version, status),
        }, "Save my version"),
        el("button", {
          id: "take-theirs",
          onclick: () => {
            state.dirty = false;
            state.notice = { kind: "ok", text: "Kept their version; your changes were discarded." };
            refreshState();
            if (info.current === null) go("#/");
            else showMemory(name);
          },
        }, info.current === null ? "Discard mine" : "Take theirs")),
    );
  }

  // -- sync conflicts: both sides changed the same lines (docs/sync.md) -------------------
  function syncConflictsNotice() {
    const names = state.syncConflicts || [];
    if (!names.length) return null;
    return el("div", { class: "notice warn", id: "sync-conflicts", role: "status" },
      `Unresolved sync conflicts (${names.length}): another machine changed the same lines; compare both versions: `,
      ...names.flatMap((name, i) => [i ? ", " : "",
        el("a", { class: "mono", href: "#/sync-conflict/" + encodeURIComponent(name), text: name })]));
  }

  async function showSyncConflict(name) {
    fill(main, el("h1", { text: name }), el("p", { class: "muted", text: "Loading…" }));
    const res = await api("GET", "/api/sync-conflict?name=" + encodeURIComponent(name));
    if (!res.ok) {
      fill(main, el("h1", { class: "mono", text: name }), noticeBox("error", res.data.error));
      return;
    }
    const info = res.data;
    // Read-only texts are shown as text, never as boxes that look editable.
    const column = (title, id, text) => el("div", {}, el("h2", { text: title }),
      el("pre", { id, class: "conflict-text", "aria-label": title },
        text === null ? "(the memory was deleted)" : text));
    const diffLines = (info.diff || "No difference.\n").split("\n").map((line) => el("span", {
      class: line.startsWith("+") && !line.startsWith("+++") ? "add"
        : line.startsWith("-") && !line.startsWith("---") ? "del" : null,
      text: line + "\n",
    }));
    const status = el("div", {});
    const resolve = async (keep) => {
      const done = await api("POST", "/api/sync-conflict/resolve", { name, keep });
      if (!done.ok) {
        fill(status, noticeBox("error", done.data.error));
        return;
      }
      state.notice = { kind: "ok", text: done.data.message };
      await refreshState({ force: true });
      go(memoryHref(name));
    };
    const where = info.machine ? ` on ${info.machine}` : "";
    fill(main,
      el("div", { class: "memory-header" }, el("h1", { text: name }),
        el("span", { class: "badge ro", text: "sync conflict" })),
      noticeBox("warn", `A sync with ${info.remote}${where} (${info.at}) found that both machines changed the same lines. ` +
        "One text stayed in the memory; the other was set aside and is kept here until someone resolves it, on any machine. " +
        "To combine them, open the memory and edit it, then keep the memory's text."),
      status,
      el("h2", { text: "What resolving with the set-aside text would change" }),
      el("pre", { class: "diff", id: "sync-diff" }, diffLines),
      el("div", { class: "conflict-columns" },
        column("In the memory now", "sync-local", info.local_text),
        column("Set aside", "sync-remote", info.remote_text)),
      el("div", { class: "toolbar" },
        el("button", { class: "primary", id: "sync-keep-local", onclick: () => resolve("local") }, "Keep the memory's text"),
        el("button", { id: "sync-keep-remote", disabled: info.read_only, onclick: () => resolve("remote") }, "Take the set-aside text"),
        el("a", { href: memoryHref(name), text: "Open the memory to edit it" })),
    );
  }

  // -- creating --------------------------------------------------------------------------
  function showNew(topic) {
    const nameInput = el("input", { type: "text", id: "new-name", value: topic ? topic.replace(/\/?$/, "/") : "", placeholder: "topic/name", "aria-label": "Name" });
    const area = el("textarea", { id: "new-content", spellcheck: "false", "aria-label": "Content" });
    area.addEventListener("input", () => { state.dirty = true; });
    const status = el("div", {});
    const create = async (allowSecret = false) => {
      const res = await api("POST", "/api/memory",
        { name: nameInput.value, content: area.value, allow_secret: allowSecret === true });
      if (allowSecret !== true && confirmNotSecret(res)) {
        await create(true);
        return;
      }
      if (!res.ok) {
        fill(status, noticeBox("error", res.data.error));
        return;
      }
      state.dirty = false;
      state.notice = { kind: "ok", text: `Created '${res.data.name}'.` };
      await refreshState();
      go(memoryHref(res.data.name));
    };
    fill(main,
      el("h1", { text: "New memory" }),
      el("p", { class: "muted", text: "Names use / between topics; names starting with global/ are shared by every project." }),
      status,
      el("div", { class: "editor" },
        el("label", { for: "new-name", text: "Name" }), nameInput,
        el("label", { for: "new-content", text: "Content (Markdown)" }), area),
      el("div", { class: "toolbar" },
        el("button", { class: "primary", id: "create-button", onclick: () => create() }, "Create"),
        el("button", { onclick: () => { state.dirty = false; go("#/"); } }, "Cancel")),
    );
    nameInput.focus();
  }

  // -- the integrity report ----------------------------------------------------------------
  const checkOptions = { include_unmarked: true, fuzzy: true, reachability: true, code: true, duplicates: true, unused: true };
  // how long nobody read a memory before the Check page lists it as unused (`--unused DAYS`)
  let unusedDays = "30";

  function sourceLink(name, lines) {
    return el("span", { class: "where" }, "in ", el("a", { href: memoryHref(name), text: name }),
      lines && lines.length ? ` (line${lines.length > 1 ? "s" : ""} ${lines.join(", ")})` : "");
  }

  // One section of the report, a page at a time: the server sends each section's first
  // page and its total; Previous / Next ask for another page of that section only.
  const CHECK_PAGE = 50;

  function reportSection(title, id, key, page, render, empty, query) {
    const list = el("ul", { class: "report-list" });
    const pager = el("div", { class: "pager" });
    const total = page.total;
    const show = (items, offset) => {
      fill(list, ...items.map(render));
      fill(pager);
      if (total <= CHECK_PAGE) return;
      const last = Math.min(offset + items.length, total);
      const turn = (to) => async () => {
        const res = await api("GET", `/api/check?${query}&section=${key}&offset=${to}&limit=${CHECK_PAGE}`);
        if (res.ok) show(res.data.items, to);
        else fill(pager, noticeBox("error", res.data.error));
      };
      pager.append(
        el("button", { class: "prev", disabled: offset === 0, onclick: turn(Math.max(0, offset - CHECK_PAGE)) }, "Previous"),
        el("span", { class: "muted page-range", text: ` ${offset + 1}–${last} of ${total} ` }),
        el("button", { class: "next", disabled: last >= total, onclick: turn(offset + CHECK_PAGE) }, "Next"));
    };
    const section = el("section", { class: "report-section", id },
      el("h2", {}, title, el("span", { class: "count", text: String(total) })),
      total ? list : el("p", { class: "muted", text: empty }), total > CHECK_PAGE ? pager : null);
    if (total) show(page.items, 0);
    return section;
  }

  async function showCheck(resultNotice) {
    const options = el("div", { class: "options" },
      ...[["include_unmarked", "Bare mentions"], ["fuzzy", "Near-misses"], ["reachability", "Unreachable from mem:core"], ["code", "Code mentions"], ["duplicates", "Duplicates"], ["unused", "Unused"]]
        .map(([key, label]) => {
          const box = el("input", { type: "checkbox", id: `opt-${key}`, checked: checkOptions[key] });
          box.addEventListener("change", () => { checkOptions[key] = box.checked; showCheck(); });
          const option = el("label", {}, box, " ", label);
          return key === "unused" ? el("span", { class: "option-group" }, option, unusedDaysInput()) : option;
        }),
      el("button", { id: "recheck", onclick: () => showCheck() }, "Check again"));
    const header = [el("h1", { text: "Integrity check" }), options];
    fill(main, ...header, el("p", { class: "muted", text: "Checking…" }));
    const query = Object.entries(checkOptions).map(([k, v]) => `${k}=${v ? 1 : 0}`).join("&")
      + `&unused_days=${encodeURIComponent(unusedDays)}`;
    // the memories' report first; the code is checked in a second request (it reads every
    // memory and the project's files), so the page never waits for it
    const memoriesOnly = query.replace("code=1", "code=0").replace("duplicates=1", "duplicates=0");
    const res = await api("GET", `/api/check?${memoriesOnly}&limit=${CHECK_PAGE}`);
    // asked once the memories' report is in, so the two never compute the report at once
    const onCheck = () => location.hash.startsWith("#/check");
    const codeAnswer = checkOptions.code && res.ok && onCheck()
      ? api("GET", `/api/check?${query}&section=code&offset=0&limit=${CHECK_PAGE}`) : null;
    // the duplicates read every memory too (seconds the first time in a large folder):
    // asked after the code's answer, for the same reason
    const duplicatesAnswer = checkOptions.duplicates && res.ok && onCheck()
      ? Promise.resolve(codeAnswer).then(() => (onCheck()
        ? api("GET", `/api/check?${query}&section=duplicates&offset=0&limit=${CHECK_PAGE}`) : null))
      : null;
    if (!location.hash.startsWith("#/check")) return;
    if (!res.ok) {
      fill(main, ...header, noticeBox("error", res.data.error));
      return;
    }
    const report = res.data;
    const sections = report.sections;
    const body = [];
    if (resultNotice) body.push(resultNotice);
    const summary = report.clean
      ? noticeBox("ok", `No integrity problems found (${report.checked}).`)
      : el("p", { class: "muted", id: "check-summary", text: `${report.checked}.` });
    body.push(summary);

    body.push(reportSection("Stale references", "stale", "stale", sections.stale, (stale) => el("li", {},
      el("div", {}, el("code", { text: "mem:" + stale.target }), " ", sourceLink(stale.source, stale.lines),
        stale.source_read_only ? el("span", { class: "badge ro", text: "read-only source" }) : null,
        stale.target_ignored ? el("span", { class: "badge", text: "target is ignored" }) : null),
      el("div", { class: "candidates" },
        stale.candidates.length ? "Replace with:" : el("span", { class: "muted", text: "No likely intended target." }),
        stale.candidates.map((candidate) => el("button", {
          class: "fix", disabled: stale.source_read_only, "data-candidate": candidate,
          onclick: () => applyCandidate(stale.source, stale.target, candidate),
        }, "mem:" + candidate)))), "Every reference points to an existing memory.", query));

    if (sections.bare) {
      const mention = (b) => el("li", {},
        el("span", {}, `${b.occurrences} × `, el("code", { text: b.name }), " without mem: "),
        sourceLink(b.source, b.lines),
        b.source_read_only ? el("span", { class: "badge ro", text: "read-only source" }) : null);
      const section = reportSection("Names written without mem:", "bare", "bare", sections.bare, mention,
        "No bare mentions of memory names.", query);
      if (report.bare_high_count) {
        section.insertBefore(el("div", { class: "toolbar" },
          el("button", { class: "primary", id: "auto-prefix", onclick: () => autoPrefix(false) },
            "Add mem: to the high-confidence mentions"),
          el("button", { id: "auto-prefix-preview", onclick: () => autoPrefix(true) }, "Preview"),
          el("span", { class: "muted", text: "Only exact names with a / or 10+ characters, in writable project memories." })),
        section.children[1]);
      }
      body.push(section);
    }
    if (sections.near_misses) {
      body.push(reportSection("Near-misses", "near-misses", "near_misses", sections.near_misses, (b) => el("li", {},
        el("code", { text: b.token }), " ", sourceLink(b.source),
        el("span", { class: "muted" }, " — maybe ", el("code", { text: "mem:" + b.name }), "; edit by hand")),
      "No near-misses of long names.", query));
    }
    if (sections.unreachable) {
      const section = reportSection("Not reachable from mem:core", "unreachable", "unreachable", sections.unreachable,
        (name) => el("li", {}, el("a", { href: memoryHref(name), text: name })),
        "Every memory can be reached from mem:core.", query);
      if (report.entry_point === null) {
        section.insertBefore(noticeBox("warn", "There is no core memory: nothing can be reached. Write mem:core as the entry point."), section.children[1]);
      }
      body.push(section);
      if (sections.ignored_references.total) {
        body.push(reportSection("References into ignored memories", "ignored-references", "ignored_references",
          sections.ignored_references,
          (r) => el("li", {}, el("code", { text: "mem:" + r.target }), " ", sourceLink(r.source, r.lines)), "", query));
      }
    }
    if (codeAnswer) {
      const waiting = el("section", { class: "report-section", id: "code" },
        el("h2", {}, "Code that moved on"), el("p", { class: "muted", text: "Checking the code…" }));
      body.push(waiting);
      codeAnswer.then((answer) => {
        if (!waiting.isConnected) return; // the person moved on, or checked again
        if (!answer.ok) {
          fill(waiting, el("h2", {}, "Code that moved on"), noticeBox("error", answer.data.error));
          return;
        }
        waiting.replaceWith(codeSection(answer.data, query));
        if (report.clean && answer.data.failing) {
          summary.replaceWith(el("p", { class: "muted", id: "check-summary", text: `${counted(report.scanned, "memory", "memories")} checked.` }));
        }
      });
    }
    if (duplicatesAnswer) {
      const title = "Duplicates and conflicts";
      const waiting = el("section", { class: "report-section", id: "duplicates" },
        el("h2", {}, title), el("p", { class: "muted", text: "Looking for duplicates…" }));
      body.push(waiting);
      duplicatesAnswer.then((answer) => {
        if (!answer || !waiting.isConnected) return; // the person moved on, or checked again
        if (!answer.ok) {
          fill(waiting, el("h2", {}, title), noticeBox("error", answer.data.error));
          return;
        }
        waiting.replaceWith(reportSection(title, "duplicates", "duplicates", answer.data, duplicateItem,
          "No near-duplicate memories and no statements that contradict each other.", query));
        if (answer.data.total && summary.isConnected && summary.id !== "check-summary") {
          summary.replaceWith(el("p", { class: "muted", id: "check-summary", text: `${counted(report.scanned, "memory", "memories")} checked.` }));
        }
      });
    }
    if (sections.unused) body.push(unusedSection(sections.unused, query));
    if (sections.unreadable.total) {
      body.push(reportSection("Not valid UTF-8, not checked", "unreadable", "unreadable", sections.unreadable,
        (name) => el("li", { class: "mono", text: name }), "", query));
    }
    if (sections.sync_conflicts && sections.sync_conflicts.total) {
      body.push(reportSection("Unresolved sync conflicts", "sync-conflicts", "sync_conflicts", sections.sync_conflicts,
        (name) => el("li", {}, el("a", { class: "mono", href: "#/sync-conflict/" + encodeURIComponent(name), text: name })), "", query));
    }
    if (sections.skipped && sections.skipped.total) {
      body.push(reportSection("Skipped, not read", "skipped", "skipped", sections.skipped,
        (f) => el("li", {}, el("code", { text: f.path }), el("span", { class: "muted", text: ": " + f.reason })), "", query));
    }
    fill(main, ...header, ...body);
  }

  // The days of the Unused option: a changed number checks again (the server says what a
  // number it can't take should be).
  function unusedDaysInput() {
    const input = el("input", { type: "number", id: "opt-unused-days", min: "1", step: "1",
      value: unusedDays, "aria-label": "days unread", class: "days" });
    input.addEventListener("change", () => { unusedDays = input.value.trim(); showCheck(); });
    return el("label", { for: "opt-unused-days" }, "for ", input, " days");
  }

  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

  // The memories nobody read on this machine for that many days (`check --unused DAYS`),
  // each with its reads and what its name costs the agent's list; above them, since when
  // reads are counted and, when counting is too young or saw no read, a note saying so, so
  // that a "never read" on a fresh machine is not taken as advice to delete.
  function unusedSection(page, query) {
    const days = plural(page.unused_days, "day");
    const item = (m) => el("li", { class: "unused" },
      el("a", { href: memoryHref(m.name), text: m.name }), ": ",
      el("span", { class: "reads", text: m.reads
        ? `${plural(m.reads, "read")}, last read ${localTime(m.last_read)}` : "never read" }),
      el("span", { class: "muted", text: `, unread for ${plural(m.days_unread, "day")}; `
        + `${m.listing_chars} characters in the agent's list` }));
    const section = reportSection(`Unused for ${days} or more`, "unused", "unused", page, item,
      `No memory went unread for ${days}.`, query);
    const notes = [];
    if (page.usage_counted_since) {
      notes.push(el("p", { class: "muted", id: "usage-since",
        text: `Reads counted on this machine since ${localTime(page.usage_counted_since)}.` }));
    }
    if (page.usage_note) notes.push(el("div", { class: "notice warn", id: "usage-note", role: "status", text: page.usage_note }));
    else if (page.total) notes.push(el("p", { class: "muted", text: page.unused_advice }));
    const under = section.children[1]; // below the title, above the list
    for (const note of notes) section.insertBefore(note, under);
    return section;
  }

  // A duplicate or conflict: both sides next to each other, and what to do under them.
  function duplicateItem(d) {
    if (d.finding === "left_out") {
      return el("li", { class: "muted", text: `${d.count} more not shown: fix these and check again.` });
    }
    if (d.finding === "identical") {
      const names = d.memories.flatMap((n, i) => [i ? ", " : "", el("a", { href: memoryHref(n), text: n })]);
      return el("li", { class: "duplicate identical" },
        el("div", {}, el("strong", { text: "The same text: " }), ...names,
          d.count > d.memories.length ? ` and ${d.count - d.memories.length} more` : ""),
        el("div", { class: "muted", text: "Keep one: delete the others, or leave in them only a mem: pointer to it." }));
    }
    const span = (l) => (l[0] === l[1] ? `line ${l[0]}` : `lines ${l[0]}–${l[1]}`);
    const side = (name, where, text) => el("div", {},
      el("h3", {}, el("a", { href: memoryHref(name), text: name }), el("span", { class: "muted", text: " " + where })),
      el("pre", { class: "side-text", text }));
    if (d.finding === "conflicts") {
      const what = d.first_value !== "" && d.second_value !== ""
        ? `${d.first_value} vs ${d.second_value}` : "the same statement, negated in one of them";
      return el("li", { class: "duplicate conflict" },
        el("div", {}, el("strong", { text: "They contradict each other: " }), el("span", { class: "differs", text: what })),
        el("div", { class: "side-by-side" },
          side(d.first.memory, `line ${d.first.line}`, d.first.text),
          side(d.second.memory, `line ${d.second.line}`, d.second.text)),
        el("div", { class: "muted", text: "Fix the statement that is wrong, or say in the older memory that the other supersedes it." }));
    }
    const alike = `${Math.round(d.similarity * 100)}% ${d.restated ? "of the words in the other, in other words" : "of the lines alike"}`;
    const disagree = d.conflicts.map((c) => `${c.first_value || "(no not)"} vs ${c.second_value || "(no not)"}`);
    return el("li", { class: `duplicate ${d.finding}` },
      el("div", {}, el("strong", { text: d.finding === "sections" ? "Near-duplicate sections: " : "Near-duplicate memories: " }),
        alike, disagree.length ? el("span", { class: "differs", text: `; they disagree: ${disagree.join(", ")}` }) : null),
      el("div", { class: "side-by-side" },
        side(d.first.memory, span(d.first.lines), d.first_text),
        side(d.second.memory, span(d.second.lines), d.second_text)),
      el("div", { class: "muted", text: "Merge them into one memory (then delete the other, or leave in it only a mem: pointer), rename one if they are about different things, or say in the older one that the other supersedes it." }));
  }

  // The code's section of the report, from its own request (see showCheck).
  function codeSection(page, query) {
    return reportSection("Code that moved on", "code", "code", page, (f) => el("li", {},
        el("div", {}, el("code", { text: f.mention }), " ", sourceLink(f.memory, [f.line]), " ",
          f.status === "changed"
            ? el("span", { class: "badge drift changed", text: `changed in ${f.commits_since} commits since` })
            : driftBadge(f),
          f.read_only ? el("span", { class: "badge ro", text: "read-only source" }) : null,
          f.status === "missing" && f.note ? el("span", { class: "muted", text: ` (${f.note})` }) : null),
        f.status === "moved" ? el("div", { class: "candidates" }, el("button", {
          class: "fix code-fix", disabled: f.read_only, "data-new-path": f.new_path,
          title: f.read_only ? "read-only: change it in an editor or lift the pattern" : null,
          onclick: () => fixCodeReference(f),
        }, "Point it to " + f.new_path)) : null),
      "Every file, folder and symbol the memories mention is in the code.", query);
  }

  async function applyCandidate(source, old, candidate) {
    const res = await api("POST", "/api/fix-reference", { source, old, new: candidate });
    if (!res.ok) {
      showCheck(noticeBox("error", res.data.error));
      return;
    }
    refreshState();
    showCheck(noticeBox("ok", `Pointed ${counted(res.data.count, "reference")} in '${source}' from mem:${old} to mem:${candidate}.`));
  }

  async function fixCodeReference(f) {
    const res = await api("POST", "/api/fix-code-reference", { memory: f.memory, line: f.line, mention: f.mention });
    if (!res.ok) {
      showCheck(noticeBox("error", res.data.error));
      return;
    }
    refreshState();
    showCheck(noticeBox("ok", `Pointed \`${f.mention}\` in '${f.memory}' (line ${f.line}) to ${f.new_path}.`));
  }

  async function autoPrefix(dryRun) {
    const res = await api("POST", "/api/auto-prefix", { dry_run: dryRun });
    if (!res.ok) {
      showCheck(noticeBox("error", res.data.error));
      return;
    }
    const box = el("div", { class: "notice " + (dryRun ? "warn" : "ok"), id: "auto-prefix-result" },
      el("pre", { text: res.data.text }));
    if (dryRun && res.data.replacements) {
      box.append(el("button", { class: "primary", onclick: () => autoPrefix(false) }, "Apply"));
    }
    if (!dryRun) refreshState();
    showCheck(box);
  }

  // -- graphs ----------------------------------------------------------------------------
  const graph = window.serenaGraph;

  function nodeClasses(node, entryPoint, center) {
    const classes = ["node"];
    if (node.name === center) classes.push("center");
    if (node.missing || node.ignored) classes.push("missing");
    else if (node.unreadable) classes.push("unreadable");
    else if (node.read_only) classes.push("ro");
    else if (node.global) classes.push("global");
    if (entryPoint && !node.reachable && !node.missing && !node.ignored) classes.push("unreached");
    return classes.join(" ");
  }

  function nodeTitle(node) {
    const marks = [];
    if (node.missing) marks.push("missing: a broken reference");
    if (node.ignored) marks.push("ignored: a broken reference");
    if (node.unreadable) marks.push("not valid UTF-8");
    if (node.read_only) marks.push("read-only");
    if (node.global) marks.push("global");
    return marks.length ? `${node.name} (${marks.join(", ")})` : node.name;
  }

  function memoryGraphItems(data, center) {
    const index = new Map(data.nodes.map((n, i) => [n.name, i]));
    const items = data.nodes.map((node) => ({
      id: node.name, label: node.name, href: memoryHref(node.name), title: nodeTitle(node),
      classes: nodeClasses(node, data.entry_point, center), radius: node.name === center ? 10 : 6,
    }));
    const links = data.edges.map((e) => ({
      source: index.get(e.source), target: index.get(e.target), weight: e.count,
      classes: e.broken ? "edge broken" : "edge",
    })).filter((l) => l.source !== undefined && l.target !== undefined);
    return { items, links };
  }

  function graphLegend(extra) {
    return el("div", { class: "graph-legend" },
      el("span", {}, el("span", { class: "legend-dot project" }), "project"),
      el("span", {}, el("span", { class: "legend-dot global" }), "global"),
      el("span", {}, el("span", { class: "legend-dot ro" }), "read-only"),
      el("span", {}, el("span", { class: "legend-dot missing" }), "missing or ignored (broken reference)"),
      el("span", {}, el("span", { class: "legend-dot unreadable" }), "not valid UTF-8"),
      el("span", { text: "faded: not reachable from mem:core" }),
      extra || null);
  }

  // The local graph on a memory's page: the memory, what it references and what references
  // it, one or two steps out.
  async function loadLocalGraph(name, section) {
    const box = section.querySelector("#local-graph");
    const note = section.querySelector("#local-graph-note");
    // a change of depth asks again: only the latest answer and layout may draw
    const ticket = String(Number(box.dataset.ticket || 0) + 1);
    box.dataset.ticket = ticket;
    const isCurrent = () => box.dataset.ticket === ticket;
    const res = await api("GET", `/api/graph/local?name=${encodeURIComponent(name)}&depth=${state.localDepth}`);
    if (!section.isConnected || !isCurrent()) return;
    if (!res.ok) {
      fill(box, noticeBox("error", res.data.error));
      return;
    }
    const data = res.data;
    note.textContent = data.capped
      ? `Showing the ${data.nodes.length} nearest and most connected of ${data.total_nodes} memories within ${data.depth} step${data.depth > 1 ? "s" : ""}.`
      : `${data.nodes.length - 1} memor${data.nodes.length === 2 ? "y" : "ies"} within ${data.depth} step${data.depth > 1 ? "s" : ""}.`;
    if (data.nodes.length === 1) {
      fill(box, el("p", { class: "muted", text: "No references in or out." }));
      return;
    }
    const { items, links } = memoryGraphItems(data, name);
    graph.smallGraph(box, items, links, {
      label: `Local graph of ${name}`, pinned: data.nodes.findIndex((n) => n.name === name),
      onDrawn: () => box.setAttribute("data-drawn", name), isCurrent,
    });
  }

  function localGraphSection(name) {
    const depth = el("select", { id: "local-depth", "aria-label": "Steps out" },
      el("option", { value: "1", selected: state.localDepth === 1 }, "1 step"),
      el("option", { value: "2", selected: state.localDepth === 2 }, "2 steps"));
    const section = el("section", { class: "local-graph", id: "local-graph-section" },
      el("div", { class: "section-head" }, el("h2", { text: "Local graph" }), depth,
        el("span", { class: "muted", id: "local-graph-note" })),
      graphLegend(),
      el("div", { class: "graph-wrap", id: "local-graph" }, el("p", { class: "muted", text: "Drawing…" })));
    depth.addEventListener("change", () => {
      state.localDepth = Number(depth.value);
      loadLocalGraph(name, section);
    });
    return section;
  }

  // The topic map: one node per topic, sized by its memories, edges weighted by the
  // references between topics; a click on a topic goes into it.
  async function showTopics(topic) {
    const title = topic ? `Topic map: ${topic}/` : "Topic map";
    const crumbs = el("nav", { class: "crumbs", "aria-label": "Topic path" },
      el("a", { href: "#/topics", text: "All topics" }),
      ...(topic ? topic.split("/").flatMap((part, i, parts) => [" / ",
        el("a", { href: "#/topics/" + parts.slice(0, i + 1).map(encodeURIComponent).join("/"), text: part })]) : []));
    fill(main, el("h1", { text: title }), crumbs, el("p", { class: "muted", text: "Loading…" }));
    const res = await api("GET", "/api/graph/topics?topic=" + encodeURIComponent(topic));
    if (location.hash.replace(/^#\/topics\/?/, "") !== topic.split("/").map(encodeURIComponent).join("/")) return;
    if (!res.ok) {
      fill(main, el("h1", { text: title }), crumbs, noticeBox("error", res.data.error));
      return;
    }
    const data = res.data;
    const index = new Map(data.nodes.map((n, i) => [n.id, i]));
    // a topic's circle has an area in proportion to its memories, against the largest here
    const largest = Math.max(1, ...data.nodes.filter((n) => n.kind === "topic").map((n) => n.count));
    const items = data.nodes.map((n) => {
      const problems = [n.unreachable ? `${n.unreachable} unreachable` : "", n.broken ? `${n.broken} broken` : ""]
        .filter(Boolean).join(" · ");
      if (n.kind === "topic") {
        return {
          id: n.name, label: `${n.label} (${n.count})`, sub: problems,
          href: "#/topics/" + n.name.split("/").map(encodeURIComponent).join("/"),
          classes: "node topic" + (n.global ? " global" : "") + (n.unreachable === n.count ? " unreached" : ""),
          radius: 6 + 24 * Math.sqrt(n.count / largest),
          title: `${n.name}/: ${n.count} memories${problems ? ", " + problems : ""}. Click to go in.`,
        };
      }
      return {
        id: n.name, label: n.label, sub: problems, href: memoryHref(n.name),
        classes: "node" + (n.global ? " global" : "") + (n.read_only ? " ro" : "") + (n.unreachable ? " unreached" : ""),
        radius: 6, title: n.name + (problems ? ` (${problems})` : ""),
      };
    });
    const maxWeight = Math.max(1, ...data.edges.map((e) => e.weight));
    const links = data.edges.map((e) => ({
      source: index.get(e.source), target: index.get(e.target), weight: e.weight,
      width: (0.6 + 5 * Math.sqrt(e.weight / maxWeight)).toFixed(2), classes: "edge weighted", arrow: false,
    }));
    const box = el("div", { class: "graph-wrap", id: "topic-map" }, el("p", { class: "muted", text: "Drawing…" }));
    const table = el("table", { class: "topic-table", id: "topic-table" },
      el("thead", {}, el("tr", {}, ...["Topic or memory", "Memories", "Unreachable", "Broken references"].map((h) => el("th", { text: h })))),
      el("tbody", {}, data.nodes.map((n) => el("tr", { "data-id": n.id },
        el("td", {}, el("a", { href: items[index.get(n.id)].href, text: n.kind === "topic" ? n.label : n.label })),
        el("td", { text: String(n.count) }), el("td", { text: String(n.unreachable) }),
        el("td", { text: String(n.broken) })))));
    fill(main,
      el("h1", { text: title }), crumbs,
      el("p", { class: "muted", text: "Circles are topics, sized by their memories; lines are references between them, thicker for more. Click a topic to go in, a memory to open it." }),
      data.nodes.length ? box : el("p", { class: "muted", text: "No memories here." }),
      data.nodes.length ? table : "");
    if (data.nodes.length) {
      graph.smallGraph(box, items, links, {
        label: title, iterations: 400, onDrawn: () => box.setAttribute("data-drawn", topic || "/"),
      });
    }
  }

  // The full graph: only when asked for, filtered, capped by the server (the most
  // connected memories first) with a note saying so.
  const fullGraphOptions = { topic: "", reach: "all", broken: false };

  function showGraph() {
    const topicInput = el("input", { type: "text", id: "graph-topic", value: fullGraphOptions.topic, placeholder: "all topics", "aria-label": "Topic" });
    const reach = el("select", { id: "graph-reach", "aria-label": "Reachability" },
      ...[["all", "all memories"], ["reachable", "reachable from mem:core"], ["unreachable", "not reachable from mem:core"]]
        .map(([value, text]) => el("option", { value, selected: fullGraphOptions.reach === value }, text)));
    const broken = el("input", { type: "checkbox", id: "graph-broken", checked: fullGraphOptions.broken });
    const status = el("p", { class: "muted", id: "graph-status", role: "status" },
      "The full graph is drawn on request. Most people read the local graph on a memory's page or the ",
      el("a", { href: "#/topics", text: "topic map" }), ".");
    const box = el("div", { class: "graph-wrap", id: "graph" });
    const draw = async () => {
      fullGraphOptions.topic = topicInput.value.trim().replace(/\/+$/, "");
      fullGraphOptions.reach = reach.value;
      fullGraphOptions.broken = broken.checked;
      status.textContent = "Loading…";
      const query = new URLSearchParams({ topic: fullGraphOptions.topic, reach: fullGraphOptions.reach, broken: fullGraphOptions.broken ? "1" : "0" });
      const res = await api("GET", "/api/graph?" + query);
      if (!box.isConnected) return;
      if (!res.ok) {
        fill(status, noticeBox("error", res.data.error));
        return;
      }
      drawFullGraph(res.data, box, status);
    };
    fill(main,
      el("h1", { text: "Reference graph" }),
      el("div", { class: "options graph-options" },
        el("label", {}, "Topic ", topicInput),
        el("label", {}, "Show ", reach),
        el("label", {}, broken, " only memories with broken references"),
        el("button", { class: "primary", id: "draw-graph", onclick: draw }, "Draw graph")),
      status, box);
  }

  function drawFullGraph(data, box, status) {
    const shown = data.nodes.length;
    const count = data.nodes.filter((n) => !n.missing && !n.ignored).length;
    const note = data.capped
      ? `Showing the ${shown} most connected of ${data.total_nodes} nodes (the cap is ${data.cap}); narrow it with a topic or a filter to see the rest.`
      : `${count} memories, ${data.edges.length} references.`;
    if (!shown) {
      status.textContent = "Nothing matches these filters.";
      fill(box);
      return;
    }
    const capNote = el("span", { id: "graph-note", class: data.capped ? "capped" : null, text: note });
    fill(status, capNote, " ", el("span", { id: "graph-progress", text: "Laying out…" }));
    const done = () => { const p = document.getElementById("graph-progress"); if (p) p.textContent = "Click a memory to open it."; };
    box.before(graphLegend());
    if (shown <= 300) {
      const { items, links } = memoryGraphItems(data, data.entry_point);
      graph.smallGraph(box, items, links, { label: "Reference graph", onDrawn: done });
      return;
    }
    const index = new Map(data.nodes.map((n, i) => [n.name, i]));
    const nodes = data.nodes.map((n) => ({
      name: n.name, title: nodeTitle(n), radius: n.name === data.entry_point ? 6 : 3,
      kind: n.missing || n.ignored ? "missing" : n.unreadable ? "unreadable" : n.read_only ? "ro" : n.global ? "global" : "project",
      faded: data.entry_point && !n.reachable && !n.missing && !n.ignored,
    }));
    const links = data.edges.map((e) => [index.get(e.source), index.get(e.target), e.broken])
      .filter(([a, b]) => a !== undefined && b !== undefined && a !== b);
    graph.canvasGraph(box, nodes, links, {
      onOpen: (name) => go(memoryHref(name)),
      onProgress: (finished) => { if (finished) done(); },
    });
  }

  // -- search --------------------------------------------------------------------------------
  // The box in the header searches as you type. The ranking is the library's (the same as
  // `serena memories search` and the agent's search_memories); the server also says where
  // the words matched, so the page marks them without matching anything itself. Memory
  // text is only ever inserted as text. An answer to a query typed over since is dropped.
  const SEARCH_DELAY_MS = 150;
  const SEARCH_RESULTS = 20; // what the server sends by default
  const search = { timer: null, seq: 0, controller: null, shown: null };

  function searchHref(query) {
    return "#/search/" + encodeURIComponent(query);
  }

  // `text` as text nodes, each [start, end) of `marks` (in characters) in a <mark>.
  function markedText(text, marks) {
    const chars = Array.from(text); // the server counts characters, not UTF-16 units
    const parts = [];
    let at = 0;
    for (const [start, end] of marks || []) {
      if (start < at || end <= start || end > chars.length) continue;
      if (start > at) parts.push(chars.slice(at, start).join(""));
      parts.push(el("mark", { text: chars.slice(start, end).join("") }));
      at = end;
    }
    parts.push(chars.slice(at).join(""));
    return parts;
  }

  function searchHit(hit) {
    return el("li", {},
      el("a", { class: "search-hit", href: memoryHref(hit.name), "data-name": hit.name },
        el("span", { class: "hit-name mono" }, markedText(hit.name, hit.name_marks)),
        hit.read_only ? el("span", { class: "badge ro", text: "read-only" }) : null,
        hit.why ? el("span", { class: "hit-why muted", text: hit.why }) : null,
        el("span", { class: "hit-lines" }, hit.lines.map((line) => el("span", { class: "hit-line" },
          el("span", { class: "line-no", text: String(line.line) }),
          el("span", { class: "line-text" }, markedText(line.text, line.marks)),
          line.drift ? searchDrift(line.drift) : null)))));
  }

  // The mark of a shown line whose mention of code changed since: what it is now, as text.
  function searchDrift(d) {
    const moved = d.new_name || d.new_path;
    return el("span", { class: `badge drift ${moved ? "moved" : "missing"}`, title: d.told, text: "drifted" });
  }

  function searchAnswer(query, hits) {
    if (!query) {
      const count = state.memories.length;
      return el("p", { class: "muted", id: "search-empty" },
        `Type words to search the names, headings and text of ${count} memor${count === 1 ? "y" : "ies"}. ` +
        "The best matches come first; Enter opens the first, and / comes back to the box from anywhere.");
    }
    if (!hits.length) {
      return el("p", { class: "muted", id: "search-none" },
        `No memory matches “${query}”. Try other words, fewer of them, or the start of a name in the filter on the left.`);
    }
    return [
      el("p", { class: "muted", id: "search-count" },
        hits.length === SEARCH_RESULTS
          ? `The ${hits.length} best matches for “${query}”; more words narrow it down.`
          : `${hits.length} match${hits.length === 1 ? "" : "es"} for “${query}”, best first.`),
      el("ol", { class: "search-hits", id: "search-hits" }, hits.map(searchHit)),
    ];
  }
  // Asks the server for `query` and shows the answer in `results`, unless another query was
  // asked for meanwhile. Resolves to the hits shown, or null when dropped or failed.
  async function runSearch(query, results) {
    const seq = ++search.seq;
    if (search.controller) search.controller.abort(); // its answer is no longer wanted
    search.controller = null;
    if (!query) {
      search.shown = { query, hits: [] };
      fill(results, searchAnswer(query, []));
      results.dataset.query = query;
      return [];
    }
    const controller = new AbortController();
    search.controller = controller;
    results.setAttribute("aria-busy", "true");
    const res = await api("GET", "/api/search?" + new URLSearchParams({ q: query }), undefined,
      { signal: controller.signal });
    if (seq !== search.seq) return null; // stale: a newer query owns the results now
    search.controller = null;
    results.removeAttribute("aria-busy");
    results.dataset.query = query;
    if (!res.ok) {
      search.shown = null;
      fill(results, noticeBox("error", res.data.error));
      return null;
    }
    search.shown = { query, hits: res.data.hits };
    fill(results, ...[searchAnswer(query, res.data.hits)].flat(), ...searchNotes(res.data));
    return res.data.hits;
  }

  // What the answer says beside its hits: as strong or weaker matches left out, meaning not ranked yet.
  function searchNotes(data) {
    const notes = [];
    if (data.more) {
      notes.push(`${data.more} more match${data.more === 1 ? " was" : "es were"} as strong as these; a narrower query shows them.`);
    }
    if (data.left_out) {
      notes.push(`${data.left_out} weaker match${data.left_out === 1 ? " was" : "es were"} left out.`);
    }
    if (data.preparing) notes.push("Ranked by words only: meaning-based ranking is still being prepared.");
    return notes.length ? [el("p", { class: "muted", id: "search-notes", text: notes.join(" ") })] : [];
  }

  function showSearch(query) {
    if (searchBox.value.trim() !== query) searchBox.value = query; // a link, Back or Forward
    const results = el("div", { id: "search-results", "aria-live": "polite" });
    fill(main, el("h1", { text: "Search" }), results);
    if (document.activeElement === document.body) searchBox.focus();
    return runSearch(query, results);
  }

  // Shows the answer for `query`: on the search page already, in place (the address
  // follows without a new history entry per keystroke); from elsewhere, as a new page.
  function searchFor(query) {
    clearTimeout(search.timer);
    const results = document.getElementById("search-results");
    if (results && location.hash.startsWith("#/search")) {
      history.replaceState(null, "", searchHref(query));
      return runSearch(query, results);
    }
    history.pushState(null, "", searchHref(query)); // no hashchange: drawn right here
    return route();
  }

  searchBox.form.addEventListener("submit", (event) => event.preventDefault()); // Enter is below
  searchBox.addEventListener("input", () => {
    clearTimeout(search.timer);
    search.timer = setTimeout(() => searchFor(searchBox.value.trim()), SEARCH_DELAY_MS);
  });

  function hitLinks() {
    return [...main.querySelectorAll("#search-hits a.search-hit")];
  }

  searchBox.addEventListener("keydown", async (event) => {
    if (event.key === "Escape") {
      searchBox.blur();
    } else if (event.key === "ArrowDown") {
      const first = hitLinks()[0];
      if (first) { event.preventDefault(); first.focus(); }
    } else if (event.key === "Enter") {
      event.preventDefault();
      const query = searchBox.value.trim();
      if (!query) return;
      const onShow = search.shown && search.shown.query === query
        && document.getElementById("search-results") ? search.shown.hits : null;
      if (onShow) clearTimeout(search.timer);
      const hits = onShow || await searchFor(query);
      // opened only if the box still holds what was searched for
      if (hits && hits.length && searchBox.value.trim() === query) {
        searchBox.blur();
        go(memoryHref(hits[0].name));
      }
    }
  });

  // Up and down move between the hits; up from the first goes back to the box.
  main.addEventListener("keydown", (event) => {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    const links = hitLinks();
    const at = links.indexOf(document.activeElement);
    if (at < 0) return;
    event.preventDefault();
    const next = at + (event.key === "ArrowDown" ? 1 : -1);
    if (next < 0) searchBox.focus();
    else if (next < links.length) links[next].focus();
  });

  // `/` anywhere but in a text field goes to the search box.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target instanceof HTMLElement && (target.isContentEditable
      || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
    event.preventDefault();
    searchBox.focus();
    searchBox.select();
  });

  // -- start ---------------------------------------------------------------------------------
  // Keep up with the agent and editors: refresh the tree, and the memory on show when it
  // changed on disk (never while an editor, a rename or a delete box is open).
  async function refreshViewed() {
    const viewing = state.viewing;
    const actions = document.getElementById("actions");
    if (!viewing || (actions && actions.childElementCount)) return;
    const res = await api("GET", "/api/memory?name=" + encodeURIComponent(viewing.name), undefined,
      { etag: viewing.etag });
    if (res.unchanged || state.viewing !== viewing || (actions && actions.childElementCount)) return;
    if (res.ok && res.data.version !== viewing.version) renderMemory(res.data, res.etag);
    else if (res.status === 404) {
      state.viewing = null;
      fill(main, el("h1", { class: "mono", text: viewing.name }), noticeBox("error", res.data.error));
    }
  }

  // Polls never overlap: the next one is planned when the last has answered, however
  // slow the server is; a focus while one is under way does not start another.
  const POLL_MS = 5000;
  let polling = null;

  function poll() {
    if (!polling) {
      polling = Promise.all([refreshState(), refreshViewed()])
        .catch(() => {}).finally(() => { polling = null; });
    }
    return polling;
  }

  function planPoll() {
    setTimeout(async () => {
      if (!document.hidden) await poll();
      planPoll();
    }, POLL_MS);
  }

  window.addEventListener("focus", () => { poll(); });
  refreshState().then(route);
  planPoll();
})();
