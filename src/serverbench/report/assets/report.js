// Sort a table by the clicked column (numbers by value, missing values last); hide a series from its legend.
document.querySelectorAll("table.sortable").forEach(function (table) {
  var heads = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, col) {
    th.addEventListener("click", function () {
      var numeric = th.classList.contains("num");
      var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute("data-sort"), y = b.cells[col].getAttribute("data-sort");
        if (x === null || x === "") return y === null || y === "" ? 0 : 1;
        if (y === null || y === "") return -1;
        return dir * (numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y));
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
document.querySelectorAll("figure.plot").forEach(function (fig) {
  fig.querySelectorAll(".legend li").forEach(function (item) {
    item.addEventListener("click", function () {
      var off = item.classList.toggle("off");
      fig.querySelectorAll('svg [data-series="' + item.getAttribute("data-series") + '"]').forEach(function (g) {
        g.classList.toggle("hidden", off);
      });
    });
  });
});
