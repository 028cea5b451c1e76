// The graph drawn from /assistants/{id}/graph (the structure the Mermaid export draws:
// nodes, edges with `conditional`, subgraph nodes as `parent:child` ids with xray), laid
// out by dagre (vendor/dagre.min.js, a global) and drawn as SVG here so that nodes can be
// marked: `active` (running in the current superstep), `waiting` (an interrupt or a
// breakpoint), `visited` (on the path a run took) and `failed`.

const SVG = "http://www.w3.org/2000/svg";

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function label(node) {
  const name = node.data && typeof node.data === "object" ? node.data.name : node.data;
  if (node.id === "__start__") return "START";
  if (node.id === "__end__") return "END";
  return String(node.id.includes(":") ? node.id.split(":").pop() : (name || node.id));
}

// The node a task name stands for: task names are node names; a subgraph's nodes are drawn
// `sub:inner` (xray), a task of the parent graph is drawn by its own id.
export class GraphView {
  constructor(container) {
    this.container = container;
    this.nodes = new Map(); // id -> <g>
    this.edges = [];        // {source, target, path}
  }

  draw(graph) {
    const g = new dagre.graphlib.Graph({ compound: true, multigraph: true });
    g.setGraph({ rankdir: "TB", nodesep: 30, ranksep: 40, marginx: 12, marginy: 12 });
    g.setDefaultEdgeLabel(() => ({}));
    const parents = new Set();
    for (const node of graph.nodes) {
      const text = label(node);
      g.setNode(node.id, { label: text, width: Math.max(70, 9 * text.length + 24), height: 34 });
    }
    // Subgraph nodes (`parent:child`) sit in a cluster named after their parent.
    for (const node of graph.nodes) {
      const cut = node.id.lastIndexOf(":");
      if (cut > 0) {
        const parent = node.id.slice(0, cut);
        if (!g.hasNode(parent)) g.setNode(parent, { label: parent.split(":").pop(), cluster: true });
        g.setParent(node.id, parent);
        parents.add(parent);
      }
    }
    graph.edges.forEach((e, i) => {
      if (g.hasNode(e.source) && g.hasNode(e.target)) {
        g.setEdge(e.source, e.target, { conditional: !!e.conditional, data: e.data }, `e${i}`);
      }
    });
    dagre.layout(g);

    const box = g.graph();
    const svg = el("svg", {
      class: "graph", width: box.width, height: box.height,
      viewBox: `0 0 ${box.width} ${box.height}`, role: "img", "aria-label": "graph",
    });
    const defs = el("defs", {}, svg);
    const marker = el("marker", {
      id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
      markerWidth: 9, markerHeight: 9, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse",
    }, defs);
    el("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }, marker);

    const clusters = new Map(); // a subgraph's node (xray): marked like the others
    for (const id of parents) {
      const n = g.node(id);
      const cluster = el("g", { class: "cluster", "data-node": id }, svg);
      clusters.set(id, cluster);
      el("rect", { x: n.x - n.width / 2, y: n.y - n.height / 2, width: n.width, height: n.height, rx: 8 }, cluster);
      const t = el("text", { x: n.x - n.width / 2 + 8, y: n.y - n.height / 2 + 14, class: "cluster-label" }, cluster);
      t.textContent = n.label;
    }
    this.edges = [];
    for (const ref of g.edges()) {
      const e = g.edge(ref);
      const d = e.points.map((p, i) => `${i ? "L" : "M"} ${p.x} ${p.y}`).join(" ");
      const path = el("path", {
        d, class: e.conditional ? "edge conditional" : "edge", "marker-end": "url(#arrow)",
        "data-source": ref.v, "data-target": ref.w,
      }, svg);
      if (e.data) {
        const mid = e.points[Math.floor(e.points.length / 2)];
        const t = el("text", { x: mid.x + 4, y: mid.y, class: "edge-label" }, svg);
        t.textContent = String(e.data);
      }
      this.edges.push({ source: ref.v, target: ref.w, path });
    }
    this.nodes = new Map(clusters);
    for (const id of g.nodes()) {
      if (parents.has(id)) continue;
      const n = g.node(id);
      const special = id === "__start__" || id === "__end__";
      const group = el("g", { class: special ? "node terminal" : "node", "data-node": id }, svg);
      el("rect", { x: n.x - n.width / 2, y: n.y - n.height / 2, width: n.width, height: n.height, rx: special ? 17 : 6 }, group);
      const t = el("text", { x: n.x, y: n.y + 5, "text-anchor": "middle" }, group);
      t.textContent = n.label;
      this.nodes.set(id, group);
    }
    this.container.replaceChildren(svg);
  }

  // The drawn node of a task: its name, or the `ns:name` of a subgraph's task.
  nodeOf(name, namespace) {
    if (namespace && namespace.length) {
      const id = [...namespace.map((part) => part.split(":")[0]), name].join(":");
      if (this.nodes.has(id)) return id;
    }
    return this.nodes.has(name) ? name : null;
  }

  mark(kind, names) {
    const want = new Set(names);
    for (const [id, group] of this.nodes) group.classList.toggle(kind, want.has(id));
    this.container.dataset[kind] = [...want].filter((n) => this.nodes.has(n)).join(",");
  }

  // A run's path: the nodes it ran, superstep by superstep (a list of lists of names); an
  // edge is marked where a node of one step leads to a node of the next.
  markPath(steps) {
    const seq = steps.length ? [["__start__"], ...steps] : [];
    const pairs = new Set();
    for (let i = 1; i < seq.length; i++) {
      for (const a of seq[i - 1]) for (const b of seq[i]) pairs.add(`${a}>${b}`);
    }
    for (const e of this.edges) e.path.classList.toggle("visited", pairs.has(`${e.source}>${e.target}`));
    this.mark("visited", seq.flat());
  }
}
