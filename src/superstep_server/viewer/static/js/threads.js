// The threads list: POST /threads/search filtered by graph (metadata graph_id), status and
// metadata (a JSON object), paged; each row links to its thread.
import { post, get } from "./api.js";
import { h, clear, when, go } from "./dom.js";

const LIMIT = 25;

export async function threadsView(root, params) {
  clear(root);
  const info = await get("/info");
  const form = h("form", { class: "filters", id: "filters" },
    h("label", {}, "graph ", info.graphs.length
      ? h("select", { name: "graph" }, h("option", { value: "" }, "any"),
        ...info.graphs.map((g) => h("option", { value: g }, g)))
      : h("input", { name: "graph", placeholder: "graph id", size: 10 })),
    h("label", {}, "status ", h("select", { name: "status" },
      ...["", "idle", "busy", "interrupted", "error"].map((s) => h("option", { value: s }, s || "any")))),
    h("label", {}, "metadata ", h("input", { name: "metadata", placeholder: '{"user": "ada"}', size: 24 })),
    h("label", {}, "thread id ", h("input", { name: "ids", placeholder: "exact id", size: 20 })),
    h("button", { type: "submit" }, "Search"));
  for (const name of ["graph", "status", "metadata", "ids"]) {
    if (params.get(name)) form.elements[name].value = params.get(name);
  }
  const offset = Number(params.get("offset") || 0);
  const newThread = h("form", { class: "new-thread", id: "new-thread" },
    h("select", { name: "graph" }, ...info.graphs.map((g) => h("option", { value: g }, g))),
    h("button", { type: "submit" }, "New thread"));
  const table = h("table", { class: "threads", id: "threads" });
  const pages = h("div", { class: "pager" });
  const problem = h("p", { class: "error" });
  const where = info.read_only ? h("p", { class: "small", id: "read-only" }, `${info.database} (read-only)`) : "";
  root.append(h("h2", {}, "Threads"), where, form, info.read_only ? "" : newThread, problem, table, pages);

  form.onsubmit = (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const name of ["graph", "status", "metadata", "ids"]) {
      if (form.elements[name].value) q.set(name, form.elements[name].value);
    }
    go(`#/threads?${q}`);
  };
  newThread.onsubmit = when(async (e) => {
    e.preventDefault();
    const graph = newThread.elements.graph.value;
    const thread = await post("/threads", { metadata: { graph_id: graph } });
    go(`#/thread/${thread.thread_id}`);
  }, problem);

  const body = { limit: LIMIT + 1, offset, sort_by: "updated_at", sort_order: "desc" };
  const metadata = {};
  try {
    Object.assign(metadata, params.get("metadata") ? JSON.parse(params.get("metadata")) : {});
  } catch (err) {
    problem.textContent = `metadata: not a JSON object (${err.message})`;
    return;
  }
  if (params.get("graph")) metadata.graph_id = params.get("graph");
  if (Object.keys(metadata).length) body.metadata = metadata;
  if (params.get("status")) body.status = params.get("status");
  if (params.get("ids")) body.ids = [params.get("ids")];
  const found = await post("/threads/search", body);
  const more = found.length > LIMIT;
  table.append(h("tr", {}, ...["thread", "graph", "status", "updated", "metadata"].map((t) => h("th", {}, t))));
  for (const t of found.slice(0, LIMIT)) {
    const { graph_id: graph, ...rest } = t.metadata || {};
    table.append(h("tr", { "data-thread": t.thread_id },
      h("td", {}, h("a", { href: `#/thread/${t.thread_id}` }, t.thread_id)),
      h("td", {}, graph || ""),
      h("td", {}, h("span", { class: `status ${t.status}` }, t.status)),
      h("td", {}, new Date(t.updated_at).toLocaleString()),
      h("td", { class: "meta" }, Object.keys(rest).length ? JSON.stringify(rest) : "")));
  }
  if (!found.length) table.append(h("tr", {}, h("td", { colspan: 5 }, "no threads match")));
  const at = (o) => { const q = new URLSearchParams(params); q.set("offset", o); return `#/threads?${q}`; };
  if (offset > 0) pages.append(h("a", { href: at(Math.max(0, offset - LIMIT)) }, "◀ newer"), " ");
  pages.append(`${offset + 1}–${offset + Math.min(found.length, LIMIT)}`);
  if (more) pages.append(" ", h("a", { href: at(offset + LIMIT) }, "older ▶"));
}
