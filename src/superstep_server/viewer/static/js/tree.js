// A state as a tree, diffed against the state before it: keys `added`, `changed`, `removed`
// (the old value shown struck through). Subtrees open where something changed; closed ones
// render their children only when first opened, and long lists show PAGE items at a time
// (starting at the first change), so a 1,000-message state stays quick.

export const PAGE = 50;
const NONE = Symbol("none");

function kind(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

export function same(a, b) {
  if (a === b) return true;
  const ka = kind(a);
  if (ka !== kind(b)) return false;
  if (ka === "array") {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  if (ka === "object") {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const k of keys) if (!(k in b) || !same(a[k], b[k])) return false;
    return true;
  }
  return false;
}

function leafText(v) {
  const s = typeof v === "string" ? JSON.stringify(v) : String(v);
  return s.length > 400 ? s.slice(0, 400) + "…" : s;
}

function status(value, before) {
  if (before === NONE) return "added";
  if (value === NONE) return "removed";
  return same(value, before) ? "" : "changed";
}

function summary(v) {
  if (Array.isArray(v)) return `[${v.length}]`;
  const keys = Object.keys(v);
  const head = v.type && v.content !== undefined ? ` ${v.type}: ${leafText(v.content).slice(0, 60)}` : "";
  return `{${keys.length}}${head}`;
}

function row(key, value, before, diffing) {
  const state = diffing ? status(value, before) : "";
  const shown = value === NONE ? before : value;
  const container = kind(shown) === "array" || kind(shown) === "object";
  const wrap = document.createElement(container ? "details" : "div");
  wrap.className = `entry ${state}`.trim();
  wrap.dataset.key = key;
  const head = document.createElement(container ? "summary" : "span");
  const name = document.createElement("span");
  name.className = "key";
  name.textContent = key;
  head.append(name, ": ");
  if (!container) {
    const leaf = document.createElement("span");
    leaf.className = `leaf ${kind(shown)}`;
    leaf.textContent = leafText(shown);
    head.append(leaf);
    if (state === "changed" && kind(before) !== "array" && kind(before) !== "object") {
      const old = document.createElement("span");
      old.className = "was";
      old.textContent = leafText(before);
      head.append(" ", old);
    }
    wrap.append(head);
    return wrap;
  }
  const brief = document.createElement("span");
  brief.className = "brief";
  brief.textContent = summary(shown);
  head.append(brief);
  wrap.append(head);
  const inner = state === "changed" ? before : NONE;
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    wrap.append(children(shown, inner, diffing && state === "changed"));
  };
  wrap.addEventListener("toggle", build);
  if (state === "changed") { wrap.open = true; build(); }
  return wrap;
}

function children(value, before, diffing) {
  const box = document.createElement("div");
  box.className = "children";
  if (Array.isArray(value)) {
    const prev = Array.isArray(before) ? before : [];
    const length = Math.max(value.length, diffing ? prev.length : 0);
    let first = 0;
    if (diffing) {
      while (first < length && first < prev.length && first < value.length && same(value[first], prev[first])) first++;
      if (first >= length) first = 0;
    }
    let start = Math.floor(first / PAGE) * PAGE;
    const draw = () => {
      box.replaceChildren();
      if (length > PAGE) box.append(pager(start, length, (s) => { start = s; draw(); }));
      for (let i = start; i < Math.min(length, start + PAGE); i++) {
        const v = i < value.length ? value[i] : NONE;
        const b = !diffing ? v : i < prev.length ? prev[i] : NONE;
        box.append(row(String(i), v, b, diffing));
      }
    };
    draw();
    return box;
  }
  const prev = diffing && before && kind(before) === "object" ? before : null;
  for (const [k, v] of Object.entries(value)) box.append(row(k, v, prev ? (k in prev ? prev[k] : NONE) : v, diffing));
  if (prev) for (const [k, b] of Object.entries(prev)) if (!(k in value)) box.append(row(k, NONE, b, true));
  return box;
}

function pager(start, length, go) {
  const bar = document.createElement("div");
  bar.className = "pager";
  const back = document.createElement("button");
  back.textContent = "◀ earlier";
  back.disabled = start === 0;
  back.onclick = () => go(Math.max(0, start - PAGE));
  const next = document.createElement("button");
  next.textContent = "later ▶";
  next.disabled = start + PAGE >= length;
  next.onclick = () => go(start + PAGE);
  const where = document.createElement("span");
  where.textContent = ` items ${start}–${Math.min(length, start + PAGE) - 1} of ${length} `;
  bar.append(back, where, next);
  return bar;
}

// The tree of `value` (an object), diffed against `before` unless it is undefined.
export function stateTree(value, before) {
  const root = document.createElement("div");
  root.className = "tree";
  const diffing = before !== undefined;
  root.append(children(value ?? {}, diffing ? before ?? {} : NONE, diffing));
  return root;
}
