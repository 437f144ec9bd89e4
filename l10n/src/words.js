<script>"use strict";
// Sentences made of several messages, as l10n/src/words.rs says them in Rust: results,
// margins and komi in the language's unit, ranks, an alert's article and sentence.
/** A margin in points (17.5) as `prefix` says it (`result-margin`: 8¾子, 17目半, 17.5 points); null unless a whole number of half points from 0 up. */
function marginWords(points, prefix) {
  const halves = Number(points) * 2;
  if (!isFinite(halves) || halves < 0 || halves > 1e9 || halves % 1 !== 0) return null;
  const whole = Math.floor(halves / 2), part = halves % 4;
  const s = (halves >= 4 || part === 0 ? String(Math.floor(halves / 4)) : "") + ["", "\u00bc", "\u00bd", "\u00be"][part];
  const form = halves === 1 ? "-half-only" : halves % 2 === 1 ? "-half" : halves === 2 ? "-one" : "";
  return t(prefix + form, {n: whole, s});
}
/** A komi in points in words (3¾子, 6目半, 7.5 points). */
function komiWords(komi) {
  const w = marginWords(komi, "result-margin");
  return w === null ? String(komi) : w;
}
/** A side, `B` or `W`, in words. */
function sideWords(c) { return t(c === "B" ? "side-black" : "side-white"); }
/** A result (B+R, W+T, W+F, B+17.5, 0, Void) in words, the result itself in brackets. */
function resultWords(r) {
  if (r === "0" || r === "Draw" || r === "Jigo") return t("result-draw");
  if (r === "Void") return t("result-void");
  if (r === "?") return t("result-unknown");
  const m = /^([BW])\+(.*)$/.exec(r || "");
  if (!m) return r == null ? "" : String(r);
  const w = sideWords(m[1]);
  if (m[2] === "R" || m[2] === "Resign") return t("result-resign", {w, r});
  if (m[2] === "T" || m[2] === "Time") return t("result-time", {w, r});
  if (m[2] === "F" || m[2] === "Forfeit") return t("result-forfeit", {w, r});
  const margin = /^[0-9.]+$/.test(m[2]) && Number(m[2]) > 0 ? marginWords(Number(m[2]), "result-margin") : null;
  return margin === null ? t("result-win", {w, r}) : t("result-points", {w, margin, r});
}
/** A rank (9p, 3D, 12k) as the language writes it (九段, 3段, 12级); as written otherwise. */
function rankWords(rank) {
  const m = /^\s*(\d{1,2})\s*([dkp])\s*$/i.exec(rank || "");
  if (!m || Number(m[1]) === 0) return String(rank || "").trim();
  const n = Number(m[1]), kind = m[2].toLowerCase();
  const numerals = String(t("rank-numerals")).split(/\s+/).filter(Boolean);
  const shown = kind === "p" && n <= 9 && numerals[n - 1] ? numerals[n - 1] : String(n);
  return t({d: "rank-dan", k: "rank-kyu", p: "rank-pro"}[kind], {n: shown});
}
/** "Art. 18.2" / "第18条第2款": an article, with its clause where it has one. */
function articleWords(a) {
  const m = /^(\d+)\.(\d+)$/.exec(String(a));
  return m ? t("alert-article-clause", {a: m[1], c: m[2]}) : t("alert-article", {a});
}
/** The sentence of an alert: its article's own where there is one (a time-out under sudden death, Art. 12.4), else its code's; the event's English message for a code the page does not know. */
function alertCheck(a) {
  const own = "alert-" + a.code + "-check-" + String(a.article || "").replace(/\./g, "-");
  if (a.article && L10N[own] !== undefined) return t(own);
  return L10N["alert-" + a.code + "-check"] !== undefined ? t("alert-" + a.code + "-check") : (a.message || "");
}
</script>
