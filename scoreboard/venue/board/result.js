/* One match's result on a phone or a TV (issue 33): ?result=BASE64URL is the match's compact result (the object
 * the table's daemon serves as `compact` for its `result` command: docs/league.md), carried in the address itself,
 * so this page needs no broker, login or server state: the touchscreen's QR code opens it (the daemon serves the
 * address as `board`). Drawn as a card: the players and the score (racks, or APA points of the targets), the
 * winner, the table and when, and the totals; in ?lang (the board's i18n). A result that cannot be read shows
 * what was wrong with it, never a blank page. The card carries data-winner, data-score ("3-1") and data-match
 * for kiosks and tests. The page keeps no rule: every figure is the table's.
 */
(() => {
  "use strict";

  const params = new URLSearchParams(location.search);
  if (!params.has("result")) return;
  window.devetkaEventView = "result";

  const { LANG, _, format } = window.devetkaWords(params);

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // The result in the address, or the words of what is wrong with it (thrown as a string).
  function decoded(text) {
    if (!text) throw _("This address holds no result: result= is empty.");
    if (!/^[A-Za-z0-9_-]+={0,2}$/.test(text)) throw _("The result in this address is not base64url text.");
    let bytes;
    try {
      const plain = atob(text.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "")
        .padEnd(Math.ceil(text.replace(/=+$/, "").length / 4) * 4, "="));
      bytes = Uint8Array.from(plain, (c) => c.charCodeAt(0));
    } catch (error) {
      throw _("The result in this address is not base64url text.");
    }
    let outcome;
    try {
      outcome = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    } catch (error) {
      throw _("The result in this address is not a JSON result (cut short when it was copied?).");
    }
    const pair = (value, kind) => Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === kind);
    const lacks = (field) => format(_("The result in this address has no {field}."), { field });
    if (!outcome || typeof outcome !== "object" || Array.isArray(outcome)) throw lacks("players");
    if (!pair(outcome.players, "string")) throw lacks("players");
    if (!pair(outcome.score, "number")) throw lacks("score");
    if (!(outcome.winner === null || outcome.winner === 0 || outcome.winner === 1)) throw lacks("winner");
    if (outcome.points != null && !(pair(outcome.points, "number") && pair(outcome.targets, "number"))) {
      throw lacks("targets");
    }
    return outcome;
  }

  function when(started) {
    const date = new Date(started || "");
    if (Number.isNaN(date.getTime())) return null;
    const two = (n) => String(n).padStart(2, "0");
    return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} `
      + `${two(date.getHours())}:${two(date.getMinutes())}`;
  }

  function card(outcome) {
    const root = el("article", "result-card");
    const apa = outcome.points != null;
    root.dataset.match = outcome.match ?? "";
    root.dataset.score = (apa ? outcome.points : outcome.score).join("-");
    root.dataset.winner = outcome.winner === null ? "" : outcome.players[outcome.winner];

    const head = el("header", "result-head");
    head.append(el("h1", "result-title", outcome.match != null
      ? format(_("Match {match}"), { match: outcome.match }) : _("A match's result")));
    const where = [outcome.table ? format(_("Table {table}"), { table: outcome.table }) : null, when(outcome.started)]
      .filter(Boolean).join(" · ");
    if (where) head.append(el("p", "result-where", where));
    root.append(head);

    const rows = el("div", "result-players");
    outcome.players.forEach((name, side) => {
      const row = el("div", `result-player${outcome.winner === side ? " won" : ""}`);
      row.append(el("span", "result-name", name));
      const score = el("span", "result-score", apa ? outcome.points[side] : outcome.score[side]);
      row.append(score);
      if (apa) row.append(el("span", "result-target", `/ ${outcome.targets[side]}`));
      else if (Array.isArray(outcome.race)) row.append(el("span", "result-target", `/ ${outcome.race[side]}`));
      rows.append(row);
    });
    root.append(rows);
    root.append(el("p", `result-outcome${outcome.winner === null ? " open" : ""}`, outcome.winner === null
      ? _("Not over yet")
      : format(_("{name} won"), { name: outcome.players[outcome.winner] })));
    if (apa) root.append(el("p", "result-scoring", format(_("APA points of the targets; racks {a}–{b}"),
      { a: outcome.score[0], b: outcome.score[1] })));

    const totals = [];
    const racks = typeof outcome.racks === "number" ? outcome.racks
      : Array.isArray(outcome.racks) ? outcome.racks.length : null;
    const pairOf = (key) => (Array.isArray(outcome[key]) && outcome[key].length === 2 ? outcome[key] : null);
    for (const [key, label] of [["break_and_runs", _("Break-and-runs")], ["nines_on_break", _("Nines on the break")],
      ["fouls", _("Fouls")], ["safeties", _("Safeties")]]) {
      if (pairOf(key)) totals.push([label, pairOf(key)]);
    }
    if (racks !== null || totals.length) {
      const table = el("table", "result-totals");
      const top = el("tr");
      top.append(el("th", null, ""), el("th", null, outcome.players[0]), el("th", null, outcome.players[1]));
      table.append(top);
      for (const [label, [a, b]] of totals) {
        const tr = el("tr");
        tr.append(el("th", null, label), el("td", null, a), el("td", null, b));
        table.append(tr);
      }
      root.append(table);
      const foot = [];
      if (racks !== null) foot.push(format(_("Racks played: {racks}"), { racks }));
      if (typeof outcome.duration_s === "number" && outcome.duration_s >= 60) {
        foot.push(format(_("{minutes} min"), { minutes: Math.round(outcome.duration_s / 60) }));
      }
      if (foot.length) root.append(el("p", "result-foot", foot.join(" · ")));
    }
    return root;
  }

  function draw() {
    document.documentElement.lang = LANG;
    document.title = _("A match's result");
    document.body.classList.add("result-page");
    for (const id of ["board", "empty", "event-link"]) {
      const node = document.getElementById(id);
      if (node) node.style.display = "none";
    }
    const view = el("main", "result-view");
    view.id = "result";
    try {
      view.append(card(decoded(params.get("result"))));
    } catch (problem) {
      const words = typeof problem === "string" ? problem : _("The result in this address cannot be read.");
      view.dataset.error = words;
      const box = el("div", "result-error");
      box.append(el("h1", null, _("No result to show")), el("p", null, words),
        el("p", "result-hint", _("Scan the table's code again, or ask the table: devetka export --result.")));
      view.append(box);
    }
    document.body.append(view);
  }
  draw();
})();
