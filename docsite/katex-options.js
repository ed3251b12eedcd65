// KaTeX's options, one copy for both typesetters: the build's (docsite/katex-render.js, in Node.js) and
// the page's (docsite/katex-later.js, for formulas of a closed worked example, typeset when it is opened).
// Strict, except that a Unicode character inside \text{} (e.g. "→") is typeset as it is.
// eslint-disable-next-line no-unused-vars
const katexOptions = (displayMode) => ({
  displayMode, throwOnError: true, output: "htmlAndMathml",
  strict: (code) => (code === "unknownSymbol" ? "ignore" : "error"),
});
if (typeof module !== "undefined") module.exports = katexOptions;
