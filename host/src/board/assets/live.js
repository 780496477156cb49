// The board's live part, served from inside the binary: without it every page is whole and a
// reload shows the same state. It listens to /events and, when the queue's revision or its
// leased claims' states (which change with time too) differ from the ones the page shows,
// fetches the same page again and swaps its <main> in, so an open page follows each durable
// write and each claim turning quiet or expired. It also adds a copy button to each command.
(function () {
  "use strict";
  var live = document.getElementById("live");
  function shown() {
    var main = document.getElementById("main");
    return main ? main.getAttribute("data-revision") + "/" + main.getAttribute("data-durable") : "";
  }
  function copyButtons(root) {
    var cmds = root.querySelectorAll(".cmd code");
    for (var i = 0; i < cmds.length; i++) {
      var code = cmds[i];
      if (code.parentNode.querySelector("button.copy") || !navigator.clipboard) continue;
      var b = document.createElement("button");
      b.type = "button";
      b.className = "copy";
      b.textContent = "copy";
      b.addEventListener("click", (function (text, button) {
        return function () {
          navigator.clipboard.writeText(text).then(function () { button.textContent = "copied"; });
        };
      })(code.textContent, b));
      code.parentNode.insertBefore(b, code);
    }
  }
  function claimsShown() {
    var main = document.getElementById("main");
    return main ? main.getAttribute("data-claims") || "" : "";
  }
  var fetching = false, again = false;
  function refresh() {
    if (fetching) { again = true; return; }
    fetching = true;
    fetch(location.href, { headers: { "Accept": "text/html" }, cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (text) {
        var doc = new DOMParser().parseFromString(text, "text/html");
        var next = doc.getElementById("main");
        var main = document.getElementById("main");
        if (next && main) {
          main.replaceWith(document.importNode(next, true));
          copyButtons(document.getElementById("main"));
        }
      })
      .catch(function () {})
      .then(function () {
        fetching = false;
        if (again) { again = false; refresh(); }
      });
  }
  copyButtons(document);
  if (!window.EventSource || !live) return;
  var source = new EventSource("/events");
  source.addEventListener("open", function () {
    live.textContent = "live";
    live.className = "live on";
  });
  source.addEventListener("error", function () {
    live.textContent = "reconnecting";
    live.className = "live off";
  });
  source.addEventListener("revision", function (e) {
    var d;
    try { d = JSON.parse(e.data); } catch (err) { return; }
    live.title = "rev " + d.revision + (d.durable ? "" : ", visible, not confirmed durable");
    if (String(d.revision) + "/" + String(d.durable) !== shown()) refresh();
  });
  source.addEventListener("claims", function (e) {
    var d;
    try { d = JSON.parse(e.data); } catch (err) { return; }
    if (String(d.claims) !== claimsShown()) refresh();
  });
})();
