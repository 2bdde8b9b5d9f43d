/* The operator's page (issue 32): ?operator. Behind the operator's login, typed on the page and never stored (not in
 * the address, not in the browser's storage: it lives in the open connection only), the operator creates an event
 * from a form, starts the draw, sees every call, moves a match to a table, and enters or corrects a result with a
 * reason.
 *
 * Every write is a request to the director over the venue broker (scoreboard/director/mqtt.py): published on
 * <prefix>/director/request/<page> with an id, answered on <prefix>/director/answer/<page>. Only the operator's
 * login may write there (the venue broker's ACL, docs/venue.md), and the director checks each request as it checks
 * `devetka event`: a refusal comes back as a served message and is shown in the page's language. What the page
 * shows of the event is the director's retained <prefix>/director/event/<id>, as the board's.
 */
(() => {
  "use strict";

  const params = new URLSearchParams(location.search);
  if (!params.has("operator")) return;
  window.devetkaEventView = "operator";

  const PREFIX = params.get("prefix") || "devetka";
  const { LANG, catalog, pluralIndex, _, format } = window.devetkaWords(params);
  // A served message (docs/match-log.md: {id, args, plural?, n?} or {join, parts}) in the page's language.
  function say(value) {
    if (value === null || value === undefined) return "";
    if (typeof value !== "object") return String(value);
    if (Array.isArray(value.parts)) return value.parts.map(say).join(typeof value.join === "string" ? value.join : " ");
    if (typeof value.id !== "string") return "";
    let template = _(value.id);
    if (typeof value.plural === "string") {
      const forms = catalog.messages[value.id];
      const n = Number(value.n);
      template = Array.isArray(forms) && forms.length ? forms[Math.min(pluralIndex(n), forms.length - 1)]
        : (n === 1 ? value.id : value.plural);
    }
    const args = {};
    for (const [name, arg] of Object.entries(value.args || {})) args[name] = say(arg);
    return format(template, args);
  }

  const page = `op-${Math.random().toString(16).slice(2, 10)}`;
  const shown = { client: null, events: new Map(), id: null, pending: new Map(), asked: 0, said: "" };
  window.devetkaOperator = shown;

  document.documentElement.lang = LANG;
  document.title = _("Devetka: the operator");
  document.body.classList.add("event-page", "operator-page");
  for (const id of ["board", "empty", "event-link"]) {
    const node = document.getElementById(id);
    if (node) node.style.display = "none";
  }
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }
  function field(label, input) {
    const wrap = el("label", "op-field");
    wrap.append(el("span", "", label), input);
    return wrap;
  }
  function input(name, type = "text", value = "") {
    const node = el("input");
    node.name = name;
    node.type = type;
    node.value = value;
    node.autocomplete = "off";
    return node;
  }
  function button(name, text, action) {
    const node = el("button", "", text);
    node.type = "button";
    node.name = name;
    node.addEventListener("click", action);
    return node;
  }

  const root = el("main", "operator");
  root.id = "operator";
  root.dataset.state = "login";
  document.body.append(root);
  const said = el("p", "op-said");
  said.setAttribute("role", "status");
  function tell(text, refused) {
    said.textContent = text;
    said.dataset.refused = refused ? "true" : "false";
    shown.said = text;
  }

  // ---- the login: typed here, kept only by the open connection ----------------------------------------
  function drawLogin(problem) {
    root.dataset.state = "login";
    const form = el("form", "op-login");
    const user = input("user", "text", "operator");
    const password = input("password", "password");
    form.append(el("h1", "", _("Operator")), field(_("Login"), user), field(_("Password"), password));
    const go = el("button", "", _("Log in"));
    go.type = "submit";
    go.name = "login";
    form.append(go);
    if (problem) form.append(el("p", "op-said", problem));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const secret = password.value;
      password.value = "";
      connect(user.value.trim(), secret);
    });
    root.replaceChildren(form);
    user.focus();
  }

  function connect(username, password) {
    const given = params.get("broker");
    const url = given ? given.split(",")[0].trim()
      : (location.host ? `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/` : "");
    if (!url || typeof mqtt === "undefined") {
      drawLogin(_("No broker: open this page from the venue broker, or add ?broker=ws://HOST:PORT"));
      return;
    }
    root.dataset.state = "connecting";
    const client = mqtt.connect(url, {
      protocolVersion: 4, clean: true, keepalive: 10, reconnectPeriod: 0, connectTimeout: 10000,
      clientId: `devetka-${page}`, username, password,
    });
    shown.client = client;
    client.on("connect", () => {
      client.subscribe({ [`${PREFIX}/director/answer/${page}`]: { qos: 1 }, [`${PREFIX}/director/event/+`]: { qos: 1 } },
        (error) => {
          if (error) {
            client.end(true);
            drawLogin(_("The venue broker refused the operator's login"));
            return;
          }
          root.dataset.state = "ready";
          draw();
        });
    });
    client.on("message", onMessage);
    client.on("error", (error) => {
      client.end(true);
      drawLogin(/auth|not authori[sz]ed|bad user/i.test(String(error && error.message))
        ? _("The venue broker refused the operator's login") : say(String(error && error.message)));
    });
    client.on("close", () => {
      if (root.dataset.state === "ready") drawLogin(_("The link to the venue broker was lost: log in again"));
    });
  }

  // ---- asking the director ---------------------------------------------------------------------------------
  function ask(request) {
    const id = `${page}-${++shown.asked}`;
    return new Promise((resolve) => {
      shown.pending.set(id, resolve);
      shown.client.publish(`${PREFIX}/director/request/${page}`, JSON.stringify({ ...request, id }), { qos: 1 });
      setTimeout(() => {
        if (shown.pending.delete(id)) resolve({ ok: false, error: _("The director did not answer") });
      }, 15000);
    });
  }
  async function act(request, done) {
    tell(_("Asking the director\u2026"), false);
    root.dataset.busy = "true";
    const answer = await ask(request);
    root.dataset.busy = "false";
    if (answer.ok) {
      if (typeof answer.event === "number") {
        shown.id = answer.event;
        if (answer.state) shown.events.set(answer.event, answer.state);
      }
      tell(done, false);
      draw();
    } else {
      tell(format(_("Refused: {reason}"), { reason: answer.message ? say(answer.message) : answer.error }), true);
    }
    return answer;
  }

  function onMessage(topic, payload) {
    const parts = topic.split("/");
    if (parts[2] === "answer") {
      let answer;
      try {
        answer = JSON.parse(payload.toString());
      } catch (error) {
        return;
      }
      const resolve = shown.pending.get(answer.id);
      if (resolve) {
        shown.pending.delete(answer.id);
        resolve(answer);
      }
      return;
    }
    if (parts[2] === "event" && /^\d+$/.test(parts[3] || "")) {
      try {
        shown.events.set(Number(parts[3]), JSON.parse(payload.toString()));
      } catch (error) {
        return;
      }
      if (shown.id === null || Number(parts[3]) > shown.id) shown.id = Number(parts[3]);
      if (!typing()) draw();
      else shown.stale = true;
    }
  }

  // ---- the page: a new event, the event's matches ------------------------------------------------------
  const FORMATS = [["single", _("Single elimination")], ["double", _("Double elimination")],
    ["round_robin", _("Round robin")]];

  function newEventForm() {
    const form = el("form", "op-new");
    form.name = "new";
    const name = input("name");
    const kind = el("select");
    kind.name = "format";
    for (const [value, label] of FORMATS) {
      const option = el("option", "", label);
      option.value = value;
      kind.append(option);
    }
    const players = el("textarea");
    players.name = "players";
    players.rows = 6;
    const race = input("race", "number", "5");
    const tables = input("tables");
    const groups = input("groups", "number", "2");
    const advance = input("advance", "number", "2");
    form.append(el("h2", "side-title", _("New event")), field(_("Name"), name), field(_("Format"), kind),
      field(_("Players, one a line or comma-separated, in seed order"), players), field(_("Race to"), race),
      field(_("Tables (comma-separated, optional)"), tables),
      field(_("Round robin: groups"), groups), field(_("Round robin: how many go through"), advance));
    form.append(button("create", _("Create the event"), () => {
      const spec = { name: name.value.trim(), format: kind.value,
        players: players.value.split(/[\n,]/).map((p) => p.trim()).filter(Boolean), race: Number(race.value) };
      const list = tables.value.split(",").map((t) => t.trim()).filter(Boolean);
      if (list.length) spec.tables = list;
      if (kind.value === "round_robin") spec.round_robin = { groups: Number(groups.value), advance: Number(advance.value) };
      act({ cmd: "new", spec }, _("The event is created"));
    }));
    return form;
  }

  const STATUS = { waiting: _("waits for its players"), ready: _("ready"), called: _("called"), playing: _("playing"),
    done: _("played") };

  // A score as the language writes it: 4-2, in Croatian 4:2 (docs/i18n.md); either is typed back.
  const scoreWords = (score) => format(_("{won0}-{won1}"), { won0: score[0], won1: score[1] });

  function matchRow(event, match) {
    const tr = el("tr", `op-match status-${match.status}`);
    tr.dataset.match = match.match;
    tr.dataset.status = match.status;
    tr.dataset.score = match.score ? match.score.join("-") : "";
    const names = match.players.map((p) => p || "\u2014").join(" - ");
    tr.append(el("td", "mid", match.match), el("td", "", names), el("td", "", STATUS[match.status] || match.status),
      el("td", "", match.table || ""), el("td", "op-score", match.score ? scoreWords(match.score) : ""));
    const actions = el("td", "op-actions");
    if (match.status !== "waiting") {
      if (match.status !== "done") {
        const table = input("table", "text", match.table || "");
        table.placeholder = _("table");
        actions.append(table, button("move", match.table ? _("Move") : _("Call"), () => act({
          cmd: "move", event: shown.id, match: match.match, table: table.value.trim() }, format(_("{match} is at table {table}"),
          { match: match.match, table: table.value.trim() }))));
      }
      const score = input("score", "text");
      score.placeholder = scoreWords([7, 5]);
      const reason = input("reason", "text");
      reason.placeholder = _("reason (to correct)");
      actions.append(score, reason, button("result", match.score ? _("Correct") : _("Enter result"), () => {
        const pair = score.value.split(/[-:]/).map((n) => Number(n.trim()));
        const request = { cmd: "result", event: shown.id, match: match.match, score: pair };
        if (reason.value.trim()) request.reason = reason.value.trim();
        act(request, format(_("{match}: the result is recorded"), { match: match.match }));
      }));
    }
    tr.append(actions);
    return tr;
  }

  function draw() {
    if (root.dataset.state !== "ready") return;
    shown.stale = false;
    const event = shown.id === null ? null : shown.events.get(shown.id);
    const top = el("header", "event-head");
    top.append(el("h1", "event-name", _("Operator")));
    top.append(button("logout", _("Log out"), () => {
      root.dataset.state = "login";
      shown.client.end(true);
      drawLogin();
    }));
    const body = el("div", "op-body");
    const side = el("div", "op-side");
    side.append(newEventForm());
    const main = el("section", "op-event");
    if (event) {
      main.dataset.event = String(shown.id);
      const title = el("h2", "side-title", `${event.name} (${shown.id})`);
      main.append(title);
      if (event.winner) main.append(el("p", "event-winner", format(_("Winner: {name}"), { name: event.winner })));
      if (!event.drawn) main.append(button("draw", _("Draw"), () => act({ cmd: "draw", event: shown.id }, _("The players are drawn"))));
      const table = el("table", "op-matches");
      const head = el("tr");
      for (const word of [_("Match"), _("Players"), _("Status"), _("Table"), _("Score"), ""]) head.append(el("th", "", word));
      table.append(head);
      for (const match of event.matches) table.append(matchRow(event, match));
      main.append(table);
    } else main.append(el("p", "none", _("No event yet: create one")));
    body.append(main, side);
    root.replaceChildren(top, said, body);
  }
  // What the operator is typing is never drawn over: a change that comes meanwhile waits for the field to be left.
  function typing() {
    const active = document.activeElement;
    return Boolean(active && root.contains(active) && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName));
  }
  document.addEventListener("focusout", () => setTimeout(() => {
    if (shown.stale && !typing()) draw();
  }, 0));

  drawLogin();
})();
