// A run as it streams: `tasks` events (a task's start, then its result) say which nodes run
// in the current superstep. Nodes with a started, unfinished task are `active`; the first
// start after all have finished opens the next superstep in the live log.

export class LiveRun {
  constructor(view, log) {
    this.view = view;   // a GraphView
    this.log = log;     // an <ol>
    this.running = new Map(); // task id -> node id
    this.step = null;   // the <li> of the current superstep
    this.runId = null;
  }

  onEvent(event, data) {
    if (event === "metadata" && data && data.run_id) { this.runId = data.run_id; return; }
    if (!event.startsWith("tasks") || !data || typeof data !== "object") return;
    const namespace = event.includes("|") ? event.split("|").slice(1).join("|").split("|") : [];
    const node = this.view.nodeOf(data.name, namespace);
    if ("input" in data || "triggers" in data) {
      if (!this.running.size || !this.step) {
        this.step = document.createElement("li");
        this.log.append(this.step);
      }
      this.running.set(data.id, node || data.name);
      const names = new Set(this.step.dataset.nodes ? this.step.dataset.nodes.split(",") : []);
      names.add(data.name);
      this.step.dataset.nodes = [...names].join(",");
      this.step.textContent = [...names].join(", ");
    } else {
      this.running.delete(data.id);
      if (data.error) this.step?.classList.add("failed");
      if (data.interrupts && data.interrupts.length) this.step?.classList.add("waiting");
    }
    this.view.mark("active", [...this.running.values()]);
  }

  finish() {
    this.running.clear();
    this.view.mark("active", []);
  }
}
