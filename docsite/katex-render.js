// Typesets a batch of TeX expressions with KaTeX: reads [[tex, displayMode, keep], ...] as JSON on
// stdin, writes [{html} | {} | {error}, ...] as JSON on stdout (no html where keep is false: a formula
// the page typesets when it is opened, checked here all the same). Run by docsite/hooks.py at build time.
"use strict";
const katex = require(process.argv[2]);
const katexOptions = require("./katex-options.js");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const results = JSON.parse(input).map(([tex, displayMode, keep]) => {
    try {
      const html = katex.renderToString(tex, katexOptions(displayMode));
      return keep ? { html } : {};
    } catch (error) {
      return { error: String(error.message || error) };
    }
  });
  process.stdout.write(JSON.stringify(results));
});
