// Typesets a batch of TeX expressions with KaTeX: reads [[tex, displayMode], ...] as JSON on
// stdin, writes [{html} | {error}, ...] as JSON on stdout. Run by docsite/hooks.py at build time.
"use strict";
const katex = require(process.argv[2]);
// Strict, except that a Unicode character inside \text{} (e.g. "→") is typeset as it is.
const strict = (code) => (code === "unknownSymbol" ? "ignore" : "error");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const results = JSON.parse(input).map(([tex, displayMode]) => {
    try {
      return { html: katex.renderToString(tex, { displayMode, throwOnError: true, strict, output: "htmlAndMathml" }) };
    } catch (error) {
      return { error: String(error.message || error) };
    }
  });
  process.stdout.write(JSON.stringify(results));
});
