// The dashboard page: plain JavaScript, no build step, no outside resources.
// Memory content is only ever inserted as text, except the HTML the server rendered with
// markdown-it (raw HTML disabled, links validated). No inline handlers anywhere.
"use strict";

(() => {
  const main = document.getElementById("main");
  const treeBox = document.getElementById("tree");
  const filterBox = document.getElementById("filter");
  const flashBox = document.getElementById("flash");
  const SVG_NS = "http://www.w3.org/2000/svg";

  const state = {
    project: null,
    memories: [],
    filter: "",
    collapsed: new Set(),
    currentName: null,
    dirty: false, // an editor holds unsaved text
    viewing: null, // {name, version} of the memory shown read-only, kept fresh
    notice: null, // {kind, text} shown once on the next view
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

  function noticeBox(kind, text) {
    return el("div", { class: `notice ${kind}`, role: kind === "error" ? "alert" : "status", text });
  }

  function takeNotice() {
    const notice = state.notice;
    state.notice = null;
    return notice ? noticeBox(notice.kind, notice.text) : null;
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
      treeBox.replaceChildren(noticeBox("error", res.data.error));
      return;
    }
    stateTag = res.etag;
    state.project = res.data.project;
    state.memories = res.data.memories;
    const projectName = document.getElementById("project-name");
    projectName.textContent = state.project ? state.project.name : "no project active";
    projectName.title = state.project ? state.project.root : "";
    renderTree();
  }

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
      node.memories.push({ ...memory, leaf: parts[parts.length - 1] });
    }
    return root;
  }

  function renderNode(node, path) {
    const list = el("ul", { class: "tree" });
    const topics = [...node.topics.entries()].sort((a, b) => a[0].localeCompare(b[0]));
    for (const [topic, child] of topics) {
      const topicPath = path + topic;
      const open = state.filter !== "" || !state.collapsed.has(topicPath);
      const details = el("details", { open, "data-topic": topicPath },
        el("summary", {}, el("span", { class: "topic", text: topic + "/" }),
          el("span", { class: "count", text: String(child.count) })),
        renderNode(child, topicPath + "/"));
      details.addEventListener("toggle", () => {
        if (state.filter !== "") return;
        if (details.open) state.collapsed.delete(topicPath);
        else state.collapsed.add(topicPath);
      });
      list.append(el("li", { class: "topic-item" }, details));
    }
    for (const memory of node.memories.sort((a, b) => a.leaf.localeCompare(b.leaf))) {
      list.append(el("li", { class: "memory-item" },
        el("a", {
          href: memoryHref(memory.name),
          "data-name": memory.name,
          class: memory.name === state.currentName ? "active" : null,
          title: memory.name,
        }, memory.leaf),
        memory.read_only ? el("span", { class: "badge ro", text: "read-only" }) : null));
    }
    return list;
  }

  function treeSection(title, scope, items, prefix) {
    const readOnly = items.filter((m) => m.read_only).length;
    const heading = el("h2", {}, title, el("span", { class: "count", text: String(items.length) }),
      readOnly ? el("span", { class: "badge ro", text: `${readOnly} read-only` }) : null);
    const body = items.length
      ? renderNode(buildTree(items, prefix), prefix)
      : el("p", { class: "empty", text: state.filter ? "No match." : "None yet." });
    return el("section", { class: "tree-section", "data-scope": scope }, heading, body);
  }

  function renderTree() {
    const needle = state.filter.toLowerCase();
    const shown = state.memories.filter((m) => !needle || m.name.toLowerCase().includes(needle));
    treeBox.replaceChildren(
      treeSection("Project", "project", shown.filter((m) => !m.global), ""),
      treeSection("Global", "global", shown.filter((m) => m.global), "global/"),
    );
  }

  filterBox.addEventListener("input", () => {
    state.filter = filterBox.value.trim();
    renderTree();
  });

  // -- routing -------------------------------------------------------------------------
  function route() {
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
    renderTree();
    if (view === "memory" && arg) return showMemory(arg);
    if (view === "new") return showNew(arg);
    if (view === "check") return showCheck();
    if (view === "graph") return showGraph();
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
    main.replaceChildren(
      takeNotice() || "",
      el("h1", { text: state.project ? state.project.name : "No project" }),
      el("p", { class: "muted mono", text: state.project ? state.project.root : "" }),
      el("p", {}, `${project} project memories, ${global} global memories, ${readOnly} read-only.`),
      hasCore ? el("p", {}, "Start from ", el("a", { href: memoryHref("core"), text: "core" }), ", the entry point of the memory graph.") : null,
      el("div", { class: "toolbar" },
        el("button", { class: "primary", onclick: () => go("#/new") }, "New memory"),
        el("button", { onclick: () => go("#/check") }, "Check references"),
        el("button", { onclick: () => go("#/graph") }, "Reference graph")),
    );
  }

  // -- one memory ----------------------------------------------------------------------
  async function showMemory(name) {
    if (!state.viewing || state.viewing.name !== name) {
      // never leave another memory's buttons clickable while this one loads
      main.replaceChildren(el("h1", { text: name }), el("p", { class: "muted", text: "Loading…" }));
    }
    const res = await api("GET", "/api/memory?name=" + encodeURIComponent(name));
    if (state.currentName !== name) return; // the person navigated away meanwhile
    if (!res.ok) {
      main.replaceChildren(takeNotice() || "", el("h1", { class: "mono", text: name }),
        noticeBox("error", res.data.error));
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
    // Rendered by markdown-it on the server with raw HTML off and links validated.
    article.innerHTML = memory.html;
    const refs = memory.references.length
      ? el("ul", {}, memory.references.map((ref) => el("li", {},
        el("a", { href: memoryHref(ref.name), class: ref.exists ? null : "broken-name" }, ref.name),
        ref.exists ? null : el("span", { class: "badge", text: "missing" }))))
      : el("p", { class: "muted", text: "None." });
    const backlinks = memory.backlinks.length
      ? el("ul", { id: "backlinks" }, memory.backlinks.map((link) => el("li", {},
        el("a", { href: memoryHref(link.source), text: link.source }),
        el("span", { class: "muted", text: ` (line ${link.lines.join(", ")})` }))))
      : el("p", { class: "muted", id: "backlinks", text: "No memory refers to this one." });
    main.replaceChildren(
      takeNotice() || "",
      el("div", { class: "memory-header" },
        el("h1", { text: memory.name }),
        el("span", { class: memory.global ? "badge global" : "badge", text: memory.global ? "global" : "project" }),
        memory.read_only ? el("span", { class: "badge ro", text: "read-only" }) : null),
      el("div", { class: "toolbar" },
        button("Edit", "edit-button", () => renderEditor(memory, memory.content), "primary", tooLarge),
        button("Rename / move", "rename-button", () => showRename(memory, actions)),
        button("Delete", "delete-button", () => showDelete(memory, actions))),
      actions,
      memory.truncated ? el("div", { class: "notice warn", id: "truncated-note", role: "status" },
        `This memory is large (${sizeText(memory.size)}): only the first ${sizeText(memory.content.length)} are shown. ` +
        "Open the file in an editor to see or change the rest.") : null,
      el("div", { class: "memory-body" }, article,
        el("aside", { class: "links-panel" },
          el("h2", { text: "References" }), refs,
          el("h2", { text: "Backlinks" }), backlinks)),
    );
  }

  function showRename(memory, actions) {
    const input = el("input", { type: "text", id: "rename-to", value: memory.name, "aria-label": "New name" });
    const submit = async () => {
      const res = await api("POST", "/api/rename", { old: memory.name, new: input.value });
      if (!res.ok) {
        actions.replaceChildren(form, noticeBox("error", res.data.error));
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
      el("button", { onclick: () => actions.replaceChildren() }, "Cancel"));
    actions.replaceChildren(form);
    input.focus();
    input.select();
  }

  function showDelete(memory, actions) {
    const confirmDelete = async () => {
      const res = await api("POST", "/api/delete", { name: memory.name, base_version: memory.version });
      if (!res.ok) {
        actions.replaceChildren(noticeBox("error", res.data.error));
        return;
      }
      state.notice = { kind: "ok", text: `Deleted memory '${res.data.deleted}'.` };
      await refreshState();
      go("#/");
    };
    actions.replaceChildren(el("div", { class: "inline-form confirm", role: "alertdialog" },
      el("span", {}, "Delete ", el("strong", { text: memory.name }), " for good? This can't be undone."),
      el("button", { class: "danger", id: "delete-confirm", onclick: confirmDelete }, "Delete"),
      el("button", { id: "delete-cancel", onclick: () => actions.replaceChildren() }, "Cancel")));
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
      if (!res.ok) { status.replaceChildren(noticeBox("error", res.data.error)); return; }
      preview.innerHTML = res.data.html; // rendered like a saved memory: raw HTML off
      preview.hidden = false;
    };
    const save = () => saveMemory(memory.name, area.value, memory.version, status);
    area.addEventListener("keydown", (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key === "s") { e.preventDefault(); save(); }
    });
    main.replaceChildren(
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

  async function saveMemory(name, content, baseVersion, status) {
    const res = await api("PUT", "/api/memory", { name, content, base_version: baseVersion });
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
    status.replaceChildren(noticeBox("error", res.data.error));
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
    main.replaceChildren(
      el("div", { class: "memory-header" }, el("h1", { text: name }),
        el("span", { class: "badge ro", text: "conflict" })),
      noticeBox("warn", `${info.error}. It changed since you opened it (the agent, an editor or another tab). ` +
        "Nothing is lost: compare both versions, edit yours if you want to merge, then choose."),
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

  // -- creating --------------------------------------------------------------------------
  function showNew(topic) {
    const nameInput = el("input", { type: "text", id: "new-name", value: topic ? topic.replace(/\/?$/, "/") : "", placeholder: "topic/name", "aria-label": "Name" });
    const area = el("textarea", { id: "new-content", spellcheck: "false", "aria-label": "Content" });
    area.addEventListener("input", () => { state.dirty = true; });
    const status = el("div", {});
    const create = async () => {
      const res = await api("POST", "/api/memory", { name: nameInput.value, content: area.value });
      if (!res.ok) {
        status.replaceChildren(noticeBox("error", res.data.error));
        return;
      }
      state.dirty = false;
      state.notice = { kind: "ok", text: `Created '${res.data.name}'.` };
      await refreshState();
      go(memoryHref(res.data.name));
    };
    main.replaceChildren(
      el("h1", { text: "New memory" }),
      el("p", { class: "muted", text: "Names use / between topics; names starting with global/ are shared by every project." }),
      status,
      el("div", { class: "editor" },
        el("label", { for: "new-name", text: "Name" }), nameInput,
        el("label", { for: "new-content", text: "Content (Markdown)" }), area),
      el("div", { class: "toolbar" },
        el("button", { class: "primary", id: "create-button", onclick: create }, "Create"),
        el("button", { onclick: () => { state.dirty = false; go("#/"); } }, "Cancel")),
    );
    nameInput.focus();
  }

  // -- the integrity report ----------------------------------------------------------------
  const checkOptions = { include_unmarked: true, fuzzy: true, reachability: true };

  function sourceLink(name, lines) {
    return el("span", { class: "where" }, "in ", el("a", { href: memoryHref(name), text: name }),
      lines && lines.length ? ` (line${lines.length > 1 ? "s" : ""} ${lines.join(", ")})` : "");
  }

  function reportSection(title, id, items, render, empty) {
    return el("section", { class: "report-section", id },
      el("h2", {}, title, el("span", { class: "count", text: String(items.length) })),
      items.length ? el("ul", { class: "report-list" }, items.map(render))
        : el("p", { class: "muted", text: empty }));
  }

  async function showCheck(resultNotice) {
    const options = el("div", { class: "options" },
      ...[["include_unmarked", "Bare mentions"], ["fuzzy", "Near-misses"], ["reachability", "Unreachable from mem:core"]]
        .map(([key, label]) => {
          const box = el("input", { type: "checkbox", id: `opt-${key}`, checked: checkOptions[key] });
          box.addEventListener("change", () => { checkOptions[key] = box.checked; showCheck(); });
          return el("label", {}, box, " ", label);
        }),
      el("button", { id: "recheck", onclick: () => showCheck() }, "Check again"));
    const header = [el("h1", { text: "Integrity check" }), options];
    main.replaceChildren(...header, el("p", { class: "muted", text: "Checking…" }));
    const query = Object.entries(checkOptions).map(([k, v]) => `${k}=${v ? 1 : 0}`).join("&");
    const res = await api("GET", "/api/check?" + query);
    if (!location.hash.startsWith("#/check")) return;
    if (!res.ok) {
      main.replaceChildren(...header, noticeBox("error", res.data.error));
      return;
    }
    const report = res.data;
    const body = [];
    if (resultNotice) body.push(resultNotice);
    body.push(report.clean
      ? noticeBox("ok", `No integrity problems found in ${report.scanned} memories.`)
      : el("p", { class: "muted", id: "check-summary", text: `${report.scanned} memories checked.` }));

    body.push(reportSection("Stale references", "stale", report.stale_references, (stale) => el("li", {},
      el("div", {}, el("code", { text: "mem:" + stale.target }), " ", sourceLink(stale.source, stale.lines),
        stale.source_read_only ? el("span", { class: "badge ro", text: "read-only source" }) : null,
        stale.target_ignored ? el("span", { class: "badge", text: "target is ignored" }) : null),
      el("div", { class: "candidates" },
        stale.candidates.length ? "Replace with:" : el("span", { class: "muted", text: "No likely intended target." }),
        stale.candidates.map((candidate) => el("button", {
          class: "fix", disabled: stale.source_read_only, "data-candidate": candidate,
          onclick: () => applyCandidate(stale.source, stale.target, candidate),
        }, "mem:" + candidate)))), "Every reference points to an existing memory."));

    if (report.bare_mentions) {
      const high = report.bare_mentions.high_confidence;
      const low = report.bare_mentions.low_confidence;
      const mention = (b) => el("li", {},
        el("span", {}, `${b.occurrences} × `, el("code", { text: b.name }), " without mem: "),
        sourceLink(b.source, b.lines),
        b.source_read_only ? el("span", { class: "badge ro", text: "read-only source" }) : null);
      const section = reportSection("Names written without mem:", "bare", high.concat(low), mention,
        "No bare mentions of memory names.");
      if (high.length) {
        section.insertBefore(el("div", { class: "toolbar" },
          el("button", { class: "primary", id: "auto-prefix", onclick: () => autoPrefix(false) },
            "Add mem: to the high-confidence mentions"),
          el("button", { id: "auto-prefix-preview", onclick: () => autoPrefix(true) }, "Preview"),
          el("span", { class: "muted", text: "Only exact names with a / or 10+ characters, in writable project memories." })),
        section.children[1]);
      }
      body.push(section);
    }
    if (report.near_misses) {
      body.push(reportSection("Near-misses", "near-misses", report.near_misses, (b) => el("li", {},
        el("code", { text: b.token }), " ", sourceLink(b.source),
        el("span", { class: "muted" }, " — maybe ", el("code", { text: "mem:" + b.name }), "; edit by hand")),
      "No near-misses of long names."));
    }
    if (report.unreachable) {
      const section = reportSection("Not reachable from mem:core", "unreachable", report.unreachable,
        (name) => el("li", {}, el("a", { href: memoryHref(name), text: name })),
        "Every memory can be reached from mem:core.");
      if (report.entry_point === null) {
        section.insertBefore(noticeBox("warn", "There is no core memory: nothing can be reached. Write mem:core as the entry point."), section.children[1]);
      }
      body.push(section);
      if (report.ignored_references && report.ignored_references.length) {
        body.push(reportSection("References into ignored memories", "ignored-references", report.ignored_references,
          (r) => el("li", {}, el("code", { text: "mem:" + r.target }), " ", sourceLink(r.source, r.lines)), ""));
      }
    }
    if (report.unreadable) {
      body.push(reportSection("Not valid UTF-8, not checked", "unreadable", report.unreadable,
        (name) => el("li", { class: "mono", text: name }), ""));
    }
    main.replaceChildren(...header, ...body);
  }

  async function applyCandidate(source, old, candidate) {
    const res = await api("POST", "/api/fix-reference", { source, old, new: candidate });
    if (!res.ok) {
      showCheck(noticeBox("error", res.data.error));
      return;
    }
    refreshState();
    showCheck(noticeBox("ok", `Pointed ${res.data.count} reference(s) in '${source}' from mem:${old} to mem:${candidate}.`));
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

  // -- the reference graph -------------------------------------------------------------------
  async function showGraph() {
    main.replaceChildren(el("h1", { text: "Reference graph" }), el("p", { class: "muted", text: "Loading…" }));
    const res = await api("GET", "/api/graph");
    if (!res.ok) {
      main.replaceChildren(el("h1", { text: "Reference graph" }), noticeBox("error", res.data.error));
      return;
    }
    const { nodes, edges, entry_point: entryPoint } = res.data;
    main.replaceChildren(
      el("h1", { text: "Reference graph" }),
      el("div", { class: "graph-legend" },
        el("span", {}, el("span", { class: "legend-dot project" }), "project"),
        el("span", {}, el("span", { class: "legend-dot global" }), "global"),
        el("span", {}, el("span", { class: "legend-dot ro" }), "read-only"),
        el("span", {}, el("span", { class: "legend-dot missing" }), "missing or ignored (broken reference)"),
        nodes.some((n) => n.unreadable) ? el("span", {}, el("span", { class: "legend-dot unreadable" }), "not valid UTF-8") : null,
        entryPoint ? el("span", { text: "faded: not reachable from mem:core" }) : null,
        el("span", { text: `${nodes.filter((n) => !n.missing && !n.ignored).length} memories, ${edges.length} references. Click a memory to open it.` })),
      nodes.length
        ? el("div", { class: "graph-wrap", id: "graph" }, drawGraph(nodes, edges, entryPoint))
        : el("p", { class: "muted", text: "No memories yet." }),
    );
  }

  // Force-directed layout (Fruchterman-Reingold) from a deterministic start on a circle;
  // the drawing is then framed around whatever shape the graph settled into.
  function layout(nodes, edges) {
    const count = nodes.length;
    if (count === 1) return [{ x: 0, y: 0 }];
    const k = 90; // ideal edge length, in SVG units
    const index = new Map(nodes.map((n, i) => [n.name, i]));
    const radius = (k * Math.sqrt(count)) / 2;
    const pos = nodes.map((_, i) => {
      const angle = (2 * Math.PI * i) / count;
      return { x: radius * Math.cos(angle), y: radius * Math.sin(angle) };
    });
    const links = edges.map((e) => [index.get(e.source), index.get(e.target)])
      .filter(([a, b]) => a !== undefined && b !== undefined && a !== b);
    const iterations = count > 400 ? 80 : 300;
    let temperature = radius / 2;
    for (let step = 0; step < iterations; step += 1) {
      const disp = pos.map(() => ({ x: 0, y: 0 }));
      for (let i = 0; i < count; i += 1) {
        for (let j = i + 1; j < count; j += 1) {
          let dx = pos[i].x - pos[j].x;
          let dy = pos[i].y - pos[j].y;
          let dist = Math.hypot(dx, dy);
          if (dist < 0.01) { dx = 0.01 * (i - j); dy = 0.01; dist = Math.hypot(dx, dy); }
          const force = (k * k) / dist;
          disp[i].x += (dx / dist) * force; disp[i].y += (dy / dist) * force;
          disp[j].x -= (dx / dist) * force; disp[j].y -= (dy / dist) * force;
        }
      }
      for (const [a, b] of links) {
        const dx = pos[a].x - pos[b].x;
        const dy = pos[a].y - pos[b].y;
        const dist = Math.max(Math.hypot(dx, dy), 0.01);
        const force = (dist * dist) / k;
        disp[a].x -= (dx / dist) * force; disp[a].y -= (dy / dist) * force;
        disp[b].x += (dx / dist) * force; disp[b].y += (dy / dist) * force;
      }
      for (let i = 0; i < count; i += 1) {
        // gravity keeps unconnected memories from drifting away
        disp[i].x -= pos[i].x * 0.9;
        disp[i].y -= pos[i].y * 0.9;
        const len = Math.max(Math.hypot(disp[i].x, disp[i].y), 0.01);
        const move = Math.min(len, temperature);
        pos[i].x += (disp[i].x / len) * move;
        pos[i].y += (disp[i].y / len) * move;
      }
      temperature = Math.max(temperature * 0.97, 0.5);
    }
    return pos;
  }

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined) node.setAttribute(key, String(value));
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  function drawGraph(nodes, edges, entryPoint) {
    const pos = layout(nodes, edges);
    const at = new Map(nodes.map((n, i) => [n.name, pos[i]]));
    let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
    nodes.forEach((node, i) => {
      minX = Math.min(minX, pos[i].x - 12);
      maxX = Math.max(maxX, pos[i].x + 14 + 6.5 * node.name.length); // room for the label
      minY = Math.min(minY, pos[i].y - 14);
      maxY = Math.max(maxY, pos[i].y + 14);
    });
    const width = Math.ceil(maxX - minX);
    const height = Math.ceil(maxY - minY);
    const root = svg("svg", {
      viewBox: `${Math.floor(minX)} ${Math.floor(minY)} ${width} ${height}`,
      width, role: "img", "aria-label": "Reference graph",
    });
    root.append(svg("defs", {}, svg("marker", {
      id: "arrow", viewBox: "0 0 10 10", refX: 16, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse",
    }, svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#8c959f" }))));
    for (const edge of edges) {
      const a = at.get(edge.source);
      const b = at.get(edge.target);
      if (!a || !b || edge.source === edge.target) continue;
      root.append(svg("line", {
        class: edge.broken ? "edge broken" : "edge", x1: a.x, y1: a.y, x2: b.x, y2: b.y,
        "marker-end": "url(#arrow)", "data-source": edge.source, "data-target": edge.target,
      }));
    }
    nodes.forEach((node, i) => {
      const classes = ["node"];
      if (!node.reachable && !node.missing && !node.ignored && entryPoint) classes.push("unreached");
      if (node.missing || node.ignored) classes.push("missing");
      else if (node.unreadable) classes.push("unreadable");
      else if (node.read_only) classes.push("ro");
      else if (node.global) classes.push("global");
      const label = svg("text", { x: pos[i].x + 9, y: pos[i].y + 4 });
      label.textContent = node.name;
      const title = svg("title", {});
      title.textContent = node.missing ? `${node.name} (missing)`
        : node.ignored ? `${node.name} (ignored)`
          : node.unreadable ? `${node.name} (not valid UTF-8: its references can't be read)` : node.name;
      const group = svg("a", { href: memoryHref(node.name), class: classes.join(" "), "data-name": node.name },
        title, svg("circle", { cx: pos[i].x, cy: pos[i].y, r: node.name === entryPoint ? 9 : 6 }), label);
      root.append(group);
    });
    return root;
  }

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
      main.replaceChildren(el("h1", { class: "mono", text: viewing.name }), noticeBox("error", res.data.error));
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
