// i18n.js — the app's words in the reader's language. Every word the app
// shows goes through t("English"), whose translations come from the same
// catalogues as the other views' (po/LANG.po): the build turns the entries
// the app uses into /i18n/LANG.json (web/CMakeLists.txt). The language is
// the one chosen in the page's selector (kept in localStorage), else the
// browser's (navigator.languages: fil or tl is Filipino, id Indonesian),
// else English.
"use strict";

const I18N_LANGS = ["en", "fil", "id"];
let i18nWords = {};

// s in the chosen language, with each %s replaced by the next of args
// (as text: the caller puts the result in with textContent).
function t(s, ...args) {
  const w = Object.prototype.hasOwnProperty.call(i18nWords, s) && i18nWords[s] ? i18nWords[s] : s;
  let i = 0;
  return w.replace(/%s/g, () => (i < args.length ? String(args[i++]) : "%s"));
}

function i18nChoose() {
  let saved = null;
  try { saved = localStorage.getItem("sungka-lang"); } catch (e) { saved = null; }
  if (I18N_LANGS.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const base = String(l).toLowerCase().split("-")[0];
    if (base === "fil" || base === "tl") return "fil";
    if (base === "id" || base === "in") return "id";
    if (base === "en") return "en";
  }
  return "en";
}

// Load the chosen language's words (a promise of its code); English needs none.
async function i18nLoad() {
  const lang = i18nChoose();
  document.documentElement.lang = lang;
  i18nWords = {};
  if (lang !== "en") {
    try {
      const r = await fetch(`/i18n/${lang}.json`);
      if (r.ok) i18nWords = await r.json();
    } catch (e) {
      i18nWords = {};
    }
  }
  return lang;
}

// The reader chose lang in the selector: kept, and the page drawn again in it.
function i18nChoosePersist(lang) {
  try { localStorage.setItem("sungka-lang", lang); } catch (e) { /* private mode: this page only */ }
  location.reload();
}
