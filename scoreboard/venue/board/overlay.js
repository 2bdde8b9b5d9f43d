/* A streaming overlay (issue 32): ?table=ID&overlay=1 is a transparent lower third for OBS's browser source, as
 * venues that stream a TV table use: both players, the score against the race (APA: points against targets), the
 * rack, and the shot clock while a turn is timed, from the table's retained <prefix>/<table>/state (docs/mqtt.md).
 *
 * It follows the table's match: the table's state is the match on it, whichever it is; when the director has called
 * the next match to this table (its retained <prefix>/director/event/<id>), a strip says who is next until the
 * table's state shows them, and the event's name and match id label the match the director put there. Like the
 * tiles it draws a state only if it is newer by (store, match_id, seq), and keeps no rule: every figure is served.
 * Same ?broker, ?user, ?password, ?prefix and ?lang as the board. A table serving a contract newer than the
 * overlay's (docs/mqtt.md, "The contract") keeps its players and score shown, and the middle says to update the
 * board in place of the rack and the shot clock; nothing else of its state is drawn.
 */
(() => {
  "use strict";

  const params = new URLSearchParams(location.search);
  const TABLE = params.get("table");
  if (!TABLE || !params.get("overlay") || params.get("overlay") === "0") return;
  window.devetkaEventView = "overlay";

  const PREFIX = params.get("prefix") || "devetka";
  const { LANG, _, format } = window.devetkaWords(params);

  const CONTRACT = 1; // board.js's, and scoreboard/contract/records.py's
  const ahead = (s) => Boolean(s) && typeof s.contract === "number" && s.contract > CONTRACT;

  const shown = { state: null, events: new Map(), draws: 0, contract: CONTRACT };
  window.devetkaOverlay = shown;

  document.documentElement.lang = LANG;
  document.body.classList.add("overlay-page");
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
  const root = el("div", "overlay");
  root.id = "overlay";
  root.dataset.table = TABLE;
  document.body.append(root);

  // Newer by (store, match_id, seq), as the tiles order states (README.md, "Order").
  const storeOf = (s) => (s.store === undefined || s.store === null ? "" : String(s.store));
  function newer(state, old) {
    if (!old) return true;
    if (storeOf(state) !== storeOf(old)) return true;
    const a = state.match_id ?? -1;
    const b = old.match_id ?? -1;
    return a !== b ? a > b : (state.seq ?? 0) > (old.seq ?? 0);
  }

  // The director's match on this table: the one in play or called here, from the latest event that has one.
  function directed() {
    const ids = [...shown.events.keys()].sort((a, b) => b - a);
    for (const id of ids) {
      const event = shown.events.get(id);
      const here = (event.matches || []).filter((m) => m.table === TABLE && m.status !== "done");
      if (here.length) return { event, match: here[0] };
    }
    return null;
  }
  const samePlayers = (a, b) => Boolean(a && b) && a[0] === b[0] && a[1] === b[1];

  function shotClock(s) {
    const c = s && s.players && s.match_winner === null ? s.shot_clock : null;
    if (!c || !c.on) return ["", ""];
    if (c.time_foul_proposed) return [_("TIME"), "out"];
    if (c.running && c.paused && typeof c.paused_left === "number") {
      return [String(Math.max(0, Math.ceil(c.paused_left / 1000))), "paused"]; // a ruling put right: standing still
    }
    if (!c.running || typeof c.deadline !== "number") return ["", ""];
    const now = Date.now();
    const left = Math.max(0, Math.ceil((c.deadline - now) / 1000));
    if (left === 0) return [_("TIME"), "out"];
    return [String(left), left <= 5 ? "late" : now >= c.warning_at ? "warn" : ""];
  }

  function draw() {
    shown.draws += 1;
    const s = shown.state;
    const director = directed();
    const bar = el("div", "lower-third");
    const playing = Boolean(s && s.players);
    root.dataset.match = playing && s.match_id !== null && s.match_id !== undefined ? String(s.match_id) : "";
    root.dataset.seq = s ? String(s.seq) : "";
    root.dataset.contract = ahead(s) ? "ahead" : "known";
    if (playing && ahead(s)) {
      for (const i of [0, 1]) {
        const side = el("div", `side side-${i}`);
        side.append(el("span", "ov-name", String(s.players[i] ?? "")),
          el("span", "ov-score", Array.isArray(s.score) ? String(s.score[i] ?? "") : ""));
        bar.append(side);
        if (i === 0) bar.append(el("div", "ov-middle ov-update", _("newer table software: update this board")));
      }
      root.dataset.players = Array.isArray(s.players) ? s.players.join(" - ") : "";
    } else if (playing) {
      const apa = Array.isArray(s.points) && Array.isArray(s.targets);
      for (const i of [0, 1]) {
        const side = el("div", `side side-${i}`);
        if (s.shooter === i && s.match_winner === null) side.classList.add("shooting");
        if (s.match_winner === i) side.classList.add("won");
        const score = el("span", "ov-score", String(apa ? s.points[i] : s.score[i]));
        const race = apa ? s.targets[i] : s.race ? s.race[i] : null;
        if (race !== null) score.append(el("small", "ov-race", `/${race}`));
        side.append(el("span", "ov-name", s.players[i]), score);
        bar.append(side);
        if (i === 0) {
          const middle = el("div", "ov-middle");
          const winner = s.match_winner;
          middle.append(el("span", "ov-rack", winner === 0 || winner === 1
            ? format(_("{name} wins"), { name: s.players[winner] }) : format(_("rack {rack}"), { rack: s.rack })));
          const [clock, phase] = shotClock(s);
          const clockNode = el("span", "ov-clock", clock);
          clockNode.dataset.phase = phase;
          clockNode.hidden = clock === "";
          middle.append(clockNode);
          bar.append(middle);
        }
      }
      root.dataset.players = s.players.join(" - ");
    } else root.dataset.players = "";
    const label = el("div", "ov-label");
    if (director && playing && samePlayers(director.match.players, s.players)) {
      label.textContent = `${director.event.name} \u00b7 ${director.match.match}`;
    } else label.textContent = format(_("table {table}"), { table: TABLE });
    const next = director && !(playing && samePlayers(director.match.players, s.players) && s.match_winner === null)
      ? director.match : null;
    root.dataset.next = next ? next.match : "";
    const parts = [label];
    if (playing) parts.push(bar);
    if (next) {
      parts.push(el("div", "ov-next", format(_("Next on this table: {a} - {b}"),
        { a: next.players[0] || "\u2014", b: next.players[1] || "\u2014" })));
    }
    root.replaceChildren(...parts);
    root.hidden = !playing && !next;
  }
  setInterval(() => {
    if (shown.state && shown.state.shot_clock && shown.state.shot_clock.on) draw();
  }, 250);

  function onMessage(topic, payload) {
    const parts = topic.split("/");
    if (parts[1] === "director" && parts[2] === "event" && /^\d+$/.test(parts[3] || "")) {
      const id = Number(parts[3]);
      try {
        if (payload.length) shown.events.set(id, JSON.parse(payload.toString()));
        else shown.events.delete(id);
      } catch (error) {
        return;
      }
    } else if (parts[1] === TABLE && parts[2] === "state") {
      let state;
      try {
        state = payload.length ? JSON.parse(payload.toString()) : null;
      } catch (error) {
        return;
      }
      if (state && shown.state && storeOf(state) === storeOf(shown.state) && state.match_id === shown.state.match_id
          && state.seq === shown.state.seq) {
        shown.state = Object.assign({}, shown.state, { shot_clock: state.shot_clock }); // the clock alone changed
      } else if (state && !newer(state, shown.state)) return;
      else shown.state = state;
    } else return;
    draw();
  }

  function connect() {
    const given = params.get("broker");
    const urls = given ? given.split(",").map((url) => url.trim()).filter(Boolean)
      : (location.host ? [`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`] : []);
    if (!urls.length || typeof mqtt === "undefined") return;
    let current = 0;
    const options = {
      protocolVersion: 4, clean: true, keepalive: 10, reconnectPeriod: 1000, connectTimeout: 10000,
      clientId: `devetka-overlay-${Math.random().toString(16).slice(2, 10)}`, transformWsUrl: () => urls[current],
    };
    if (params.get("user")) {
      options.username = params.get("user");
      options.password = params.get("password") || "";
    }
    const client = mqtt.connect(urls[0], options);
    client.on("connect", () => {
      client.subscribe({ [`${PREFIX}/${TABLE}/state`]: { qos: 0 }, [`${PREFIX}/director/event/+`]: { qos: 0 } });
    });
    client.on("message", onMessage);
    client.on("close", () => {
      current = (current + 1) % urls.length;
    });
  }

  draw();
  connect();
})();
