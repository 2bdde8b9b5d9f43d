/* The night's event on the venue board (issue 32), drawn from the director's retained
 * <prefix>/director/event/<id> (the object `devetka event status --json` prints: docs/events.md, docs/mqtt.md).
 *
 * Views, on the board's own page (index.html):
 *   ?event         the event being played (the latest the director published), ?event=ID any other: single and
 *                  double elimination as brackets, round-robin groups as standings tables (and their playoff),
 *                  the APA team night as the two teams' score sheet; beside it, Up next.
 *   ?next[=ID]     Up next for a TV: the called matches with their tables, then the matches waiting for a table
 *                  in order; more than one screen's worth pages by itself every ?page_s (8) seconds.
 *   ?player=NAME   a player's phone (&event=ID for another event): the next match, its table once called, results.
 * For kiosks and tests every match cell carries data-match (the director's match id, as `devetka event export`
 * writes it), data-score (the export's score pair joined by "-", empty until played) and data-status; the view
 * carries data-winner (the event's winner, empty until it is done) and data-event (its id).
 *
 * The board keeps no rule of its own: who plays whom, standings and their tie-breaks, APA points and the winner
 * are the director's; this script only lays them out. It runs instead of board.js's tiles when one of the
 * queries above is given (window.devetkaEventView tells board.js to stand aside), with the same ?broker, ?user,
 * ?password, ?prefix and ?lang.
 */
(() => {
  "use strict";

  const params = new URLSearchParams(location.search);
  const VIEW = params.has("player") ? "player" : params.has("next") ? "next" : params.has("event") ? "event" : null;

  const PREFIX = params.get("prefix") || "devetka";
  const asked = Number(params.get(VIEW === "next" ? "next" : "event"));
  const ASKED = Number.isInteger(asked) && asked > 0 ? asked : null; // null: the latest event
  const PLAYER = (params.get("player") || "").trim();
  const PAGE_S = Number(params.get("page_s")) > 0 ? Number(params.get("page_s")) : 8;
  const BROKERS = (params.get("broker") || "").split(",").filter((url) => url.trim()).length;
  const QOS = BROKERS > 1 || params.get("qos") === "0" ? 0 : 1;
  // ---- words (the catalog board.js reads too: i18n/LANG.js, words.js) -----------------------------------------
  const { LANG, catalog, _, ngettext, format } = window.devetkaWords(params);

  // The tiles page: its link to the event keeps the page's own query (broker, login, language). One table full
  // screen (?table=ID, a TV beside it, and the overlay) has no link: nothing there is to be tapped.
  if (!VIEW) {
    const link = document.getElementById("event-link");
    if (link && params.has("table")) link.remove();
    else if (link) {
      const query = new URLSearchParams(params);
      query.set("event", "");
      link.href = `?${query.toString().replace(/event=(&|$)/, "event$1")}`;
      link.textContent = _("The night's event");
    }
    return;
  }
  window.devetkaEventView = VIEW;

  const FORMATS = {
    single: _("Single elimination"),
    double: _("Double elimination"),
    round_robin: _("Round robin"),
    apa_team: _("APA 9-ball team night"),
  };

  // ---- what the page knows ----------------------------------------------------------------------------------
  const shown = {
    events: new Map(), // id -> the director's state of that event
    id: null, // the event drawn
    link: false, // the link to the venue broker is up
    director: null, // "online" / "offline": the director's availability
    heard: null, // {at, every}: when the director's last heartbeat came (this page's clock), and its period (s)
    page: 0, // ?next: the page shown (0-based)
    draws: 0, // how many times the view was drawn (for the tests)
    scored: new Set(), // "event/match score" already stamped in window.devetkaEventDrawn
  };
  let away = false; // directorAway() when last drawn
  window.devetkaEvent = shown;
  // For the benchmark (bench/bracket.py): {event, match, score, t} when a match's score is first repainted, t in ms
  // since the epoch (performance.timeOrigin + performance.now(), stamped in the frame after the draw).
  const stamped = [];
  window.devetkaEventDrawn = stamped;
  // The same when the event carrying a match's score first arrived (MQTT.js handed it over): the hop before the draw.
  const arrived = [];
  const seen = new Set();
  window.devetkaEventArrived = arrived;
  function stampArrival(id, state) {
    const t = performance.timeOrigin + performance.now();
    for (const match of state.matches || []) {
      if (!match.score) continue;
      const key = `${id}/${match.match} ${match.score.join("-")}`;
      if (seen.has(key)) continue;
      seen.add(key);
      arrived.push({ event: id, match: match.match, score: match.score.join("-"), t });
    }
    if (arrived.length > 20000) arrived.splice(0, arrived.length - 20000);
  }
  function stampScores() {
    const fresh = [...root.querySelectorAll(".match[data-score]")]
      .filter((cell) => cell.dataset.score && !shown.scored.has(`${shown.id}/${cell.dataset.match} ${cell.dataset.score}`));
    if (!fresh.length) return;
    requestAnimationFrame(() => {
      const t = performance.timeOrigin + performance.now();
      for (const cell of fresh) {
        const key = `${shown.id}/${cell.dataset.match} ${cell.dataset.score}`;
        if (shown.scored.has(key)) continue;
        shown.scored.add(key);
        stamped.push({ event: shown.id, match: cell.dataset.match, score: cell.dataset.score, t });
      }
      if (stamped.length > 20000) stamped.splice(0, stamped.length - 20000);
    });
  }

  document.documentElement.lang = LANG;
  document.body.classList.add("event-page", `event-${VIEW}`);
  for (const id of ["board", "empty"]) {
    const node = document.getElementById(id);
    if (node) node.style.display = "none";
  }
  const root = el("main", "event-view");
  root.id = "event";
  root.dataset.view = VIEW;
  root.dataset.winner = "";
  document.body.append(root);

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }
  const scoreText = (match) => (match.score ? match.score.join("-") : "");
  const nameOr = (name) => name || "\u2014";
  // Where a side not known yet comes from, as the director serves it (a match's "from"): "winner of W1-2".
  function fromText(feed) {
    if (!feed) return "\u2014";
    if (feed.winner_of) return format(_("winner of {match}"), { match: feed.winner_of });
    if (feed.loser_of) return format(_("loser of {match}"), { match: feed.loser_of });
    if (feed.group) return format(_("group {group}, place {place}"), { group: feed.group, place: feed.place });
    if (feed.seed) return format(_("seed {n}"), { n: feed.seed });
    if (feed.team !== undefined) {
      const teams = (shown.events.get(shown.id) || {}).teams || [];
      return format(_("put up by {team}"), { team: teams[feed.team] || feed.team });
    }
    return "\u2014";
  }
  const sideOf = (match, i) => match.players[i] || fromText((match.from || [])[i]);
  const pair = (match) => format(_("{a} - {b}"), { a: nameOr(match.players[0]), b: nameOr(match.players[1]) });
  function raceText(match) {
    if (!match.race) return "";
    return match.race[0] === match.race[1] ? format(_("race to {n}"), { n: match.race[0] })
      : format(_("race {r0}-{r1}"), { r0: match.race[0], r1: match.race[1] });
  }
  function roundName(label, last) {
    if (label === "GF") return _("Grand final");
    const side = label[0];
    const n = Number(label.slice(1));
    if (side === "L") return format(_("Losers' round {n}"), { n });
    if (side === "K") return last ? _("Playoff final") : format(_("Playoff round {n}"), { n });
    if (last) return shown.format === "double" ? _("Winners' final") : _("Final");
    return format(_("Round {n}"), { n });
  }

  // ---- a match cell: both players, the score, the race and the table ------------------------------------
  function matchCell(match, apa) {
    const cell = el("div", `match status-${match.status}`);
    cell.dataset.match = match.match;
    cell.dataset.score = scoreText(match);
    cell.dataset.status = match.status;
    cell.dataset.table = match.table || "";
    const head = el("div", "mhead");
    head.append(el("span", "mid", match.match));
    const where = where_(match);
    if (where) head.append(el("span", "mwhere", where));
    else if (match.status !== "done") head.append(el("span", "mrace", raceText(match)));
    cell.append(head);
    for (const i of [0, 1]) {
      const name = match.players[i];
      const row = el("div", "mplayer");
      if (match.winner && match.winner === name) row.classList.add("won");
      if (!name) row.classList.add("unknown");
      const label = el("span", "mname");
      if (name) {
        const link = el("a", "plink", name);
        link.href = playerHref(name);
        label.append(link);
      } else label.textContent = sideOf(match, i);
      if (apa && match.skills) label.append(el("span", "skill", format(_("SL {n}"), { n: match.skills[i] })));
      row.append(label, el("span", "mscore", match.score ? String(match.score[i]) : ""));
      cell.append(row);
    }
    if (match.corrections && match.corrections.length) cell.classList.add("corrected");
    return cell;
  }
  // A player's own page (?player=NAME) for this event, keeping the page's broker, login and language.
  function playerHref(name) {
    const query = new URLSearchParams();
    for (const key of ["broker", "user", "password", "prefix", "lang"]) if (params.has(key)) query.set(key, params.get(key));
    query.set("player", name);
    if (shown.id !== null) query.set("event", String(shown.id));
    return `?${query.toString()}`;
  }

  // The QR code a phone opens the event with (vendor/qrcode.js): ?qr=URL, else this page's own address when it is
  // served over HTTP(S) (the venue broker's http_dir); none for a page opened from a file, which no phone can open.
  function qrAddress() {
    if (params.get("qr")) return params.get("qr");
    if (!/^https?:$/.test(location.protocol)) return null;
    return `${location.origin}${location.pathname}?event${ASKED !== null ? `=${ASKED}` : ""}`;
  }
  function qrFigure() {
    const url = qrAddress();
    if (!url || typeof qrcode === "undefined") return null;
    const code = qrcode(0, "M");
    code.addData(url);
    code.make();
    const figure = el("figure", "event-qr");
    figure.dataset.url = url;
    const image = el("img");
    image.src = code.createDataURL(6, 3);
    image.alt = url;
    figure.append(image, el("figcaption", "", _("Your next match on your phone")));
    return figure;
  }

  // Where a match is: its table once called or playing, said as the players need it.
  function where_(match) {
    if (!match.table || match.status === "done") return "";
    return format(match.status === "playing" ? _("playing at table {table}") : _("table {table}"),
      { table: match.table });
  }

  // ---- brackets ----------------------------------------------------------------------------------------
  // The rounds of one side as columns; a round of a bracket of 2^k has its slots whether or not each is a match
  // (a bye is no match and the director lists none), so that every match stands level with the two it follows.
  function bracket(matches, prefix, slotsOf, title) {
    const byRound = new Map();
    for (const match of matches) {
      const [label, n] = match.match.split("-");
      if (label[0] !== prefix[0] || !/^\d+$/.test(label.slice(1))) continue;
      if (!byRound.has(label)) byRound.set(label, new Map());
      byRound.get(label).set(Number(n), match);
    }
    if (!byRound.size) return null;
    const last = Math.max(...[...byRound.keys()].map((label) => Number(label.slice(1))));
    const section = el("section", "bracket");
    section.dataset.side = prefix;
    if (title) section.append(el("h2", "side-title", title));
    const columns = el("div", "rounds");
    for (let r = 1; r <= last; r++) {
      const label = `${prefix}${r}`;
      const column = el("div", "round");
      column.append(el("h3", "round-title", roundName(label, prefix !== "L" && r === last)));
      const slots = el("div", "slots");
      const here = byRound.get(label) || new Map();
      const count = Math.max(slotsOf(r, last), ...here.keys());
      for (let n = 1; n <= count; n++) {
        const slot = el("div", "slot");
        if (here.has(n)) slot.append(matchCell(here.get(n)));
        else slot.classList.add("bye");
        slots.append(slot);
      }
      column.append(slots);
      columns.append(column);
    }
    section.append(columns);
    return section;
  }
  const halving = (r, last) => 2 ** (last - r);
  // A losers' side of 2(k-1) rounds: rounds 2j-1 and 2j have 2^(k-1-j) matches each.
  const losersSlots = (r, last) => 2 ** Math.max(0, last / 2 + 1 - 1 - Math.ceil(r / 2));

  function finals(matches) {
    const grand = matches.filter((m) => m.side === "final");
    if (!grand.length) return null;
    const section = el("section", "bracket finals");
    section.dataset.side = "GF";
    section.append(el("h2", "side-title", _("Grand final")));
    const column = el("div", "rounds");
    for (const match of grand) {
      const round = el("div", "round");
      round.append(el("h3", "round-title", match.match === "GF-2" ? _("Reset final") : _("Grand final")));
      const slots = el("div", "slots");
      const slot = el("div", "slot");
      slot.append(matchCell(match));
      slots.append(slot);
      round.append(slots);
      column.append(round);
    }
    section.append(column);
    return section;
  }

  // ---- round robin: each group's standings (the director's order) and its matches ------------------------
  function groups(state) {
    const out = el("section", "groups");
    for (const [group, rows] of Object.entries(state.groups || {})) {
      const card = el("div", "group");
      card.dataset.group = group;
      card.append(el("h2", "side-title", format(_("Group {group}"), { group })));
      const table = el("table", "standings");
      const head = el("tr");
      for (const word of ["#", _("Player"), _("Won"), _("Lost"), _("Racks"), _("+/-")]) head.append(el("th", "", word));
      table.append(head);
      rows.forEach((row, i) => {
        const tr = el("tr", "standing");
        tr.dataset.player = row.player;
        tr.dataset.place = String(i + 1);
        const diff = row.difference > 0 ? `+${row.difference}` : String(row.difference);
        for (const value of [`${i + 1}.`, row.player, row.won, row.lost, `${row.racks_won}-${row.racks_lost}`, diff]) {
          tr.append(el("td", "", String(value)));
        }
        table.append(tr);
      });
      card.append(table);
      const list = el("div", "group-matches");
      for (const match of state.matches.filter((m) => m.side === "group" && m.match[0] === group)) {
        list.append(matchCell(match));
      }
      card.append(list);
      out.append(card);
    }
    return out;
  }

  // ---- the APA team night: the score sheet -------------------------------------------------------------
  function scoreSheet(state) {
    const teams = state.teams || ["", ""];
    const totals = state.totals || [0, 0];
    const sheet = el("section", "sheet");
    const top = el("div", "sheet-totals");
    teams.forEach((team, i) => {
      const box = el("div", `team team-${i}`);
      if (state.winner === team) box.classList.add("won");
      box.append(el("span", "team-name", team), el("span", "team-total", String(totals[i])));
      top.append(box);
    });
    sheet.append(top);
    const table = el("table", "apa");
    const head = el("tr");
    for (const word of ["", teams[0], _("Points"), _("Match points"), teams[1], _("Points"), _("Match points"),
      _("Running total")]) head.append(el("th", "", word));
    table.append(head);
    const running = [0, 0];
    for (const match of state.matches) {
      const tr = el("tr", `match status-${match.status}`);
      tr.dataset.match = match.match;
      tr.dataset.score = scoreText(match);
      tr.dataset.status = match.status;
      tr.dataset.table = match.table || "";
      const points = match.match_points;
      if (points) {
        running[0] += points[0];
        running[1] += points[1];
      }
      const cells = [el("td", "mid", match.match)];
      for (const i of [0, 1]) {
        const name = el("td", "mname", sideOf(match, i));
        if (match.skills) name.append(el("span", "skill", format(_("SL {n}"), { n: match.skills[i] })));
        if (match.winner && match.winner === match.players[i]) name.classList.add("won");
        cells.push(name, el("td", "mscore", match.score ? String(match.score[i]) : ""),
          el("td", "mpoints", points ? String(points[i]) : ""));
      }
      cells.push(el("td", "running", points ? `${running[0]}-${running[1]}` : where_(match)));
      tr.append(...cells);
      table.append(tr);
    }
    sheet.append(table);
    return sheet;
  }

  // ---- Up next: the called matches with their tables, then those waiting for a table, in order -----------
  function upNext(state) {
    const called = state.matches.filter((m) => (m.status === "called" || m.status === "playing") && m.table);
    const waiting = state.matches.filter((m) => m.status === "ready" || (m.status === "called" && !m.table));
    return { called, waiting };
  }
  function callItem(match) {
    const li = el("li", `call status-${match.status}`);
    li.dataset.match = match.match;
    li.dataset.table = match.table || "";
    li.dataset.status = match.status;
    li.append(el("span", "call-pair", pair(match)));
    li.append(el("span", "call-table", match.status === "playing"
      ? format(_("playing at table {table}"), { table: match.table }) : format(_("table {table}"), { table: match.table })));
    return li;
  }
  function waitItem(match, n) {
    const li = el("li", "wait");
    li.dataset.match = match.match;
    li.dataset.status = match.status;
    li.append(el("span", "wait-n", `${n}.`), el("span", "call-pair", pair(match)),
      el("span", "wait-round", [match.match, raceText(match)].filter(Boolean).join(" \u00b7 ")));
    return li;
  }
  function nextPanel(state) {
    const { called, waiting } = upNext(state);
    const aside = el("aside", "upnext");
    aside.append(el("h2", "side-title", _("Up next")));
    if (called.length) {
      const list = el("ul", "calls");
      called.forEach((m) => list.append(callItem(m)));
      aside.append(el("h3", "list-title", _("On the tables")), list);
    }
    if (waiting.length) {
      const list = el("ul", "waits");
      waiting.forEach((m, i) => list.append(waitItem(m, i + 1)));
      aside.append(el("h3", "list-title", _("Waiting for a table")), list);
    }
    if (!called.length && !waiting.length) aside.append(el("p", "none", _("No match is waiting")));
    const qr = qrFigure();
    if (qr) aside.append(qr);
    return aside;
  }

  // ---- the views ---------------------------------------------------------------------------------------
  function header(state) {
    const head = el("header", "event-head");
    head.append(el("h1", "event-name", state.name));
    head.append(el("span", "event-format", FORMATS[state.format] || state.format));
    const done = state.matches.filter((m) => m.status === "done").length;
    head.append(el("span", "event-count", format(ngettext("{done} of {n} match played", "{done} of {n} matches played",
      state.matches.length), { done, n: state.matches.length })));
    if (state.winner) head.append(el("span", "event-winner", format(_("Winner: {name}"), { name: state.winner })));
    if (!shown.link || directorAway()) {
      head.append(el("span", "event-link", shown.link ? _("the director is offline") : _("venue link down")));
    }
    return head;
  }

  function drawEvent(state) {
    const body = el("div", "event-body");
    const main = el("div", "event-main");
    const matches = state.matches;
    if (!state.drawn) main.append(el("p", "none", _("The players are not drawn yet")));
    if (state.format === "apa_team") main.append(scoreSheet(state));
    else if (state.format === "round_robin") {
      main.append(groups(state));
      const playoff = bracket(matches, "K", halving, _("Playoff"));
      if (playoff) main.append(playoff);
    } else {
      const winners = bracket(matches, "W", halving, state.format === "double" ? _("Winners' side") : null);
      if (winners) main.append(winners);
      if (state.format === "double") {
        const losers = bracket(matches, "L", losersSlots, _("Losers' side"));
        if (losers) main.append(losers);
        const grand = finals(matches);
        if (grand) main.append(grand);
      }
    }
    body.append(main, nextPanel(state));
    return body;
  }

  // ?next: one list of rows (titles and matches), cut into pages of what fits the screen.
  function drawNext(state) {
    const { called, waiting } = upNext(state);
    const rows = [];
    if (called.length) rows.push(el("h3", "list-title", _("On the tables")), ...called.map(callItem));
    if (waiting.length) {
      rows.push(el("h3", "list-title", _("Waiting for a table")), ...waiting.map((m, i) => waitItem(m, i + 1)));
    }
    const body = el("div", "next-body");
    const list = el("ul", "next-list");
    body.append(list);
    const qr = qrFigure();
    if (!rows.length) list.append(el("p", "none", _("No match is waiting")));
    root.replaceChildren(header(state), qr ? el("div", "next-row") : body);
    if (qr) root.lastChild.append(body, qr);
    // Measure each row at the screen's width, then keep the rows of the page shown.
    rows.forEach((row) => list.append(row));
    const room = body.clientHeight;
    const pages = [[]];
    let used = 0;
    for (const row of rows) {
      const tall = row.getBoundingClientRect().height + 8;
      if (used + tall > room && pages[pages.length - 1].length) {
        pages.push([]);
        used = 0;
      }
      pages[pages.length - 1].push(row);
      used += tall;
    }
    shown.page %= pages.length;
    list.replaceChildren(...pages[shown.page]);
    root.dataset.page = String(shown.page + 1);
    root.dataset.pages = String(pages.length);
    if (pages.length > 1) {
      body.append(el("p", "next-page", format(_("page {page} of {pages}"), { page: shown.page + 1, pages: pages.length })));
    }
  }

  function drawPlayer(state) {
    const name = PLAYER;
    const mine = state.matches.filter((m) => m.players.includes(name));
    const page = el("div", "player-body");
    page.append(el("h2", "player-name", name));
    root.dataset.player = name;
    const inEvent = mine.length || (state.order || []).includes(name);
    if (!inEvent) {
      page.append(el("p", "none", format(_("{name} does not play in this event"), { name })));
      root.dataset.next = "";
      return page;
    }
    const next = mine.find((m) => m.status !== "done");
    const card = el("section", "player-next");
    root.dataset.next = next ? next.match : "";
    root.dataset.table = next && next.table ? next.table : "";
    if (next) {
      const me = next.players.indexOf(name);
      const other = next.players[1 - me];
      card.dataset.match = next.match;
      card.append(el("h3", "list-title", _("Your next match")));
      card.append(el("p", "next-opponent", other ? format(_("against {name}"), { name: other })
        : _("your opponent is not known yet")));
      if (!other && next.from && next.from[1 - me]) card.append(el("p", "next-round", fromText(next.from[1 - me])));
      card.append(el("p", "next-round", [next.match, raceText(next)].filter(Boolean).join(" \u00b7 ")));
      let where;
      if (next.table) {
        where = format(next.status === "playing" ? _("playing at table {table}") : _("go to table {table}"),
          { table: next.table });
      } else {
        const queue = upNext(state).waiting.findIndex((m) => m.match === next.match);
        where = queue >= 0 ? format(_("waiting for a table ({n} in the queue)"), { n: queue + 1 })
          : _("waiting for your opponent");
      }
      card.append(el("p", `next-table${next.table ? " called" : ""}`, where));
    } else if (state.winner === name) {
      card.append(el("p", "next-table called", _("You won the event")));
    } else {
      card.append(el("p", "next-round", _("No more matches tonight")));
    }
    page.append(card);
    const done = mine.filter((m) => m.status === "done");
    if (done.length) {
      const list = el("ul", "player-results");
      for (const match of done) {
        const li = el("li", match.winner === name ? "won" : "lost");
        li.dataset.match = match.match;
        li.dataset.score = scoreText(match);
        const me = match.players.indexOf(name);
        const other = match.players[1 - me];
        li.append(el("span", "res-match", match.match),
          el("span", "res-text", format(match.winner === name ? _("won {a}-{b} against {name}")
            : _("lost {a}-{b} to {name}"), { a: match.score[me], b: match.score[1 - me], name: other })));
        list.append(li);
      }
      page.append(el("h3", "list-title", _("Your results")), list);
    }
    return page;
  }

  function chosen() {
    if (ASKED !== null) return ASKED;
    const ids = [...shown.events.keys()];
    return ids.length ? Math.max(...ids) : null;
  }

  function draw() {
    away = directorAway();
    shown.id = chosen();
    const state = shown.id === null ? undefined : shown.events.get(shown.id);
    root.dataset.event = shown.id === null ? "" : String(shown.id);
    shown.draws += 1;
    if (!state) {
      root.dataset.winner = "";
      const words = ASKED !== null ? format(_("Waiting for event {id} from the director\u2026"), { id: ASKED })
        : _("Waiting for the director's event\u2026");
      root.replaceChildren(el("p", "event-empty", shown.link ? words : _("Connecting to the venue broker\u2026")));
      document.title = _("Devetka: the event");
      return;
    }
    root.dataset.winner = state.winner || "";
    root.dataset.format = state.format;
    shown.format = state.format;
    document.title = `${state.name}: Devetka`;
    if (VIEW === "next") drawNext(state);
    else if (VIEW === "player") root.replaceChildren(header(state), drawPlayer(state));
    else {
      root.replaceChildren(header(state), drawEvent(state));
      fit();
      stampScores();
    }
  }

  /** Draw once in the next frame, from what the page knows then, however many messages came meanwhile (as board.js
   * batches its tiles). A draw of a whole bracket (the DOM built again, its layout read by fit) takes tens of ms on
   * a loaded box; drawn for every message, a burst (one result is several commits: the score, the next call, ...)
   * kept the main thread busy while the director's next messages waited behind it, a backlog of seconds
   * (docs/venue.md). A hidden page gets no frames: it draws within 100 ms all the same. */
  let frame = null;
  let fallback = null;
  function redraw() {
    if (frame === null) frame = requestAnimationFrame(flush);
    if (fallback === null) fallback = setTimeout(flush, 100);
  }
  function flush() {
    cancelAnimationFrame(frame);
    clearTimeout(fallback);
    frame = null;
    fallback = null;
    draw();
  }

  // A TV shows the whole bracket: on a wide screen it is scaled down to fit (never up); a phone scrolls.
  function fit() {
    const main = root.querySelector(".event-main");
    if (!main) return;
    main.style.transform = "";
    if (window.innerWidth < 900) return;
    const room = main.parentElement.getBoundingClientRect();
    const scale = Math.min(1, main.clientWidth / main.scrollWidth, (window.innerHeight - room.top) / main.scrollHeight);
    if (scale < 1) {
      main.style.transformOrigin = "top left";
      main.style.transform = `scale(${scale})`;
    }
  }
  window.addEventListener("resize", redraw);

  setInterval(() => {
    if (VIEW !== "next") return;
    if (Number(root.dataset.pages || 1) > 1) {
      shown.page += 1;
      redraw();
    }
  }, PAGE_S * 1000);

  // ---- the link: the director's retained topics ----------------------------------------------------------
  /** Offline by its last will, or silent for three heartbeats: a will dies with the broker node that held it. */
  function directorAway() {
    if (shown.director === "offline") return true;
    return shown.heard !== null && Date.now() - shown.heard.at > 3 * shown.heard.every * 1000;
  }
  setInterval(() => {
    if (directorAway() !== away) redraw();
  }, 1000);

  function onMessage(topic, payload) {
    const parts = topic.split("/");
    if (parts[1] !== "director") return;
    if (parts[2] === "availability") {
      shown.director = payload.toString();
    } else if (parts[2] === "heartbeat") {
      let every = NaN;
      try {
        every = Number(JSON.parse(payload.toString()).every_s);
      } catch (error) {
        console.warn(`event: ${topic} is not JSON`, error);
      }
      if (!(every > 0)) return;
      const wasAway = directorAway();
      shown.heard = { at: Date.now(), every };
      if (!wasAway) return;
    } else if (parts[2] === "event" && /^\d+$/.test(parts[3] || "")) {
      const id = Number(parts[3]);
      if (!payload.length) shown.events.delete(id);
      else {
        try {
          const state = JSON.parse(payload.toString());
          stampArrival(id, state);
          shown.events.set(id, state);
        } catch (error) {
          console.warn(`event: ${topic} is not JSON`, error);
          return;
        }
      }
    } else return;
    redraw();
  }

  function connect() {
    const given = params.get("broker");
    const urls = given ? given.split(",").map((url) => url.trim()).filter(Boolean)
      : (location.host ? [`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`] : []);
    if (!urls.length || typeof mqtt === "undefined") {
      root.replaceChildren(el("p", "event-empty",
        _("No broker: open this page from the venue broker, or add ?broker=ws://HOST:PORT")));
      return;
    }
    let current = 0;
    const options = {
      protocolVersion: 4, clean: true, keepalive: 10, reconnectPeriod: 1000, connectTimeout: 10000,
      clientId: `devetka-event-${Math.random().toString(16).slice(2, 10)}`, transformWsUrl: () => urls[current],
    };
    if (params.get("user")) {
      options.username = params.get("user");
      options.password = params.get("password") || "";
    }
    const client = mqtt.connect(urls[0], options);
    client.on("connect", () => {
      client.subscribe({ [`${PREFIX}/director/event/+`]: { qos: QOS }, [`${PREFIX}/director/availability`]: { qos: QOS },
        [`${PREFIX}/director/heartbeat`]: { qos: 0 } },
        (error) => {
          if (error) console.warn("event: subscription refused", error.message);
          shown.link = !error;
          redraw();
        });
    });
    client.on("message", onMessage);
    client.on("close", () => {
      current = (current + 1) % urls.length;
      if (shown.link) {
        shown.link = false;
        redraw();
      }
    });
    client.on("error", (error) => console.warn("event: mqtt", error && error.message));
  }

  draw();
  connect();
})();
