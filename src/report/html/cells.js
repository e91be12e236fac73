"use strict";
// The matrix page's one script (src/report/html/packed.rs says how the cells are packed):
// a cell's contents are unpacked when it is first opened, so that the grid of a large matrix
// loads at once. `#cell=<row id>/<column>` in the address (columns counted from 0) opens one.
(() => {
  const rows = [...document.querySelectorAll("tr[data-case]")];
  const opened = new WeakSet();
  let packed;

  const gunzip = async (id) => {
    const block = document.getElementById(id);
    if (!block) throw new Error("the page has no " + id);
    const bytes = Uint8Array.from(atob(block.textContent.trim()), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  };
  // Every cell's pieces, unpacked once, on first use.
  const unpack = () => {
    if (typeof DecompressionStream !== "function") {
      return Promise.reject(new Error("this browser cannot unpack it (no DecompressionStream)"));
    }
    packed ??= Promise.all([gunzip("cell-pieces"), gunzip("cell-lists")]).then(
      ([pieces, lists]) => ({ pieces: pieces.split("\0"), lists: lists.split("\n") }),
    );
    return packed;
  };
  const markup = ({ pieces, lists }, index) =>
    (lists[index] ?? "").split(" ").filter(Boolean).map((n) => pieces[parseInt(n, 36)] ?? "").join("");

  // The markup was escaped when the page was written; it goes in as it was packed.
  const fill = async (details) => {
    const cell = details.closest("td");
    const row = rows.indexOf(cell && cell.parentElement);
    if (row < 0 || opened.has(details)) return;
    opened.add(details);
    const box = details.appendChild(document.createElement("div"));
    box.className = "cell";
    box.textContent = "unpacking…";
    try {
      box.innerHTML = markup(await unpack(), (cell.cellIndex - 1) * rows.length + row);
    } catch (error) {
      box.textContent = "cannot show this cell: " + error.message;
    }
  };

  // `toggle` does not bubble: it is caught on its way down.
  document.addEventListener("toggle", (event) => {
    if (event.target.open && event.target.matches("td details")) fill(event.target);
  }, true);

  const openFromAddress = () => {
    const named = /^#cell=([A-Za-z0-9_-]+)\/(\d+)$/.exec(location.hash);
    const row = named && rows.find((r) => r.id === named[1]);
    const cell = row && row.cells[Number(named[2]) + 1];
    const details = cell && cell.querySelector("details");
    if (!details) return;
    details.open = true;
    fill(details);
    details.scrollIntoView({ block: "center" });
  };
  addEventListener("hashchange", openFromAddress);
  openFromAddress();
})();
