// A run as it streams (modes `checkpoints` and `tasks`): each checkpoint event opens a
// superstep whose nodes are its `next` (they run now: highlighted `active`); a task's result
// event ends it on its node. A task start event (LangGraph sends it before the task runs)
// marks its node too, so either order of events draws the same.

function namespaceOf(event) {
  const cut = event.indexOf("|");
  return cut < 0 ? [] : event.slice(cut + 1).split("|");
}

export class LiveRun {
  constructor(view, log) {
    this.view = view;   // a GraphView
    this.log = log;     // an <ol>: one <li> per superstep
    this.running = new Map(); // "namespace/name" -> node id, the nodes of the current step
    this.step = null;
    this.runId = null;
  }

  key(namespace, name) {
    return `${namespace.join("|")}/${name}`;
  }

  onEvent(event, data) {
    if (event === "metadata" && data && data.run_id) { this.runId = data.run_id; return; }
    if (!data || typeof data !== "object") return;
    const namespace = namespaceOf(event);
    if (event.startsWith("checkpoints")) {
      if (namespace.length) return; // a subgraph's steps run inside its parent's node
      for (const k of [...this.running.keys()]) if (!k.includes("|") && k.startsWith("/")) this.running.delete(k);
      const next = data.next || [];
      if (next.length) {
        this.step = document.createElement("li");
        this.step.dataset.step = String(data.metadata?.step ?? "");
        this.log.append(this.step);
        for (const name of next) this.start(namespace, name);
      }
    } else if (event.startsWith("tasks")) {
      if ("input" in data || "triggers" in data) this.start(namespace, data.name);
      else {
        this.running.delete(this.key(namespace, data.name));
        if (data.error) this.step?.classList.add("failed");
        if (data.interrupts && data.interrupts.length) this.step?.classList.add("waiting");
      }
    } else return;
    this.view.mark("active", [...this.running.values()].filter(Boolean));
  }

  start(namespace, name) {
    const key = this.key(namespace, name);
    if (this.running.has(key)) return;
    this.running.set(key, this.view.nodeOf(name, namespace));
    if (namespace.length || !this.step) return;
    const names = this.step.dataset.nodes ? this.step.dataset.nodes.split(",") : [];
    if (!names.includes(name)) names.push(name);
    this.step.dataset.nodes = names.join(",");
    this.step.textContent = names.join(", ");
  }

  finish() {
    this.running.clear();
    this.view.mark("active", []);
  }
}
