// The viewer's routes (the hash keeps deep links working on a static page):
//   #/threads?graph=&status=&metadata=&ids=&offset=     the threads list
//   #/thread/{thread_id}                                 a thread
//   #/thread/{thread_id}/run/{run_id}                    a thread with a run's path drawn
//   #/thread/{thread_id}/checkpoint/{checkpoint_id}      a thread with one superstep open
import { threadsView } from "./threads.js";
import { threadView } from "./thread.js";

const root = document.getElementById("main");
let current = null; // { threadId, page }

async function route() {
  const hash = window.location.hash.replace(/^#/, "") || "/threads";
  const [path, query] = hash.split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  document.body.dataset.ready = "";
  try {
    if (parts[0] === "thread" && parts[1]) {
      const focus = parts[2] === "run" ? { run: parts[3] } : parts[2] === "checkpoint" ? { checkpoint: parts[3] } : {};
      if (current && current.threadId === parts[1] && !current.page.abort) {
        // The same thread: move within the page instead of rebuilding it.
        if (focus.checkpoint) await current.page.timeline.open(focus.checkpoint);
        else if (focus.run) await current.page.showRunPath(focus.run);
      } else {
        const page = await threadView(root, parts[1], focus);
        current = { threadId: parts[1], page };
      }
    } else {
      current = null;
      await threadsView(root, new URLSearchParams(query || ""));
    }
  } catch (err) {
    root.append(Object.assign(document.createElement("p"), { className: "error", textContent: String(err.message || err) }));
  }
  document.body.dataset.ready = "1";
}

window.addEventListener("hashchange", route);
route();
