// A workflow document's or a DAG plan's run, on a thread of the engine's own store (`superstep
// view` on the file `superstep run --thread` writes): GET /threads/{id}/workflow, read-only.
// A plan: its status and reason, each step's standing, the unreachable steps with their root
// cause. A document: its name, version and saved versions, its nodes' visits and last event,
// the run events superstep by superstep, the supersteps that failed.
import { get } from "./api.js";
import { h, json } from "./dom.js";

const STANDINGS = [["succeeded", "succeeded"], ["failed", "failed"], ["in_flight", "in flight"],
  ["ready", "ready"], ["waiting", "waiting"]];

function brief(value, limit = 80) {
  const text = json(value);
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

// The panel for the thread at `base`, or null when the thread is not a document's or a plan's.
export async function workflowPanel(base) {
  const run = await get(`${base}/workflow`).catch(() => null);
  if (!run) return null;
  return run.kind === "plan" ? planPanel(run) : documentPanel(run);
}

// The plan file's name, its full path on hover: the path is the one the run recorded, on the
// machine that ran it, and says little at a glance.
function planFile(path) {
  if (!path) return "";
  const name = path.split(/[\\/]/).pop();
  return h("span", { class: "small", id: "plan-file", title: path }, name);
}

function planPanel(run) {
  const report = run.report;
  const status = report ? report.status : "unknown";
  const box = h("section", { class: "panel workflow", id: "workflow", "data-kind": "plan" },
    h("h3", {}, "Plan ", h("span", { class: `status plan-${status}`, id: "plan-status" }, status),
      " ", planFile(run.path)));
  if (!report) {
    box.append(h("p", { class: "error", id: "plan-problem" }, run.problem));
    return box;
  }
  box.append(h("p", { id: "plan-reason" }, report.reason));
  const standing = new Map();
  for (const [key, label] of STANDINGS) for (const id of report[key]) standing.set(id, label);
  const unreachable = new Map(report.unreachable.map((u) => [u.id, u]));
  for (const id of unreachable.keys()) standing.set(id, "unreachable");
  const rows = run.steps.map((step) => {
    const where = standing.get(step.id) || "";
    const outcome = run.outcomes[step.id];
    const cut = unreachable.get(step.id);
    let detail = "";
    if (cut) detail = h("span", {}, "root cause ", h("b", { class: "root-cause" }, cut.because), `: ${cut.reason}`);
    else if (outcome?.status === "failed") detail = h("span", { class: "error" }, `${outcome.error.type}: ${outcome.error.message}`);
    else if (outcome) detail = brief(outcome.result);
    return h("tr", { class: `plan-step ${where.replace(" ", "-")}`, "data-step": step.id, "data-standing": where },
      h("td", {}, step.id), h("td", {}, step.kind),
      h("td", {}, step.dependsOn.join(", ") || h("i", {}, "none")),
      h("td", {}, h("span", { class: `standing ${where.replace(" ", "-")}` }, where)),
      h("td", {}, step.compensates ? `compensates ${step.compensates} · ` : "", detail));
  });
  box.append(h("table", { class: "plan-steps", id: "plan-steps" },
    h("tr", {}, ...["step", "kind", "depends on", "standing", "detail"].map((t) => h("th", {}, t))), ...rows),
    h("p", { class: "small" }, `spent ${report.spent_minor} minor units`,
      report.halted ? ` · budget halted: ${brief(report.halted)}` : ""));
  return box;
}

function documentPanel(run) {
  const box = h("section", { class: "panel workflow", id: "workflow", "data-kind": "document" },
    h("h3", {}, "Workflow ", h("b", { id: "document-name" }, run.name), " ",
      h("span", { class: "small", id: "document-version" }, `version ${run.version}`), " ",
      h("span", { class: `status run-${run.status}`, id: "document-status" }, run.status)),
    h("p", { class: "small" }, "versions saved: ",
      ...run.versions.map((v, i) => h("span", { class: "version", "data-seq": v.seq,
        title: `${v.content_hash} · ${v.created_at}` }, `${i ? ", " : ""}v${v.seq}${v.seq === run.version ? " (this run)" : ""}`))));
  const last = new Map();
  for (const e of run.events) if (e.node) last.set(e.node, e.type);
  const nodes = Object.keys(run.visits).sort();
  box.append(h("h4", {}, "Nodes"), h("table", { class: "document-nodes", id: "document-nodes" },
    h("tr", {}, ...["node", "started", "last event"].map((t) => h("th", {}, t))),
    ...nodes.map((n) => h("tr", { "data-node": n }, h("td", {}, n), h("td", {}, String(run.visits[n])),
      h("td", { class: "last-event" }, last.get(n) || "")))));
  box.append(h("h4", {}, "Run events"), h("ol", { class: "document-events", id: "document-events" },
    ...run.events.map((e) => h("li", { "data-type": e.type, "data-node": e.node || "" },
      h("span", { class: "small" }, `superstep ${e.step} · `), h("b", {}, e.type), e.node ? ` ${e.node}` : "",
      e.iteration ? h("span", { class: "small" }, ` #${e.iteration}`) : "",
      e.payload ? h("span", { class: "small" }, ` ${brief(e.payload)}`) : ""))));
  if (run.failures.length) {
    box.append(h("h4", {}, "Failed supersteps"), h("ul", { id: "document-failures" },
      ...run.failures.map((f) => h("li", {}, `superstep ${f.step}: `, h("span", { class: "error" }, f.message)))));
  }
  return box;
}
