// The board's words, once for every page (board.js, event.js, overlay.js, operator.js, result.js): the page's
// language (?lang=, else the browser's, else English) and its catalog (i18n/LANG.js, made by
// python -m scoreboard.i18n.build), with gettext's lookups and {name} formatting.
(function () {
  "use strict";

  const LANGUAGES = ["en", "hr"];

  window.devetkaWords = function devetkaWords(params) {
    const tags = [params.get("lang"), ...(params.get("lang") ? [] : navigator.languages || [])];
    const LANG = tags.map((tag) => String(tag || "").toLowerCase().split(/[-_]/)[0])
      .find((code) => LANGUAGES.includes(code)) || "en";
    const catalog = (window.devetkaCatalogs || {})[LANG] || { messages: {}, plural: "n != 1", rules: {} };
    // The catalog's own plural rule (gettext's C expression, valid JavaScript): the index of a count's form.
    const pluralIndex = new Function("n", `return Number(${catalog.plural});`);
    const _ = (text) => (typeof catalog.messages[text] === "string" && catalog.messages[text]) || text;
    function ngettext(singular, plural, n) {
      const forms = catalog.messages[singular];
      if (Array.isArray(forms) && forms.length) return forms[Math.min(pluralIndex(n), forms.length - 1)] || singular;
      return n === 1 ? singular : plural;
    }
    const format = (template, args) => template.replace(/\{(\w+)\}/g, (all, name) => (name in args ? args[name] : all));
    return { LANG, catalog, pluralIndex, _, ngettext, format };
  };
})();
