// The Import page's upload box (dashboards/upload_component/__init__.py). Each chosen or dropped file
// is sent, one at a time, to PUT /upload with the box's token; the server writes it to disk as it
// arrives and answers with JSON (accepted, games, or the reason it was refused). Names are shown as
// text only (textContent, inside <bdi>), never as HTML.

const ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path fill="currentColor" d="M19.35 10.04A7.49 7.49 0 0 0 12 4C9.11 4 6.6 5.64 5.35 8.04A5.994 5.994 0 0 0 0 14c0 3.31 2.69 6 6 6h13c2.76 0 5-2.24 5-5 0-2.64-2.05-4.78-4.65-4.96zM14 13v4h-4v-4H7l5-5 5 5h-3z"/></svg>';

function megabytes(bytes) {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

function isDark(host) {
  const bg = getComputedStyle(host).getPropertyValue("--st-background-color").trim();
  const hex = /^#([0-9a-f]{6})$/i.exec(bg);
  let rgb = hex ? [0, 2, 4].map((i) => parseInt(hex[1].slice(i, i + 2), 16)) : null;
  if (!rgb) {
    const found = /rgba?\(([^)]+)\)/.exec(bg);
    rgb = found ? found[1].split(",").slice(0, 3).map(Number) : null;
  }
  return rgb ? rgb[0] + rgb[1] + rgb[2] < 384 : false;
}

function setup(parent) {
  const root = document.createElement("div");
  root.className = "gvu";
  root.innerHTML = `<div class="drop">${ICON}<div class="words"><div class="big">Drag and drop log files here</div>`
    + `<div class="small"></div></div><label class="browse">Browse files<input type="file" multiple `
    + `accept=".json,.jsonl,.gz,.JSON,.JSONL,.GZ" aria-label="Log files"></label></div>`
    + `<div class="status" role="status" aria-live="polite"></div><div class="bar" hidden><div></div></div>`;
  parent.appendChild(root);
  const s = {
    root, drop: root.querySelector(".drop"), note: root.querySelector(".small"), input: root.querySelector("input"),
    status: root.querySelector(".status"), bar: root.querySelector(".bar"), queue: [], sending: false, data: null,
    trigger: null, answered: 0,
  };
  s.input.addEventListener("change", () => {
    enqueue(s, Array.from(s.input.files || []));
    s.input.value = "";  // the same file may be chosen again
  });
  s.drop.addEventListener("dragover", (e) => { e.preventDefault(); s.drop.classList.add("over"); });
  s.drop.addEventListener("dragleave", () => s.drop.classList.remove("over"));
  s.drop.addEventListener("drop", (e) => {
    e.preventDefault();
    s.drop.classList.remove("over");
    enqueue(s, Array.from((e.dataTransfer && e.dataTransfer.files) || []));
  });
  return s;
}

function say(s, text, problem) {
  s.status.textContent = "";
  s.status.classList.toggle("problem", Boolean(problem));
  for (const part of text) {
    if (typeof part === "string") {
      s.status.append(part);
    } else {
      const name = document.createElement("bdi");
      name.textContent = part.name;
      s.status.append(name);
    }
  }
}

function enqueue(s, files) {
  if (!files.length) return;
  s.queue.push(...files);
  if (!s.sending) next(s);
}

function send(s, file, shown) {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    const h = s.data.headers;
    xhr.open("PUT", s.data.url);
    xhr.setRequestHeader(h.token, s.data.token);
    xhr.setRequestHeader(h.name, encodeURIComponent(file.name));
    xhr.setRequestHeader(h.size, String(file.size));
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total) s.bar.firstChild.style.width = `${Math.round((100 * e.loaded) / e.total)}%`;
    };
    xhr.onload = () => {
      let answer = null;
      try { answer = JSON.parse(xhr.responseText); } catch (err) { answer = null; }
      resolve({ status: xhr.status, answer });
    };
    xhr.onerror = () => resolve({ status: 0, answer: null });
    xhr.onabort = xhr.onerror;
    // A file past the limit per file is sent without its bytes: the server refuses it by its size.
    xhr.send(file.size > s.data.max_file_bytes ? null : file);
    say(s, [`Sending `, { name: file.name }, ` (${megabytes(file.size)}${shown})...`], false);
  });
}

function problems(s, lines) {
  // Files the server did not take (not recorded in the box): one line each, until the next files.
  s.status.textContent = "";
  s.status.classList.add("problem");
  for (const [name, text] of lines) {
    const line = document.createElement("div");
    const bdi = document.createElement("bdi");
    bdi.textContent = name;
    line.append(bdi, text);
    s.status.append(line);
  }
}

async function next(s) {
  s.sending = true;
  const failed = [];
  let total = s.queue.length, done = 0;
  while (s.queue.length) {
    const file = s.queue.shift();
    done += 1;
    total = Math.max(total, done + s.queue.length);
    s.bar.hidden = false;
    s.bar.firstChild.style.width = "0";
    const shown = total > 1 ? `, ${done} of ${total}` : "";
    const { status, answer } = await send(s, file, shown);
    if (status === 0 || !answer) {
      failed.push([file.name, `: not sent (the connection failed${status ? `, status ${status}` : ""}); send it again`]);
    } else if (status === 503 || status === 404 || status === 400) {
      failed.push([file.name, `: not sent: ${answer.reason}`]);
    }
    s.answered += 1;
    // The page lists what the box holds (the file, accepted or refused with its reason).
    if (s.trigger) s.trigger("sent", s.answered);
  }
  s.bar.hidden = true;
  if (failed.length) problems(s, failed); else say(s, [], false);
  s.sending = false;
}

export default function (component) {
  const { data, parentElement } = component;
  let s = parentElement.__governorUpload;
  if (!s) {
    s = setup(parentElement);
    parentElement.__governorUpload = s;
  }
  s.data = data;
  s.trigger = component.setTriggerValue;
  s.note.textContent = data && data.note ? String(data.note) : "";
  s.root.classList.toggle("dark", isDark(parentElement.host || s.root));
  return undefined;
}
