// PlaygroundAssets.swift - the playground page's script and style, served
// from /assets/.  The script is a display: it applies what the server sends
// (a whole render, or patches of single nodes by their data-path) and sends
// back taps, typed values and panel choices; it runs no part of the engine.
#if Server

/// The page's script and stylesheet.
enum PlaygroundAssets {
    /// `/assets/playground.js`.
    static let script = #"""
// SDUI playground page: a WebSocket to the engine in `sdui dev`.  Renders
// and patches come in; taps, inputs and panel choices go out.
(function () {
  "use strict";
  var body = document.body;
  var kind = body.dataset.kind, id = body.dataset.id;
  var screenEl = document.getElementById("sdui-dev-screen");
  var statusEl = document.getElementById("sdui-dev-status");
  // What the page did, for the tests and the latency bench (docs/playground.md).
  var dev = window.sduiDev = { renders: 0, patches: 0, paints: [], paintCount: 0, lastTapLatency: null, errors: [] };
  // tapAt: when the last tap or input was sent; answered: whether a render
  // or patch came for it (a step that changes nothing is timed by nothing).
  var socket = null, retryMs = 250, tapAt = null, answered = true, localErrors = [];

  function $(x) { return document.getElementById(x); }
  function now() { return performance.timeOrigin + performance.now(); }

  // Records a paint: two animation frames after the DOM changed, the
  // change is on screen.
  function painted(what) {
    requestAnimationFrame(function () {
      requestAnimationFrame(function () {
        var at = now();
        dev.paintCount++;
        dev.paints.push({ kind: what, at: at });
        if (dev.paints.length > 5000) dev.paints.splice(0, 1000);
        if (tapAt !== null) { dev.lastTapLatency = at - tapAt; tapAt = null; }
      });
    });
  }

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }

  function connect() {
    statusEl.textContent = "connecting…";
    var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws?" + kind + "=" + encodeURIComponent(id);
    socket = new WebSocket(url);
    socket.onopen = function () { statusEl.textContent = "connected"; retryMs = 250; };
    socket.onclose = function () {
      statusEl.textContent = "disconnected";
      setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, 5000);
    };
    socket.onmessage = function (e) {
      var m;
      try { m = JSON.parse(e.data); } catch (err) { return; }
      if (m.type === "render") { answered = true; applyRender(m.html); }
      else if (m.type === "patch") { answered = true; applyPatch(m.changes || []); }
      else if (m.type === "state") { if (!answered) tapAt = null; applyState(m); }
      else if (m.type === "node") $("sdui-dev-node").textContent = JSON.stringify(m.node, null, 2);
      else if (m.type === "error") {
        dev.errors.push(m.message);
        localErrors.push(m.message);
        if (localErrors.length > 20) localErrors.shift();
      }
    };
  }

  // The focused input's name and caret, to put back after its node is replaced.
  function focusState() {
    var a = document.activeElement;
    if (!a || !screenEl.contains(a) || !a.name) return null;
    var s = { name: a.name, type: a.type, value: a.value, start: null, end: null };
    try { s.start = a.selectionStart; s.end = a.selectionEnd; } catch (err) { /* not a text input */ }
    return s;
  }
  function restoreFocus(s) {
    if (!s) return;
    var inputs = screenEl.querySelectorAll("input");
    for (var i = 0; i < inputs.length; i++) {
      var el = inputs[i];
      if (el.name !== s.name || el.type !== s.type) continue;
      if (s.type === "text" || s.type === "password") el.value = s.value;  // what is typed stays what is typed
      el.focus();
      if (s.start !== null) { try { el.setSelectionRange(s.start, s.end); } catch (err) { /* ignore */ } }
      return;
    }
  }

  function applyRender(html) {
    var f = focusState();
    screenEl.innerHTML = html;
    restoreFocus(f);
    dev.renders++;
    painted("render");
  }

  function applyPatch(changes) {
    var f = focusState();
    for (var i = 0; i < changes.length; i++) {
      var c = changes[i];
      if (c.path === "") { screenEl.innerHTML = c.html; continue; }
      var el = screenEl.querySelector('[data-path="' + CSS.escape(c.path) + '"]');
      if (el) el.outerHTML = c.html;
      else { send({ type: "refresh" }); return; }
    }
    restoreFocus(f);
    dev.patches++;
    painted("patch");
  }

  function fillList(listId, items, attr) {
    var list = $(listId);
    list.textContent = "";
    for (var i = 0; i < items.length; i++) {
      var li = document.createElement("li");
      li.textContent = items[i];
      if (attr) li.setAttribute(attr, items[i]);
      list.appendChild(li);
    }
  }

  function applyState(m) {
    $("sdui-dev-store").textContent = JSON.stringify(m.store || {}, null, 2);
    fillList("sdui-dev-events", m.events || [], "data-event");
    fillList("sdui-dev-issues", (m.issues || []).concat(localErrors), null);
    var banner = $("sdui-dev-banner"), list = banner.querySelector("ul");
    list.textContent = "";
    (m.errors || []).forEach(function (p) {
      var li = document.createElement("li");
      li.setAttribute("data-file", p.file);
      li.textContent = p.file + (p.place ? " (" + p.place + ")" : "") + ": " + p.rule + ": " + p.message;
      list.appendChild(li);
    });
    banner.hidden = !(m.errors && m.errors.length);
    var theme = $("sdui-dev-theme"), have = [];
    for (var i = 1; i < theme.options.length; i++) have.push(theme.options[i].value);
    if (JSON.stringify(have) !== JSON.stringify(m.themes || [])) {
      while (theme.options.length > 1) theme.remove(1);
      (m.themes || []).forEach(function (t) { var o = document.createElement("option"); o.value = t; o.textContent = t; theme.appendChild(o); });
    }
    var locale = $("sdui-dev-locale"), haveLocales = [];
    for (var j = 1; j < locale.options.length; j++) haveLocales.push(locale.options[j].value);
    if (JSON.stringify(haveLocales) !== JSON.stringify(m.locales || [])) {
      while (locale.options.length > 1) locale.remove(1);
      (m.locales || []).forEach(function (t) { var o = document.createElement("option"); o.value = t; o.textContent = t; locale.appendChild(o); });
    }
    var o = m.options || {};
    theme.value = o.theme || "";
    locale.value = o.locale || "";
    $("sdui-dev-mode").value = o.mode || "light";
    $("sdui-dev-back").disabled = !m.canBack;
    body.dataset.screen = m.screen || "";
  }

  // Taps: a click on a node that is not a form field's own control.
  screenEl.addEventListener("click", function (e) {
    var node = e.target.closest("[data-path]");
    if (!node || !screenEl.contains(node)) return;
    if ($("sdui-dev-inspect").checked) {
      e.preventDefault();
      send({ type: "select", path: node.getAttribute("data-path") });
      return;
    }
    if (e.target.closest("input, label.sdui-option, fieldset") && !e.target.closest("button")) return;
    if (node.getAttribute("data-primitive") === "TextField" || node.getAttribute("data-primitive") === "Slider") return;
    flushInputs();   // what was typed reaches the engine before the tap that reads it
    tapAt = performance.timeOrigin + e.timeStamp;
    answered = false;
    send({ type: "tap", path: node.getAttribute("data-path") });
  });

  // Inputs: the node's path and the value; text is sent as it is typed
  // (after a pause), and at once before a tap.
  var timers = {}, waiting = {};
  function flushInputs() {
    Object.keys(waiting).forEach(function (key) {
      clearTimeout(timers[key]);
      var el = waiting[key];
      delete waiting[key];
      sendInput(el);
    });
  }
  function sendInput(el) {
    var node = el.closest("[data-path]");
    if (!node) return;
    var path = node.getAttribute("data-path"), primitive = node.getAttribute("data-primitive"), value;
    if (primitive === "Toggle") value = el.checked;
    else if (primitive === "Slider") value = Number(el.value);
    else if (primitive === "Choice" && el.type === "checkbox") {
      value = [];
      node.querySelectorAll("input:checked").forEach(function (c) { value.push(c.value); });
    } else value = el.value;
    tapAt = now();
    answered = false;
    send({ type: "input", path: path, value: value });
  }
  screenEl.addEventListener("input", function (e) {
    var el = e.target;
    if (!(el instanceof HTMLInputElement)) return;
    if (el.type === "text" || el.type === "password" || el.type === "range") {
      var key = el.name || "";
      clearTimeout(timers[key]);
      waiting[key] = el;
      timers[key] = setTimeout(function () { delete waiting[key]; sendInput(el); }, el.type === "range" ? 30 : 120);
    }
  });
  screenEl.addEventListener("change", function (e) {
    var el = e.target;
    if (!(el instanceof HTMLInputElement)) return;
    if (el.type === "checkbox" || el.type === "radio") sendInput(el);
  });

  // Panels.
  $("sdui-dev-back").addEventListener("click", function () { send({ type: "back" }); });
  if ($("sdui-dev-next")) $("sdui-dev-next").addEventListener("click", function () { send({ type: "next" }); });
  $("sdui-dev-restart").addEventListener("click", function () { send({ type: "restart" }); });
  $("sdui-dev-theme").addEventListener("change", function (e) { send({ type: "options", theme: e.target.value || null }); });
  $("sdui-dev-locale").addEventListener("change", function (e) { send({ type: "options", locale: e.target.value || null }); });
  $("sdui-dev-mode").addEventListener("change", function (e) { send({ type: "options", mode: e.target.value }); });
  var scaleTimer = null;
  $("sdui-dev-text-scale").addEventListener("input", function (e) {
    var v = Math.round(Number(e.target.value) * 10) / 10;
    $("sdui-dev-text-scale-value").textContent = v.toFixed(1);
    clearTimeout(scaleTimer);
    scaleTimer = setTimeout(function () { send({ type: "options", textScale: v }); }, 60);
  });
  $("sdui-dev-primitives-preset").addEventListener("change", function (e) {
    $("sdui-dev-primitives").value = e.target.value;
    send({ type: "options", primitives: e.target.value || null });
  });
  $("sdui-dev-primitives-apply").addEventListener("click", function () {
    var v = $("sdui-dev-primitives").value.trim();
    send({ type: "options", primitives: v || null });
  });
  $("sdui-dev-store-set").addEventListener("click", function () {
    var key = $("sdui-dev-store-key").value.trim(), text = $("sdui-dev-store-value").value, value;
    if (!key) return;
    try { value = JSON.parse(text); } catch (err) { value = text; }
    send({ type: "store", key: key, value: value });
  });
  document.querySelectorAll("[data-device-width]").forEach(function (b) {
    b.addEventListener("click", function () {
      $("sdui-dev-device").style.width = b.getAttribute("data-device-width") + "px";
      document.querySelectorAll("[data-device-width]").forEach(function (x) { x.setAttribute("aria-pressed", String(x === b)); });
    });
  });

  connect();
})();
"""#

    /// `/assets/playground.css`: the page around the device frame.
    static let style = """
        body.sdui-dev,body.sdui-dev-index{margin:0;background:#E5E7EB;color:#111827;
          font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
        .sdui-dev-index{padding:16px 24px}
        .sdui-dev-index li{margin:4px 0}
        .sdui-dev-folder,.sdui-dev-path{color:#6B7280;font-size:12px}
        .sdui-dev-bar{display:flex;gap:12px;align-items:center;padding:8px 16px;background:#111827;color:#F9FAFB;
          position:sticky;top:0;z-index:2;flex-wrap:wrap}
        .sdui-dev-bar a{color:#93C5FD}
        .sdui-dev-bar button{font:inherit;padding:2px 10px}
        .sdui-dev-widths button[aria-pressed=true]{font-weight:700}
        #sdui-dev-status{color:#A7F3D0;font-size:12px}
        .sdui-dev-banner{margin:0;padding:8px 16px;background:#FEF2F2;color:#991B1B;border-bottom:2px solid #DC2626}
        .sdui-dev-banner h2{font-size:14px;margin:0 0 4px}
        .sdui-dev-banner ul{margin:0;padding-left:20px;font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}
        .sdui-dev-main{display:flex;gap:16px;padding:16px;align-items:flex-start}
        .sdui-dev-stage{flex:1 1 auto;display:flex;justify-content:center;min-width:0}
        .sdui-dev-device{box-sizing:content-box;border:10px solid #1F2937;border-radius:28px;overflow:hidden;background:#FFFFFF;
          box-shadow:0 8px 24px rgba(0,0,0,.2);flex:none}
        #sdui-dev-screen{max-height:calc(100vh - 120px);overflow-y:auto;scrollbar-width:none}
        #sdui-dev-device .sdui-frame{width:100%;min-height:640px}
        .sdui-dev-missing{padding:24px;color:#991B1B;font-family:ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap}
        .sdui-dev-panels{flex:0 0 360px;display:flex;flex-direction:column;gap:8px;max-height:calc(100vh - 100px);overflow-y:auto}
        .sdui-dev-panels details{background:#FFFFFF;border-radius:8px;padding:8px 12px}
        .sdui-dev-panels summary{font-weight:600;cursor:pointer}
        .sdui-dev-panels label{display:flex;gap:8px;align-items:center;justify-content:space-between;margin:6px 0}
        .sdui-dev-row{display:flex;gap:6px;margin:6px 0}
        .sdui-dev-row input[type=text]{flex:1 1 0;min-width:0;font:12px ui-monospace,Menlo,Consolas,monospace}
        .sdui-dev-panels pre{max-height:240px;overflow:auto;background:#F3F4F6;padding:6px;margin:6px 0;
          font:11px/1.35 ui-monospace,Menlo,Consolas,monospace}
        .sdui-dev-panels ol,.sdui-dev-panels ul{max-height:200px;overflow:auto;margin:6px 0;padding-left:22px;
          font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}
        """
}
#endif
