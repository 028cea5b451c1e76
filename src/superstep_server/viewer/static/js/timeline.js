// The supersteps of a thread, newest first, PAGE at a time (POST /threads/{id}/history/steps
// with `before`: the history without its states, read-only, this server's own), and one
// step opened: the tasks that ran into it (how long each took, each attempt of a retried
// one, errors, interrupts, their writes, the `@task` calls they made with their attempts), the tasks next, the state as a tree diffed against the step before, and the fork
// form (edit the state as a node, then run from the new checkpoint).
import { get, post, enc } from "./api.js";
import { h, clear, when, go, json, parseJson } from "./dom.js";
import { stateTree } from "./tree.js";

// A page's entries come without their states (writing 11 states of 1,000 messages as JSON
// was most of a long thread's first paint, and the server no longer even decodes the
// messages of a state it does not write); a step's state and its parent's are read when the
// step is opened.
const PAGE = 10;

function names(tasks) {
  return tasks.map((t) => t.name).join(", ");
}

// Only a `loop` checkpoint was written by tasks (its parent's); an `input` one holds a run's
// input, an `update` one a state edit (update_state, a fork's edit).
function ranInto(snap, parent) {
  return snap.metadata?.source === "loop" && parent ? parent.tasks : [];
}

function timing(time) {
  if (!time) return "";
  const started = new Date(time.started_at * 1000).toLocaleTimeString();
  const took = time.duration_ms === null ? "did not end" : `${time.duration_ms.toFixed(1)} ms`;
  return h("span", { class: "timing small", "data-ms": time.duration_ms ?? "", title: `started ${started}` },
    ` ${took}${time.interrupted ? " · interrupted" : ""}${time.error ? " · failed" : ""}` +
    (time.attempts?.length > 1 ? ` · ${time.attempts.length} attempts` : ""));
}

// Each attempt of a retried task (or of one whose only attempt failed): "attempt n / most",
// most being the attempts its retry policy allows (known from an attempt's error: the policy
// that matched it decides), with the error that ended each failed one.
function attempts(time) {
  const tried = time?.attempts || [];
  if (tried.length < 2 && !tried.some((a) => a.error)) return "";
  let most = null;
  return h("ol", { class: "attempts" }, ...tried.map((a) => {
    most = a.max_attempts ?? most;
    const outcome = a.error ? "failed" : "succeeded";
    return h("li", { class: `attempt ${a.error ? "failed" : "ok"}`, "data-attempt": a.attempt },
      h("span", { class: "attempt-of" }, `attempt ${a.attempt}${most ? ` / ${most}` : ""}`),
      h("span", { class: "small" }, ` · ${outcome} after ${a.duration_ms.toFixed(1)} ms`),
      a.error ? h("pre", { class: "error" }, a.error) : "");
  }));
}

// The `@task` calls the listed tasks made (an entrypoint's, a node's): the run's recorded
// tasks that are none of the listed ones, started while one of them ran, in its namespace.
// Calls are not tasks of the history (LangGraph's checkpoints do not list them), only of the
// run's `tasks` stream, so the time they started in places them.
function callsOf(tasks, times) {
  const ids = new Set(tasks.map((t) => t.id));
  const spans = tasks.map((t) => times.get(t.id)).filter(Boolean);
  if (!spans.length) return [];
  return [...times.values()].filter((c) => !ids.has(c.task_id) && spans.some((s) =>
    s.checkpoint_ns === c.checkpoint_ns && c.started_at >= s.started_at &&
    c.started_at <= s.started_at + (s.duration_ms ?? Infinity) / 1000));
}

function made(snap) {
  const source = snap.metadata?.source;
  return source === "update" ? "state edit" : source === "input" ? "input" : "";
}

export class Timeline {
  constructor(page, box, stepBox) {
    this.page = page;
    this.box = box;
    this.stepBox = stepBox;
    this.entries = [];
    this.known = new Map(); // checkpoint id -> snapshot without values, from the pages loaded
    this.states = new Map(); // checkpoint id -> promise of its snapshot with values
  }

  async load() {
    this.entries = [];
    this.known.clear();
    this.states.clear();
    clear(this.box);
    this.table = h("table", { class: "timeline" },
      h("tr", {}, ...["step", "source", "ran", "next", ""].map((t) => h("th", {}, t))));
    this.more = h("button", { id: "older-steps", hidden: true }, "older supersteps ▼");
    this.more.onclick = when(() => this.loadPage(), this.page.problem);
    this.box.append(this.table, this.more);
    await this.loadPage();
  }

  // One page more: PAGE + 1 checkpoints, the extra one the parent of the page's last.
  async loadPage() {
    const size = PAGE;
    const body = { limit: size + 1 };
    if (this.entries.length) body.before = { checkpoint_id: this.entries[this.entries.length - 1].checkpoint.checkpoint_id };
    const found = await post(`${this.page.base}/history/steps`, body);
    for (const snap of found) this.known.set(snap.checkpoint.checkpoint_id, snap);
    const shown = found.slice(0, size);
    for (let i = 0; i < shown.length; i++) {
      const snap = shown[i];
      const parent = found[i + 1];
      const adjacent = parent && parent.checkpoint.checkpoint_id === snap.parent_checkpoint?.checkpoint_id;
      const ran = ranInto(snap, adjacent ? parent : null);
      this.row(snap, ran);
      this.entries.push(snap);
    }
    this.more.hidden = found.length <= size;
  }

  row(snap, ran) {
    const id = snap.checkpoint.checkpoint_id;
    const flags = [];
    if (ran.some((t) => t.error) || snap.tasks.some((t) => t.error)) flags.push(h("span", { class: "flag failed", title: "a task failed" }, "error"));
    if (snap.interrupts?.length || snap.tasks.some((t) => t.interrupts.length)) flags.push(h("span", { class: "flag waiting" }, "interrupt"));
    const tr = h("tr", { class: "step-row", "data-checkpoint": id, "data-step": snap.metadata?.step },
      h("td", {}, h("a", { href: `#/thread/${this.page.id}/checkpoint/${id}` }, String(snap.metadata?.step ?? "?"))),
      h("td", {}, snap.metadata?.source ?? ""),
      h("td", {}, ran.length ? names(ran) : h("i", {}, made(snap))),
      h("td", {}, snap.next.join(", ")),
      h("td", {}, ...flags));
    tr.onclick = (e) => { if (e.target.tagName !== "A") go(`#/thread/${this.page.id}/checkpoint/${id}`); };
    this.table.append(tr);
  }

  // Open the step of checkpoint `id`.
  async open(id) {
    const started = performance.now();
    const state = (cid) => this.stateOf(cid);
    // the step and the step before, read at once (a known parent id saves a round trip)
    const knownParent = this.known.get(id)?.parent_checkpoint?.checkpoint_id;
    const [snap, early] = await Promise.all([state(id), knownParent ? state(knownParent) : null]);
    const parentId = snap.parent_checkpoint?.checkpoint_id;
    const parent = parentId ? (parentId === knownParent ? early : await state(parentId)) : null;
    this.box.querySelectorAll("tr.step-row").forEach((tr) => tr.classList.toggle("selected", tr.dataset.checkpoint === id));
    clear(this.stepBox);
    delete this.stepBox.dataset.checkpoint;  // set again once the whole step is drawn
    const when0 = new Date(snap.created_at);
    const took = parent ? `${when0 - new Date(parent.created_at)} ms after the step before` : "";
    this.stepBox.append(
      h("h3", { id: "step-title" }, `Superstep ${snap.metadata?.step ?? "?"}`, " ",
        h("span", { class: "small" }, `${snap.metadata?.source ?? ""} · ${when0.toLocaleString()} ${took}`)),
      h("p", { class: "small" }, "checkpoint ", h("code", {}, id),
        parentId ? h("span", {}, " · parent ", h("a", { href: `#/thread/${this.page.id}/checkpoint/${parentId}` }, parentId.slice(0, 13))) : ""));
    const ran = ranInto(snap, parent);
    // the run that wrote this checkpoint ran the tasks into it, and tried the next ones
    const times = ran.length || snap.tasks.length ? await this.taskTimes(snap.metadata?.run_id) : new Map();
    this.stepBox.append(h("h4", {}, "Tasks that ran"),
      ran.length || !made(snap) ? this.tasks(ran, "ran", times) : h("p", { class: "small" }, `none: ${made(snap)}`));
    if (snap.tasks.length) this.stepBox.append(h("h4", {}, "Next"), this.tasks(snap.tasks, "next", times));
    this.stepBox.append(h("h4", {}, parent ? "State (diff against the step before)" : "State"),
      h("div", { id: "state-tree" }, stateTree(snap.values, parent ? parent.values : undefined)));
    if (!this.page.readOnly) this.stepBox.append(this.forkForm(snap));
    this.stepBox.dataset.openMs = String(Math.round(performance.now() - started));
    this.stepBox.dataset.checkpoint = id;
  }

  // A checkpoint's whole state, read once (the promise is kept: an open while the same read
  // is under way waits for it rather than asking again).
  stateOf(cid) {
    if (!this.states.has(cid)) {
      const reading = get(`${this.page.base}/state/${enc(cid)}`);
      reading.catch(() => this.states.delete(cid));
      this.states.set(cid, reading);
    }
    return this.states.get(cid);
  }

  // After the first paint: the newest step and the one before, read ahead so that opening
  // the newest step (the usual first click) draws at once.
  prefetchNewest() {
    const newest = this.entries[0];
    if (!newest) return;
    this.stateOf(newest.checkpoint.checkpoint_id).catch(() => {});
    const parent = newest.parent_checkpoint?.checkpoint_id;
    if (parent) this.stateOf(parent).catch(() => {});
  }

  // When each task of a run started and how long it took, by task id (the server keeps
  // them from the run's stream: GET /threads/{id}/runs/{run_id}/tasks); none for a run
  // of another server, or of `superstep view`'s file.
  async taskTimes(runId) {
    if (!runId || this.page.readOnly) return new Map();
    if (!this.times) this.times = new Map();
    if (!this.times.has(runId)) {
      const found = await get(`${this.page.base}/runs/${enc(runId)}/tasks`).catch(() => []);
      this.times.set(runId, new Map(found.map((t) => [t.task_id, t])));
    }
    return this.times.get(runId);
  }

  tasks(tasks, kind, times = new Map()) {
    if (!tasks.length) return h("p", { class: "small" }, "none");
    return h("ul", { class: `tasks ${kind}` }, ...tasks.map((t) => h("li", { "data-task": t.name },
      h("b", {}, t.name),
      timing(times.get(t.id)),
      t.error ? h("pre", { class: "error" }, t.error) : "",
      !t.error && times.get(t.id)?.error ? h("pre", { class: "error" }, times.get(t.id).error) : "",
      attempts(times.get(t.id)),
      ...t.interrupts.map((i) => h("div", {}, "interrupt: ", h("pre", {}, json(i.value)))),
      t.result !== null && t.result !== undefined ? h("details", { class: "writes" }, h("summary", {}, "writes"),
        stateTree(typeof t.result === "object" && !Array.isArray(t.result) ? t.result : { result: t.result })) : "")),
      ...callsOf(tasks, times).map((c) => h("li", { class: "call", "data-task": c.name, "data-call": c.task_id },
        h("b", {}, c.name), h("span", { class: "small" }, " (@task call)"),
        timing(c),
        c.error ? h("pre", { class: "error" }, c.error) : "",
        attempts(c))));
  }

  forkForm(snap) {
    const id = snap.checkpoint.checkpoint_id;
    const asNode = h("select", { id: "fork-as-node" },
      ...(this.page.nodeNames || []).map((n) => h("option", { value: n }, n)));
    const values = h("textarea", { id: "fork-values", rows: 4, placeholder: '{"key": "new value"} (empty: no edit)' });
    const fork = h("button", { id: "fork-run" }, "Fork and run");
    const problem = h("p", { class: "error" });
    fork.onclick = when(async () => {
      const edit = parseJson(values.value, "state edit");
      let from = id;
      if (edit !== null) {
        const made = await post(`${this.page.base}/state`, { values: edit, as_node: asNode.value, checkpoint_id: id });
        from = made.checkpoint.checkpoint_id;
      }
      await this.page.streamRun({ input: null, checkpoint_id: from });
      const head = this.entries[0]?.checkpoint.checkpoint_id;
      if (head) go(`#/thread/${this.page.id}/checkpoint/${head}`);
    }, problem);
    return h("div", { class: "fork", id: "fork" }, h("h4", {}, "Time travel: fork from this checkpoint"),
      h("label", {}, "edit the state as node ", asNode), values, h("div", {}, fork), problem);
  }
}
