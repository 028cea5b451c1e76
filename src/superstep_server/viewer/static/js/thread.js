// One thread: its graph (live highlight while a run streams, the path of a finished run),
// a form to start a run, the pending interrupt with a form to resume, cancel, the runs, and
// the timeline of supersteps (timeline.js); on the engine's store read by `superstep view`,
// a workflow document's or a plan's run (workflow.js).
import { get, post, stream, enc } from "./api.js";
import { h, clear, when, go, json, parseJson } from "./dom.js";
import { GraphView } from "./graph.js";
import { LiveRun } from "./live.js";
import { Timeline } from "./timeline.js";

// the last steps of a run drawn as its path
const PATH_STEPS = 10;

export async function threadView(root, threadId, focus) {
  clear(root);
  const started = performance.now();
  const thread = await get(`/threads/${enc(threadId)}`);
  const info = await get("/info");
  const graphId = thread.metadata?.graph_id || (info.graphs.length === 1 ? info.graphs[0] : null);
  const page = new ThreadPage(root, thread, graphId, !!info.read_only);
  await page.build(focus);
  root.dataset.firstPaintMs = String(Math.round(performance.now() - started));
  page.timeline.prefetchNewest();
  return page;
}

class ThreadPage {
  constructor(root, thread, graphId, readOnly) {
    this.root = root;
    // `superstep view`: a file read without graph code: no drawing, no runs, no forks.
    this.readOnly = readOnly;
    this.thread = thread;
    this.id = thread.thread_id;
    this.graphId = graphId;
    this.base = `/threads/${enc(this.id)}`;
    this.abort = null;
  }

  async build(focus) {
    const problem = h("p", { class: "error", id: "problem" });
    this.problem = problem;
    this.status = h("span", { class: "status", id: "thread-status" });
    this.graphBox = h("div", { class: "graph-box", id: "graph" });
    this.liveLog = h("ol", { class: "live", id: "live" });
    const xray = h("input", { type: "checkbox", id: "xray" });
    xray.onchange = when(() => this.drawGraph(xray.checked), problem);
    this.input = h("textarea", { id: "run-input", rows: 4, placeholder: '{"messages": [{"role": "user", "content": "hi"}]}' });
    this.startButton = h("button", { id: "start-run" }, "Start run");
    this.cancelButton = h("button", { id: "cancel-run", hidden: true }, "Cancel run");
    this.interruptBox = h("div", { class: "interrupt", id: "interrupt", hidden: true });
    this.runsList = h("ul", { class: "runs", id: "runs" });
    this.timelineBox = h("div", { id: "timeline" });
    this.stepBox = h("div", { id: "step" });
    this.root.append(
      h("p", { class: "crumbs" }, h("a", { href: "#/threads" }, "threads"), " / ", this.id),
      h("h2", {}, "Thread ", h("code", {}, this.id), " ", this.status, " ",
        this.graphId ? h("span", { class: "graph-id" }, `graph ${this.graphId}`) : ""),
      problem,
      h("div", { class: "thread-grid" },
        h("section", { class: "panel" }, h("h3", {}, "Graph ",
          h("label", { class: "small" }, xray, " expand subgraphs")), this.graphBox,
          h("h4", {}, "Live supersteps"), this.liveLog),
        this.readOnly
          ? h("section", { class: "panel" }, h("p", { class: "small", id: "read-only" },
              "Read-only: superstep view reads the file without loading graph code, so it draws no graph and starts no runs."),
            this.interruptBox)
          : h("section", { class: "panel" },
            h("h3", {}, "Run"), this.input, h("div", {}, this.startButton, " ", this.cancelButton),
            this.interruptBox,
            h("h3", {}, "Runs"), this.runsList)),
      h("div", { class: "thread-grid" },
        h("section", { class: "panel" }, h("h3", {}, "Supersteps"), this.timelineBox),
        h("section", { class: "panel step-panel" }, this.stepBox)));
    this.startButton.onclick = when(() => this.startRun(), problem);
    this.cancelButton.onclick = when(() => this.cancelRun(), problem);
    this.view = new GraphView(this.graphBox);
    this.timeline = new Timeline(this, this.timelineBox, this.stepBox);
    if (this.graphId && !this.readOnly) await this.drawGraph(false);
    else this.graphBox.append(h("p", { class: "small" }, this.readOnly ? "no graph code loaded" : "no graph_id: nothing to draw"));
    // The page paints without the last run's path: on a thread of large states its history
    // read is the slowest request, and the path is drawn when it comes.
    await this.refresh({ pathLater: true });
    // A document's or a plan's run (superstep view on the engine's store, or a served
    // document or plan): its panel is drawn when it comes, after the first paint.
    if (this.readOnly || this.graphId) this.showWorkflow();
    if (focus?.checkpoint) await this.timeline.open(focus.checkpoint);
    if (focus?.run) await this.showRunPath(focus.run);
    if (this.thread.status === "busy") this.watchRunning();
  }

  // workflow.js is loaded only here, after the first paint. A thread with a panel (a
  // document's or a plan's) gets it redrawn on each refresh, replacing the old one; other
  // threads ask once (the server answers null).
  showWorkflow() {
    return import("./workflow.js").then(({ workflowPanel }) => workflowPanel(this.base)).then((panel) => {
      if (!panel) return;
      if (this.workflowBox) this.workflowBox.replaceWith(panel);
      else this.problem.after(panel);
      this.workflowBox = panel;
    }).catch((err) => { this.problem.textContent = String(err.message || err); });
  }

  async drawGraph(xray) {
    this.view.draw(await get(`/assistants/${enc(this.graphId)}/graph${xray ? "?xray=true" : ""}`));
    this.nodeNames = [...this.view.nodes.keys()].filter((n) => n !== "__start__" && n !== "__end__");
  }

  // Thread status, pending interrupt, runs and the newest page of the timeline (fetched at
  // once: the history page is the slow one on a large state), then the newest run's path
  // (awaited unless `pathLater`).
  async refresh({ pathLater = false } = {}) {
    const readable = this.graphId || this.readOnly;
    const [thread, state, runs] = await Promise.all([
      get(this.base),
      readable ? get(`${this.base}/state`).catch(() => null) : null,
      this.readOnly ? [] : get(`${this.base}/runs?limit=20`),
      readable ? this.timeline.load() : null,
    ]);
    this.thread = thread;
    this.status.textContent = this.thread.status;
    this.status.className = `status ${this.thread.status}`;
    this.showInterrupt(state);
    if (state) this.view.mark("waiting", state.next || []);
    clear(this.runsList);
    for (const run of runs) {
      this.runsList.append(h("li", { "data-run": run.run_id },
        h("a", { href: `#/thread/${this.id}/run/${run.run_id}` }, run.run_id.slice(0, 8)),
        " ", h("span", { class: `status ${run.status}` }, run.status), " ",
        new Date(run.created_at).toLocaleTimeString()));
    }
    if (this.workflowBox) await this.showWorkflow();
    if (runs.length && this.thread.status !== "busy") {
      const path = this.showRunPath(runs[0].run_id);
      if (pathLater) path.catch((err) => { this.problem.textContent = String(err.message || err); });
      else await path;
    }
  }

  // The pending interrupts, each with its value; several at once (parallel nodes each
  // asking) get an answer box each, and resuming answers those filled in (by interrupt id:
  // the others stay pending, as with Command(resume={id: value})).
  showInterrupt(state) {
    const pending = (state?.tasks || []).flatMap((t) => t.interrupts.map((i) => ({ task: t, ...i })));
    clear(this.interruptBox);
    this.interruptBox.hidden = !pending.length;
    if (!pending.length) return;
    const single = pending.length === 1;
    const answers = [];
    const asks = pending.map((p) => {
      const box = h("div", { class: "interrupt-value", "data-interrupt": p.id || "", "data-task": p.task.name },
        h("span", {}, `${p.task.name} asks:`), h("pre", {}, json(p.value)));
      if (!this.readOnly) {
        const answer = h("textarea", {
          class: "resume-answer", rows: single ? 3 : 2,
          placeholder: single ? "the answer, as JSON" : `the answer to ${p.task.name}, as JSON (empty: leave it pending)`,
        });
        if (single) answer.id = "resume-value";
        answers.push({ pending: p, answer });
        box.append(answer);
      }
      return box;
    });
    const title = h("h3", {}, single ? "Interrupted" : `Interrupted: ${pending.length} questions pending`);
    if (this.readOnly) {
      this.interruptBox.append(title, ...asks);
      return;
    }
    const button = h("button", { id: "resume" }, single ? "Resume" : "Resume with these answers");
    button.onclick = when(async () => {
      let resume;
      if (single) resume = parseJson(answers[0].answer.value, "resume value");
      else {
        const given = answers.filter((a) => a.answer.value.trim());
        if (!given.length) throw new Error("answer at least one of the pending interrupts");
        resume = Object.fromEntries(given.map((a) => [a.pending.id, parseJson(a.answer.value, `answer to ${a.pending.task.name}`)]));
      }
      await this.streamRun({ command: { resume } });
    }, this.problem);
    this.interruptBox.append(title, ...asks, h("div", {}, button));
  }

  async startRun() {
    const input = parseJson(this.input.value, "run input");
    await this.streamRun({ input });
  }

  // Stream a run on this thread (tasks events drive the live highlight), then refresh.
  async streamRun(extra) {
    if (!this.graphId) throw new Error("this thread has no graph_id metadata: no graph to run");
    const live = new LiveRun(this.view, this.liveLog);
    clear(this.liveLog);
    this.view.markPath([]);
    this.view.mark("waiting", []);
    this.abort = new AbortController();
    this.startButton.disabled = true;
    this.cancelButton.hidden = false;
    this.status.textContent = "busy";
    this.status.className = "status busy";
    this.live = live;
    try {
      await stream("POST", `${this.base}/runs/stream`, {
        assistant_id: this.graphId, stream_mode: ["checkpoints", "tasks"], stream_subgraphs: true, ...extra,
      }, (event, data) => {
        live.onEvent(event, data);
        if (event === "error") this.problem.textContent = `run failed: ${data?.message || json(data)}`;
      }, this.abort.signal);
    } finally {
      live.finish();
      this.live = null;
      this.abort = null;
      this.startButton.disabled = false;
      this.cancelButton.hidden = true;
    }
    await this.refresh();
    if (live.runId) await this.showRunPath(live.runId);
  }

  async cancelRun() {
    const runId = this.live?.runId || this.watching;
    if (!runId) return;
    await post(`${this.base}/runs/${enc(runId)}/cancel`, {});
  }

  // A run started elsewhere: join its stream and show the next nodes of each new checkpoint.
  async watchRunning() {
    const running = (await get(`${this.base}/runs?status=running&limit=1`))[0]
      || (await get(`${this.base}/runs?status=pending&limit=1`))[0];
    if (!running) return;
    this.watching = running.run_id;
    this.cancelButton.hidden = false;
    const show = async () => {
      const state = await get(`${this.base}/state`);
      this.view.mark("active", state.next || []);
    };
    try {
      await show();
      await stream("GET", `${this.base}/runs/${enc(running.run_id)}/stream`, undefined, () => show());
    } finally {
      this.watching = null;
      this.cancelButton.hidden = true;
      this.view.mark("active", []);
      await this.refresh();
    }
  }

  // The nodes a run ran, superstep by superstep, from the checkpoints it wrote (its last
  // PATH_STEPS).
  async showRunPath(runId) {
    if (!this.graphId) return;
    const mine = await post(`${this.base}/history/steps`, { limit: PATH_STEPS, metadata: { run_id: runId } });
    if (!mine.length) return;
    mine.reverse();
    const first = mine[0].parent_checkpoint?.checkpoint_id;
    const before = first ? await get(`${this.base}/state/${enc(first)}`) : null;
    const steps = [];
    for (const snap of [before, ...mine.slice(0, -1)]) {
      if (snap && snap.tasks.length) steps.push(snap.tasks.map((t) => t.name));
    }
    const last = mine[mine.length - 1];
    if (!last.next.length) steps.push(["__end__"]);
    this.view.markPath(steps);
    this.view.mark("waiting", last.next);
    this.root.querySelectorAll("#runs li").forEach((li) => li.classList.toggle("shown", li.dataset.run === runId));
  }
}
