/* The venue board: one tile per table, drawn from the tables' retained MQTT messages (docs/mqtt.md).
 *
 * Subscribes <prefix>/+/state (the daemon's state, retained), <prefix>/+/availability (online/offline,
 * retained, the daemon's last will) and <prefix>/+/bridge (the venue bridge's notification: retained 1/0, 0 when
 * the venue broker lost the table's bridge). Only reads: the venue broker's ACL gives the board no write.
 *
 * Ordering: a state is drawn only if it is newer than the one shown, by (store, match_id, seq): another store
 * (absent counts as "") replaces the one shown; the same store draws only a greater (match_id, seq), a null
 * match_id lowest. A table's status: "online"; "offline" when its daemon said so (or its last will did);
 * "stale" when the board's own link to the venue broker is down, the table's bridge says 0, the table never
 * said online, or a shot has been in progress for longer than ?silence_s (30 s) without a word (the daemon's
 * settle timer ends a shot within seconds and publishes it, so such a silence means a hung table or link;
 * an idle table between shots rightly says nothing). A tile that is not online is greyed and labelled, and its
 * score reads "last known".
 *
 * The players' language (docs/i18n.md): ?lang=hr|en, else the browser's first language the board speaks, else
 * English. The page's words come from the catalog the build makes (i18n/LANG.js); a ruling is said from the
 * messages the daemon serves (last_verdict.message: ids and arguments, docs/match-log.md), so every tile speaks the
 * board's language whatever its table's; where a message is not in the catalog, the served words are shown. In
 * the one-table view (?table=ID) a tap on the ruling shows the rules it cites ("Why?": last_verdict.cites).
 *
 * The venue broker may be one Mosquitto or several nodes of a NATS cluster: ?broker=URL,URL,... lists them, and
 * each (re)connect goes to the next after the one that was lost or refused the connection. A refused subscription
 * is asked again, with a growing pause, until the broker grants it: a NATS cluster refuses QoS 1 subscriptions
 * (SUBACK 0x80) for some seconds while its JetStream elects a new leader (QoS 0 stands in meanwhile).
 *
 * The contract (docs/mqtt.md, "The contract"): the board knows states of contract CONTRACT (or none: an older
 * table). A table serving a higher one keeps its players, score and balls drawn, and its tile says to update the
 * board; the rest (the race, the turn, the flags, the ruling, the shot clock, the match time) may mean something
 * else there, so it is not drawn from a guess.
 */
(() => {
  "use strict";

  if (window.devetkaEventView) return; // ?event, ?next, ?player (event.js), ?overlay, ?operator: their own scripts draw

  const params = new URLSearchParams(location.search);
  const ONE = params.get("table");
  const PREFIX = params.get("prefix") || "devetka";
  const SILENCE_S = Number(params.get("silence_s")) > 0 ? Number(params.get("silence_s")) : 30;
  // The highest QoS the board subscribes at: 1 with one broker, 0 with several (a NATS cluster), where each QoS 1
  // subscription is a JetStream consumer, refused or slow for seconds while JetStream elects a leader, where QoS 0
  // needs no JetStream. For a board with a clean session the two differ only while it is disconnected, when it loses
  // its session anyway.
  const BROKERS = (params.get("broker") || "").split(",").filter((url) => url.trim()).length;
  const QOS = params.get("qos") === "0" || params.get("qos") === "1" ? Number(params.get("qos"))
    : (BROKERS > 1 ? 0 : 1);
  const DRAWN_MAX = 20000;
  const CONTRACT = 1; // scoreboard/contract/records.py's CONTRACT, which tests/venue/test_board.py checks it against
  const BALL_MAX = 9;
  // ---- words -------------------------------------------------------------------------------------------
  // The catalog of LANG (i18n/LANG.js, words.js): messages by msgid (a string, or the list of plural forms under the
  // singular's id), its plural rule and the rules' texts.
  const { LANG, catalog, _, ngettext, format } = window.devetkaWords(params);
  // A served message in the board's language: {id, args, plural?, n?}, {balls: [...]}, {join, parts} or a word.
  function say(value) {
    if (value === null || value === undefined) return "";
    if (typeof value !== "object") return String(value);
    if (Array.isArray(value.balls)) {
      const names = value.balls.map(String);
      return names.length === 1 ? names[0]
        : format(_("{balls} and {last}"), { balls: names.slice(0, -1).join(", "), last: names[names.length - 1] });
    }
    if (Array.isArray(value.parts)) return value.parts.map(say).join(typeof value.join === "string" ? value.join : " ");
    if (typeof value.id !== "string") return "";
    const template = typeof value.plural === "string" ? ngettext(value.id, value.plural, Number(value.n)) : _(value.id);
    const args = {};
    for (const [name, arg] of Object.entries(value.args || {})) args[name] = say(arg);
    return format(template, args);
  }
  // Every id of a message is in the catalog (English has none of its own: its ids are its words).
  function known(value) {
    if (!value || typeof value !== "object") return true;
    if (Array.isArray(value.parts)) return value.parts.every(known);
    if (typeof value.id === "string") {
      return (LANG === "en" || value.id in catalog.messages) && Object.values(value.args || {}).every(known);
    }
    return true;
  }
  // The ruling of a state in the board's language: from its messages, else the words the table served.
  function ruling(verdict) {
    if (!verdict) return "";
    return verdict.message && known(verdict.message) ? say(verdict.message) : verdict.words || "";
  }

  // For the benchmark and the tests: {table, seq, t, match} each time a seq is drawn, t in ms since the epoch
  // (the page's clock: performance.timeOrigin + performance.now()); the last DRAWN_MAX are kept.
  const drawn = [];
  window.devetkaDrawn = drawn;
  // The same for each live state as it arrived (MQTT.js handed it over), drawn or not: the benchmark's last hop
  // but one.
  const arrived = [];
  window.devetkaArrived = arrived;

  const board = {
    tables: new Map(), // id -> table record
    // refusals: subscriptions refused so far; meanwhile: QoS 1 topics refused and taken at QoS 0 until granted
    link: { up: false, since: Date.now(), ever: false, refusals: 0, meanwhile: [] },
    received: {}, // id -> state messages received (drawn or not), for the tests
    // The venue's own link from its tables' broker to the readers' broker this page reads (devetka-venue/link,
    // retained; "0", its will, when that link or the tables' broker is gone): "1", "0", or null (not said).
    venue: { link: null, at: 0 },
    url: null, // the broker this (re)connect goes to, one of urls
    urls: [],
    options: null,
    client: null,
  };
  window.devetkaBoard = board;
  board.say = say; // for the tests: a served message in the board's language
  board.contract = CONTRACT;
  board.language = LANG;

  const grid = document.getElementById("board");
  const empty = document.getElementById("empty");
  if (ONE) document.body.classList.add("one");

  // ---- ordering ----------------------------------------------------------------------------------------
  const storeOf = (state) => (state.store === undefined || state.store === null ? "" : String(state.store));
  const matchOf = (state) => (state.match_id === null || state.match_id === undefined ? -Infinity : state.match_id);

  function newer(state, shown) {
    if (!shown) return true;
    if (storeOf(state) !== storeOf(shown)) return true;
    if (matchOf(state) !== matchOf(shown)) return matchOf(state) > matchOf(shown);
    return state.seq > shown.seq;
  }
  board.newer = newer;
  const sameState = (state, shown) => storeOf(state) === storeOf(shown) && matchOf(state) === matchOf(shown)
    && state.seq === shown.seq;

  // A state of a contract this board does not know yet: its fields beyond the players, score and balls may mean
  // something else. A state without one, or with one that is not a number, is read as this board reads it.
  const ahead = (state) => Boolean(state) && typeof state.contract === "number" && state.contract > CONTRACT;

  // ---- small helpers -----------------------------------------------------------------------------------
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  const pad = (n) => String(n).padStart(2, "0");
  function hhmm(ms) {
    const d = new Date(ms);
    return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  }
  function duration(ms) {
    const s = Math.max(0, Math.floor(ms / 1000));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    return h ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
  }
  const naturally = (a, b) => a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" });

  // ---- tables and tiles --------------------------------------------------------------------------------
  function makeTile(id) {
    const tile = el("article", "tile");
    tile.dataset.table = id;
    tile.dataset.match = "";
    tile.dataset.seq = "";
    tile.dataset.online = "false";
    tile.dataset.status = "stale";
    tile.dataset.contract = "known";
    const inner = el("div", "inner");
    const head = el("header", "head");
    const parts = {
      name: el("span", "name", id),
      status: el("span", "status", _("no word yet")),
      rack: el("span", "rack"),
      clock: el("span", "clock"),
      players: [],
      flags: el("div", "flags"),
      shotclock: el("span", "shotclock"),
      shotclockSeconds: el("b", "seconds"),
      balls: el("div", "balls"),
      words: el("p", "words"),
      why: el("div", "why"),
      idle: el("p", "idle", _("no match")),
      lastKnown: el("span", "lastknown", _("last known score")),
      update: el("span", "update", _("newer table software: update this board")),
    };
    parts.update.hidden = true;
    parts.why.hidden = true;
    const meta = el("span", "meta");
    meta.append(parts.rack, parts.clock);
    head.append(parts.name, parts.status, meta);
    const body = el("div", "body");
    const players = el("div", "players");
    for (let i = 0; i < 2; i++) {
      const row = el("div", `player p${i}`);
      const who = el("span", "who");
      const turn = el("span", "turn", "\u25B6");
      const pname = el("span", "pname");
      const tags = el("span", "tags");
      const broke = el("span", "tag broke", _("break"));
      const fouls = el("span", "tag fouls");
      const won = el("span", "tag won", _("wins"));
      tags.append(broke, fouls, won);
      const namebox = el("span", "namebox");
      namebox.append(pname, tags); // the tags under the name: the name keeps the row's width
      who.append(turn, namebox);
      const score = el("span", "score");
      const points = el("b", "points");
      const race = el("small", "race");
      score.append(points, race);
      row.append(who, score);
      players.append(row);
      parts.players.push({ row, pname, broke, fouls, won, points, race });
    }
    parts.shotclockLabel = el("small", "", _("shot clock"));
    parts.shotclock.append(parts.shotclockLabel, parts.shotclockSeconds);
    parts.shotclock.hidden = true;
    const line = el("div", "line");
    line.append(parts.flags, parts.shotclock);
    body.append(players, parts.idle, line, parts.balls, parts.words, parts.why);
    if (ONE) {
      // "Why?": a tap on the ruling shows the rules it cites, in the board's language; another tap hides them.
      parts.words.classList.add("asks");
      parts.words.addEventListener("click", () => {
        parts.why.hidden = !parts.why.hidden;
        tile.classList.toggle("asking", !parts.why.hidden); // the rules take the place of the balls and flags
        drawWhy(parts, board.tables.get(id));
      });
    }
    inner.append(head, parts.lastKnown, parts.update, body);
    tile.append(inner);
    return { tile, parts };
  }

  function table(id) {
    let t = board.tables.get(id);
    if (t) return t;
    const { tile, parts } = makeTile(id);
    t = {
      id, tile, parts,
      state: null, drawnKey: null, dirty: true,
      availability: null, availabilityAt: null, availabilityRetained: false,
      bridge: null, bridgeAt: null, bridgeRetained: false,
      heardAt: null, match: null, shownStatus: null,
    };
    board.tables.set(id, t);
    // Tiles in the tables' natural order: bar2 before bar10.
    const after = [...board.tables.keys()].sort(naturally).find((other) => naturally(other, id) > 0);
    grid.insertBefore(tile, after ? board.tables.get(after).tile : null);
    layout();
    return t;
  }

  function layout() {
    const n = board.tables.size;
    grid.dataset.count = String(n);
    // The CSS lays the grid out by this bucket: the smallest of these that holds n tables.
    const fits = [1, 2, 4, 6, 9, 12, 16, 20, 25, 30, 36, 42, 48, 54, 63];
    grid.dataset.fit = String(fits.find((f) => f >= n) || "many");
    empty.hidden = n > 0;
  }

  // ---- status ------------------------------------------------------------------------------------------
  function status(t, now) {
    if (!board.link.up) {
      const since = board.link.ever ? format(_("venue link down since {time}"), { time: hhmm(board.link.since) })
        : _("connecting to the venue");
      return ["stale", since];
    }
    if (board.venue.link === "0") {
      return ["stale", format(_("venue link down since {time}"), { time: hhmm(board.venue.at) })];
    }
    if (t.bridge === "0") {
      const time = { time: hhmm(t.bridgeAt) };
      return ["stale", t.bridgeRetained ? format(_("table link down (seen {time})"), time)
        : format(_("table link down since {time}"), time)];
    }
    if (t.availability === "offline") {
      const time = { time: hhmm(t.availabilityAt) };
      return ["offline", t.availabilityRetained ? format(_("offline (seen {time})"), time)
        : format(_("offline since {time}"), time)];
    }
    if (t.availability !== "online") return ["stale", _("no word from the table yet")];
    if (t.state && !ahead(t.state) && t.state.shot_in_progress && t.heardAt !== null
      && now - t.heardAt > SILENCE_S * 1000) {
      return ["stale", format(_("no word since {time}"), { time: hhmm(t.heardAt) })];
    }
    return ["online", _("online")];
  }

  // ---- drawing -----------------------------------------------------------------------------------------
  const BALL_NAMES = ["", _("yellow"), _("blue"), _("red"), _("purple"), _("orange"), _("green"), _("maroon"),
    _("black"), _("yellow stripe")];

  function drawState(t) {
    const s = t.state;
    const p = t.parts;
    const tile = t.tile;
    const playing = Boolean(s && s.players);
    tile.classList.toggle("nomatch", !playing);
    tile.dataset.match = s && s.match_id !== null && s.match_id !== undefined ? String(s.match_id) : "";
    tile.dataset.seq = s ? String(s.seq) : "";
    tile.dataset.store = s ? storeOf(s) : "";
    // What the venue calls the table ([table] name, served as table_name), else its id.
    const called = s && typeof s.table_name === "string" && s.table_name.trim() ? s.table_name : t.id;
    if (p.name.textContent !== called) p.name.textContent = called;
    const later = ahead(s);
    tile.dataset.contract = later ? "ahead" : "known";
    p.update.hidden = !later;
    if (later && playing) {
      drawWhatIsKnown(t);
      return;
    }
    if (!playing) {
      p.rack.textContent = "";
      p.flags.replaceChildren();
      p.balls.replaceChildren();
      p.words.textContent = "";
      drawWhy(p, t);
      return;
    }
    const winner = s.match_winner;
    tile.classList.toggle("over", winner === 0 || winner === 1);
    for (let i = 0; i < 2; i++) {
      const row = p.players[i];
      row.pname.textContent = s.players[i];
      // APA 9-ball (docs/match-log.md, "League nights"): points against targets; else racks against the race
      const apa = Array.isArray(s.points) && Array.isArray(s.targets);
      row.points.textContent = String(apa ? s.points[i] : s.score[i]);
      row.race.textContent = apa ? `/${s.targets[i]}` : s.race ? `/${s.race[i]}` : "";
      row.row.classList.toggle("shooting", s.shooter === i && winner === null);
      row.broke.hidden = s.breaker !== i;
      const fouls = (s.fouls_in_row && s.fouls_in_row[i]) || 0;
      row.fouls.hidden = fouls === 0;
      row.fouls.textContent = format(ngettext("{n} foul", "{n} fouls", fouls), { n: fouls });
      row.fouls.classList.toggle("two", fouls >= 2);
      row.won.hidden = winner !== i;
    }
    p.rack.textContent = winner === null ? format(_("rack {rack}"), { rack: s.rack })
      : format(ngettext("{n} rack", "{n} racks", s.rack), { n: s.rack });
    const flags = [];
    if (winner === null) {
      const shooter = s.shooter === 0 || s.shooter === 1 ? s.players[s.shooter] : null;
      if (s.warning) flags.push(["warning", format(_("{name} on two fouls"), { name: shooter || _("shooter") })]);
      if (s.ball_in_hand) flags.push(["bih", _("ball in hand")]);
      if (s.awaiting_choice) flags.push(["choice", _("choice: play or pass")]);
      else if (s.push_out_allowed) flags.push(["push", _("push out allowed")]);
      if (s.push_out) flags.push(["push", _("push out")]);
      if (s.rack_mode) flags.push(["racking", _("racking")]);
    }
    p.flags.replaceChildren(...flags.map(([cls, text]) => el("span", `flag ${cls}`, text)));
    drawBalls(p, s);
    p.words.textContent = ruling(s.last_verdict);
    drawWhy(p, t);
  }

  function drawBalls(p, s) {
    const balls = (Array.isArray(s.on_table) ? s.on_table : []).filter((b) => Number.isInteger(b) && b >= 1
      && b <= BALL_MAX);
    p.balls.replaceChildren(...balls.map((b) => {
      const ball = el("span", `ball b${b}`);
      ball.title = `${b} (${BALL_NAMES[b]})`;
      ball.append(el("i", "", String(b)));
      return ball;
    }));
    p.balls.dataset.left = String(balls.length);
  }

  // A state of a newer contract (ahead): the players, the score and the balls, which every contract serves alike;
  // nothing drawn from the fields whose meaning may have changed.
  function drawWhatIsKnown(t) {
    const s = t.state;
    const p = t.parts;
    t.tile.classList.remove("over");
    for (let i = 0; i < 2; i++) {
      const row = p.players[i];
      row.pname.textContent = String(s.players[i] ?? "");
      row.points.textContent = Array.isArray(s.score) ? String(s.score[i] ?? "") : "";
      row.race.textContent = "";
      row.row.classList.remove("shooting");
      row.broke.hidden = row.fouls.hidden = row.won.hidden = true;
    }
    p.rack.textContent = "";
    p.flags.replaceChildren();
    drawBalls(p, s);
    p.words.textContent = "";
    drawWhy(p, t);
  }

  // "Why?" (the one-table view): each rule the ruling cites, its title and text from the catalog's rules.
  function drawWhy(p, t) {
    const cites = (t && t.state && !ahead(t.state) && t.state.last_verdict && t.state.last_verdict.cites) || [];
    const shown = p.why.hidden ? [] : cites.filter((number) => catalog.rules[number]);
    p.why.dataset.rules = shown.join(" ");
    p.why.replaceChildren(...shown.map((number) => {
      const rule = el("section", "rule");
      const title = number.includes(".") || /^T?R\d+$/.test(number) ? `${number} ${catalog.rules[number].title}`
        : catalog.rules[number].title;
      rule.append(el("h3", "", title), el("p", "", catalog.rules[number].text));
      return rule;
    }));
  }

  function drawStatus(t, now) {
    const [name, words] = status(t, now);
    const tile = t.tile;
    if (tile.dataset.status !== name) tile.dataset.status = name;
    const online = name === "online" ? "true" : "false";
    if (tile.dataset.online !== online) tile.dataset.online = online;
    tile.classList.toggle("dead", name !== "online");
    if (t.parts.status.textContent !== words) t.parts.status.textContent = words;
    drawShotClock(t, name === "online", now);
    // The match's time: from its served start (match_started, docs/mqtt.md), or, from a table that does not serve
    // one, from when this page first saw the match ("≥" when it was already under way then); it stops when the
    // match is won, and stands still while the table is not live.
    const m = ahead(t.state) ? null : t.match;
    if (m) {
      if (name === "online" && m.end === null) m.pausedAt = null;
      else if (m.pausedAt === null) m.pausedAt = now;
      const until = m.end !== null ? m.end : (m.pausedAt !== null ? m.pausedAt : now);
      // A match already won when first seen has no time this page could tell (its end is not served).
      const text = m.wonBefore || (m.partial && m.end === m.since) ? ""
        : `${m.partial ? "\u2265" : ""}${duration(until - m.since)}`;
      if (t.parts.clock.textContent !== text) t.parts.clock.textContent = text;
    } else if (t.parts.clock.textContent) {
      t.parts.clock.textContent = "";
    }
  }

  // The shot clock (docs/mqtt.md, "The shot clock"): the state says when the turn runs out (epoch ms), never a
  // countdown; the board counts down on its own clock each second, amber from the warning, red in the last 5 s.
  // While a ruling is put right at the table (paused) it serves the seconds left, standing still: shown in blue.
  const SHOT_CLOCK_LATE_S = 5;
  function shotClockShown(s, now) {
    const c = s && s.players && !ahead(s) && s.match_winner === null ? s.shot_clock : null;
    if (!c || !c.on) return ["", ""];
    if (c.time_foul_proposed) return [_("TIME"), "out"];
    if (c.running && c.paused && typeof c.paused_left === "number") {
      return [`${Math.max(0, Math.ceil(c.paused_left / 1000))}`, "paused"];
    }
    if (!c.running || typeof c.deadline !== "number") return ["", ""];
    const left = Math.max(0, Math.ceil((c.deadline - now) / 1000));
    if (left === 0) return [_("TIME"), "out"];
    const phase = left <= SHOT_CLOCK_LATE_S ? "late" : now >= c.warning_at ? "warn" : "";
    return [`${left}`, phase];
  }

  function drawShotClock(t, live, now) {
    const [text, phase] = live ? shotClockShown(t.state, now) : ["", ""];
    const e = t.parts.shotclock;
    const seconds = t.parts.shotclockSeconds;
    if (seconds.textContent !== text) seconds.textContent = text;
    const label = phase === "paused" ? _("shot clock paused") : _("shot clock");
    if (t.parts.shotclockLabel.textContent !== label) t.parts.shotclockLabel.textContent = label;
    if ((e.dataset.phase || "") !== phase) e.dataset.phase = phase;
    e.hidden = text === "";
  }

  let frame = null;
  let fallback = null;
  function schedule() {
    if (frame === null) frame = requestAnimationFrame(flush);
    // A hidden page gets no frames: draw within 100 ms all the same.
    if (fallback === null) fallback = setTimeout(flush, 100);
  }

  function flush() {
    if (frame !== null) cancelAnimationFrame(frame);
    if (fallback !== null) clearTimeout(fallback);
    frame = null;
    fallback = null;
    const now = Date.now();
    if (!board.tables.size && board.url) {
      empty.textContent = board.link.up ? _("Waiting for the tables\u2026")
        : format(_("Connecting to the venue broker ({url})\u2026"), { url: board.url });
    }
    for (const t of board.tables.values()) {
      if (t.dirty) {
        t.dirty = false;
        const key = t.state ? `${storeOf(t.state)}\u0000${t.state.match_id}\u0000${t.state.seq}` : null;
        try {
          drawState(t);
        } catch (error) { // a state that breaks the page's assumptions spoils its own tile, not the board
          console.warn(`board: ${t.id}: cannot draw this state`, error);
        }
        if (key !== null && key !== t.drawnKey) {
          t.drawnKey = key;
          drawn.push({ table: t.id, seq: t.state.seq, t: performance.timeOrigin + performance.now(),
                       match: t.state.match_id === undefined ? null : t.state.match_id });
          if (drawn.length > DRAWN_MAX) drawn.splice(0, drawn.length - DRAWN_MAX);
        }
      }
      drawStatus(t, now);
    }
  }

  // ---- messages ----------------------------------------------------------------------------------------
  const decoder = new TextDecoder();

  function onState(t, text, retained, now, at) {
    let state;
    try {
      state = JSON.parse(text);
    } catch (error) {
      console.warn(`board: ${t.id}: a state that is not JSON`, error);
      return;
    }
    if (!state || typeof state !== "object" || typeof state.seq !== "number") return;
    board.received[t.id] = (board.received[t.id] || 0) + 1;
    if (!retained) {
      arrived.push({ table: t.id, seq: state.seq, t: at, match: state.match_id === undefined ? null : state.match_id });
      if (arrived.length > DRAWN_MAX) arrived.splice(0, arrived.length - DRAWN_MAX);
    }
    // A retained copy (given again at every reconnect) is no word from the table; a live one is.
    if (!retained || t.heardAt === null) t.heardAt = now;
    if (t.state && sameState(state, t.state)) {
      // The same stored state, its shot clock changed by the daemon alone (a pause while a ruling is put right, a
      // time foul proposed): nothing was stored, so the seq stays; only the clock is taken from it.
      t.state = Object.assign({}, t.state, { shot_clock: state.shot_clock });
      t.dirty = true;
      return;
    }
    if (!newer(state, t.state)) return;
    const matchKey = `${storeOf(state)}\u0000${state.match_id}`;
    if (state.players && (!t.match || t.match.key !== matchKey)) {
      // The served start (match_started) when there is one: the real time played, however late the page opened.
      const begun = Date.parse(state.match_started || "");
      const known = Number.isFinite(begun);
      t.match = { key: matchKey, since: known ? begun : now, partial: !known && state.seq > 0, end: null,
                  pausedAt: null, wonBefore: state.match_winner === 0 || state.match_winner === 1 };
    } else if (!state.players) {
      t.match = null;
    }
    if (t.match && t.match.end === null && (state.match_winner === 0 || state.match_winner === 1)) t.match.end = now;
    t.state = state;
    t.dirty = true;
  }

  function onMessage(topic, payload, packet) {
    const at = performance.timeOrigin + performance.now();
    if (topic === VENUE_LINK) {
      const value = decoder.decode(payload).trim();
      if (value !== board.venue.link) board.venue = { link: value, at: Date.now() };
      schedule();
      return;
    }
    const parts = topic.split("/");
    if (parts.length !== 3 || parts[0] !== PREFIX) return;
    const [, id, kind] = parts;
    if (ONE && id !== ONE) return;
    const t = table(id);
    const text = decoder.decode(payload);
    const now = Date.now();
    const retained = Boolean(packet && packet.retain);
    if (kind === "state") {
      onState(t, text, retained, now, at);
    } else if (kind === "availability") {
      const value = text.trim();
      if (value !== t.availability) {
        t.availability = value;
        t.availabilityAt = now;
        t.availabilityRetained = retained;
      }
    } else if (kind === "bridge") {
      const value = text.trim();
      if (value !== t.bridge) {
        t.bridge = value;
        t.bridgeAt = now;
        t.bridgeRetained = retained;
      }
    }
    schedule();
  }

  // ---- the link to the venue broker --------------------------------------------------------------------
  // Without ?broker: the readers' broker on the box that served the page (its WebSocket, port 9002, path /mqtt:
  // docs/venue.md). The page's own listener lets no MQTT client in.
  const READERS_WEBSOCKET_PORT = 9002;
  const VENUE_LINK = "devetka-venue/link";
  function brokerUrls() {
    const given = params.get("broker");
    if (given) return given.split(",").map((url) => url.trim()).filter(Boolean);
    if (!location.hostname) return [];
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return [`${scheme}://${location.hostname}:${READERS_WEBSOCKET_PORT}/mqtt`];
  }

  // A refused subscription is asked again after these pauses (the last one repeated), each give or take a quarter.
  const RESUBSCRIBE_MS = [250, 500, 1000, 2000, 4000, 5000];
  let generation = 0; // one per connection: what a lost connection still had pending is dropped

  // Subscribe to every topic at its QoS in one SUBSCRIBE (its one SUBACK comes before the retained messages, so the
  // link is up before the first state is drawn); the link is up once each is granted. A refused subscription is
  // asked again topic by topic, with a growing pause, until granted; a refused QoS 1 one is taken at QoS 0
  // meanwhile (a NATS node refuses QoS 1 subscriptions, after a 4 s timeout, while JetStream elects a leader, and
  // grants QoS 0 at once; for a board with a clean session the two differ only while it is disconnected).
  function subscribeAll(client, topics) {
    const mine = ++generation;
    const pending = new Set(Object.keys(topics));
    board.link.meanwhile = [];
    const granted = (topic) => {
      pending.delete(topic);
      if (!pending.size && !board.link.up) {
        board.link.up = true;
        board.link.ever = true;
        schedule();
      }
    };
    const later = (attempt, then) => {
      const pause = RESUBSCRIBE_MS[Math.min(attempt, RESUBSCRIBE_MS.length - 1)] * (0.75 + Math.random() / 2);
      setTimeout(() => {
        if (mine === generation && client.connected) then();
      }, pause);
      return pause;
    };
    const ask = (topic, qos, attempt, then) => {
      client.subscribe(topic, { qos }, (error) => {
        if (mine !== generation) return;
        if (!error) {
          then();
          return;
        }
        board.link.refusals += 1;
        const pause = later(attempt, () => ask(topic, qos, attempt + 1, then));
        console.warn(`board: subscription to ${topic} at QoS ${qos} refused (${error.message}),`
          + ` asking again in ${pause | 0} ms`);
      });
    };
    client.subscribe(topics, (error, subscriptions, packet) => {
      if (mine !== generation) return;
      const codes = (packet && packet.granted) || [];
      Object.keys(topics).forEach((topic, i) => {
        if (!error || (codes[i] !== undefined && (codes[i] & 0x80) === 0)) {
          granted(topic);
          return;
        }
        board.link.refusals += 1;
        const qos = topics[topic].qos;
        if (qos > 0) board.link.meanwhile.push(topic);
        later(0, () => {
          ask(topic, 0, 1, () => granted(topic));
          if (qos > 0) {
            ask(topic, qos, 1, () => {
              board.link.meanwhile = board.link.meanwhile.filter((other) => other !== topic);
            });
          }
        });
      });
    });
  }

  function linkDown() {
    if (board.link.up) {
      board.link.up = false;
      board.link.since = Date.now();
    }
    schedule();
  }

  const clientId = () => `devetka-board-${Math.random().toString(16).slice(2, 10)}`;

  function connect() {
    const urls = brokerUrls();
    let current = 0;
    board.urls = urls;
    board.url = urls[0] || null;
    if (!urls.length) {
      empty.textContent = _("No broker: open this page from the venue broker, or add ?broker=ws://HOST:PORT");
      return;
    }
    if (typeof mqtt === "undefined") {
      empty.textContent = _("MQTT.js did not load (vendor/mqtt.min.js)");
      return;
    }
    const options = {
      protocolVersion: 4,
      clean: true,
      keepalive: 10, // a dead link is noticed within 15 s
      reconnectPeriod: 1000,
      connectTimeout: 10000,
      clientId: clientId(),
      resubscribe: false, // the board subscribes on every connect itself, and retries what is refused
      transformWsUrl: () => urls[current], // the node this (re)connect goes to
    };
    if (params.get("user")) {
      options.username = params.get("user");
      options.password = params.get("password") || "";
    }
    board.options = { ...options, password: options.password ? "(given)" : undefined };
    const client = mqtt.connect(urls[0], options);
    board.client = client;
    client.on("connect", () => {
      // What the tables said before is old news now: the broker's retained messages, which follow the
      // subscription, say it again. A table they say nothing of (a venue broker restarted empty, the table gone
      // meanwhile) reads stale, never online on what it said before the link was lost.
      for (const t of board.tables.values()) {
        t.availability = null;
        t.bridge = null;
      }
      board.venue = { link: null, at: 0 };
      // The state at QoS 0, as it is published; a lost one is followed by the next. Availability and the bridge
      // at QoS 1 (at most ?qos): they change seldom and each change matters.
      const topic = (kind) => `${PREFIX}/${ONE || "+"}/${kind}`;
      const topics = {
        [topic("state")]: { qos: 0 },
        [topic("availability")]: { qos: Math.min(1, QOS) },
        [topic("bridge")]: { qos: Math.min(1, QOS) },
        [VENUE_LINK]: { qos: Math.min(1, QOS) },
      };
      subscribeAll(client, topics);
    });
    client.on("message", onMessage);
    client.on("close", () => {
      generation += 1;
      // The next try goes to the next node: the one just lost may be gone for good.
      current = (current + 1) % urls.length;
      board.url = urls[current];
      // A new client id for each connection: NATS would first have to delete the lost connection's session,
      // which fails (its connect with it) while JetStream elects a leader.
      client.options.clientId = clientId();
      linkDown();
    });
    client.on("offline", linkDown);
    client.on("error", (error) => console.warn("board: mqtt", error && error.message));
  }

  document.documentElement.lang = LANG;
  document.title = _("Devetka: the tables");
  empty.textContent = _("Waiting for the tables\u2026");
  if (ONE) table(ONE);
  layout();
  connect();
  setInterval(flush, 1000); // clocks, and the silence that makes a table stale
  flush();
})();
