// The formulas of a closed <details> (every worked example after a page's first) stay TeX in the page
// and are typeset when it is first opened, with the KaTeX and the options the build uses
// (docsite/katex-options.js, inlined before this): a page carries its collapsed worked examples as
// text, not as typeset HTML several times their size. KaTeX is loaded (a classic script, so a page
// opened from disk works too) on the first opening. docsite/hooks.py inlines this file.
(() => {
  const source = document.currentScript.dataset.katex;
  let loading = null;
  const load = () => loading ??= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = source;
    script.onload = () => resolve(window.katex);
    script.onerror = () => reject(new Error(`could not load ${source}`));
    document.head.append(script);
  });
  const typeset = async (details) => {
    const formulas = [...details.querySelectorAll(".arithmatex")];
    if (!details.open || !formulas.length) return;
    const katex = await load();
    for (const formula of formulas) {
      const tex = formula.textContent.trim();
      formula.outerHTML = katex.renderToString(tex.slice(2, -2).trim(), katexOptions(tex.startsWith("\\[")));
    }
    details.dataset.typeset = "yes";
  };
  for (const details of document.querySelectorAll("details")) {
    details.addEventListener("toggle", () => typeset(details));
    typeset(details);  // one opened before this ran (a link to its anchor)
  }
})();
