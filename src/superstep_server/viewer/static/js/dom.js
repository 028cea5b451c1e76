// Small DOM helpers.

// h("div", {class: "x", onclick: fn}, child, "text", ...)
export function h(tag, attrs, ...kids) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node[k] = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) {
    if (kid === undefined || kid === null || kid === false) continue;
    node.append(kid instanceof Node ? kid : String(kid));
  }
  return node;
}

export function clear(node) { node.replaceChildren(); }

export function go(hash) { window.location.hash = hash; }

// An event handler whose failures are shown in `where` (an element) instead of lost.
export function when(handler, where) {
  return async (event) => {
    where.textContent = "";
    try {
      await handler(event);
    } catch (err) {
      where.textContent = String(err.message || err);
    }
  };
}

export function json(value) {
  return JSON.stringify(value, null, 2);
}

// Text as JSON, or a clear error naming the field.
export function parseJson(text, field) {
  if (!text.trim()) return null;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${field}: not JSON (${err.message})`);
  }
}
