// The calculator of a scenario page: form wiring only (docsite/calculator.py inlines it in each
// scenario page). Every formula is the page's generated evaluator (generated/js/<module>.mjs,
// imported below); every domain, catalog value and message comes from the page's data, which
// docsite/calculator.py reads from the generated runtime. Text from the reader or the URL is
// data: it goes into the page through textContent and value only.

const section = document.querySelector("section.calculator");
const data = JSON.parse(document.getElementById("calculator-data").textContent);
// The generated modules travel in the page's data (a page opened from disk may load no module
// file); each is imported from a Blob URL, its imports (the helpers, the evaluators of the
// scenarios it contains, which come first in data.code.contained) pointed at theirs.
const urls = {mathops: URL.createObjectURL(new Blob([data.code.mathops], {type: "text/javascript"}))};
const moduleUrl = (text) => URL.createObjectURL(new Blob(
  [text.replace(/from "\.\/(\w+)\.mjs"/g, (whole, name) => `from ${JSON.stringify(urls[name])}`)],
  {type: "text/javascript"}));
for (const [name, text] of data.code.contained) urls[name] = moduleUrl(text);
const evaluator = await import(moduleUrl(data.code.evaluator));
const helpers = await import(urls.mathops);
const title = data.scenario;
const LIMIT = Number.MAX_SAFE_INTEGER;
const TINY = 2.2250738585072014e-308;  // the smallest normal double (sys.float_info.min)
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,4})?$/;

class InputError extends Error {}

// -- Python's way of showing values in its messages (the evaluators' own helper: one copy) -------
const pyFloat = (value) => helpers.py_str(value, false);
const pyNumber = (n) => (n.float ? pyFloat(n.value) : String(n.value));
const pyString = (text) => (text.includes("'") && !text.includes('"') ? `"${text}"` : `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`);
const shown = (text) => (text.length <= 60 ? text : `${text.slice(0, 57)}...`);

// -- reading one input, as symbolic/runtime/validation.py checks it ----------------------------
function outside(spec, value) {
  if (spec.minimum !== null && (value < spec.minimum || (spec.strict && value === spec.minimum))) return true;
  return spec.maximum !== null && (value > spec.maximum || (spec.strict_maximum && value === spec.maximum));
}

function readNumber(where, spec, raw) {
  const text = raw.trim();
  const expected = `expected ${spec.scalar_domain}`;
  if (!NUMBER.test(text)) throw new InputError(`${where} got str ${shown(pyString(raw))}; ${expected}`);
  const whole = /^[+-]?\d+$/.test(text);
  let number = {value: Number(text), float: !whole};
  if (!Number.isFinite(number.value)) throw new InputError(`${where} got ${pyNumber(number)}; ${expected}, finite`);
  const digits = /[1-9]/.test(text.split(/[eE]/)[0]);  // a nonzero number, whatever it rounded to
  if (number.float && digits && Math.abs(number.value) < TINY) {  // fewer significant digits, or underflow to 0
    throw new InputError(`${where} got ${number.value === 0 ? text : pyNumber(number)}, below the normal range of `
      + `double precision (2.23e-308), where a float loses significant digits; ${expected}`);
  }
  number.value += 0;  // -0 would carry its sign into outputs ("-0 B"): plain 0, as in Python
  if (whole && Math.abs(number.value) > LIMIT) {
    throw new InputError(`${where} got ${text}, an integer beyond 2^53 - 1, which this page's JavaScript does not `
      + "hold exactly; the Python API takes it");
  }
  if (spec.integer) {
    if (!Number.isInteger(number.value)) {
      throw new InputError(`${where} got ${pyNumber(number)}, which is not a whole number; ${expected}`);
    }
    number = {value: number.value, float: false};
  }
  if (outside(spec, number.value)) throw new InputError(`${where} got ${pyNumber(number)}; ${expected}`);
  return number;
}

function readList(where, spec, text) {
  const items = text.trim().replace(/^[[(]|[\])]$/g, "").split(",").map((item) => item.trim()).filter((i) => i);
  if (items.length < spec.min_length) {
    throw new InputError(`${where} has ${items.length} entries [${items.join(", ")}]; expected ${spec.domain}`);
  }
  const numbers = items.map((item, i) => readNumber(`${where} entry [${i}]`, spec, item));
  if (!spec.unique) return numbers;
  const seen = new Set();
  return numbers.filter((n) => !seen.has(n.value) && seen.add(n.value));
}

function readKeyed(where, spec, text) {
  const entries = new Map();
  const body = text.trim().replace(/^\{|\}$/g, "");
  body.split(",").filter((item) => item.trim()).forEach((item, i) => {
    const colon = item.indexOf(":");
    const key = item.slice(0, colon).trim().replace(/^['"]|['"]$/g, "");
    if (colon < 0 || !key) throw new InputError(`${where} entry [${i}]: expected name: value, got ${pyString(item.trim())}`);
    if (entries.has(key)) throw new InputError(`${where}: the name ${pyString(key)} is given twice`);
    entries.set(key, readNumber(`${where} entry [${pyString(key)}]`, spec, item.slice(colon + 1)));
  });
  if (entries.size < spec.min_length) throw new InputError(`${where} has ${entries.size} entries; expected ${spec.domain}`);
  return entries;
}

// -- the form's values -> the evaluator's arguments, in the class's order of checks --------------
const PHASES = ["number", "list", "keyed", "choice", "precision", "node", "dataset", "workload", "scenario", "argument"];

/** values: {input: text} (selects give an option's key; "" means not given). Returns
 * {args, floats, given} or throws InputError with the message the Python class raises. */
function argumentsOf(values) {
  const args = {};
  const floats = new Set();
  const given = {};
  const missing = data.order.filter((name) => {
    const input = data.inputs[name];
    return input.default === "required" && ["number", "list", "keyed", "precision"].includes(input.kind)
      && !(values[name] ?? "").trim() && !(input.min_length === 0);  // blank: an empty list where one may be
  }).map((name) => `'${name}' (${data.inputs[name].domain ?? "a precision key such as 'fp32'"})`);
  if (missing.length) {
    const word = missing.length === 1 ? "a required input was" : `${missing.length} required inputs were`;
    throw new InputError(`${title}: ${word} not given: ${missing.join(", ")}`);
  }
  const set = (name, number) => {
    args[name] = number === null ? null : number.value;
    if (number?.float) floats.add(name);
  };
  const ordered = PHASES.flatMap((kind) => data.order.filter((name) => data.inputs[name].kind === kind));
  for (const name of ordered) {
    const input = data.inputs[name];
    const text = (values[name] ?? "").trim();
    const where = `${title}: input '${name}'`;
    if (["number", "list", "keyed"].includes(input.kind) && !text
      && !(input.min_length === 0 && input.default === "required")) {  // left out: its default, or None
      const fallback = input.default === null ? "" : input.default;
      if (!fallback) { args[name] = null; given[name] = null; continue; }
      values = {...values, [name]: fallback};
      return argumentsOf(values);
    }
    if (input.kind === "number") {
      set(name, readNumber(where, input, text));
      given[name] = args[name];
    } else if (input.kind === "list") {
      const numbers = readList(where, input, text);
      args[name] = numbers.map((n) => n.value);
      given[name] = args[name];
    } else if (input.kind === "keyed") {
      const entries = readKeyed(where, input, text);
      given[name] = entries;
      let order = [...entries.keys()];
      if (input.aligned_to) {
        order = [...given[input.aligned_to].keys()];
        const absent = order.filter((key) => !entries.has(key));
        if (absent.length) {
          throw new InputError(`${title}: input '${name}' has no entry for ${pyString(absent[0])}; it must have an `
            + `entry for every key of '${input.aligned_to}' (${order.map(pyString).join(", ")})`);
        }
        const extra = [...entries.keys()].filter((key) => !order.includes(key));
        if (extra.length) {  // kept and never read, as the class refuses it
          throw new InputError(`${title}: input '${name}' has an entry for ${pyString(extra[0])}, which no output `
            + `reads: its keys must be those of '${input.aligned_to}' (${order.map(pyString).join(", ")})`);
        }
      }
      args[name] = order.map((key) => entries.get(key).value);
    } else if (input.kind === "choice") {
      const key = input.case_insensitive ? text.toLowerCase() : text;
      if (!(key in input.options)) throw new InputError(`${where} is ${pyString(text)}; expected ${input.domain}`);
      args[input.argument] = input.options[key];
      given[name] = text;
    } else if (input.kind === "precision") {
      given[name] = text;
    } else if (input.kind === "argument") {  // a method's argument: blank leaves its methods out
      given[name] = text;
      const where = `${title}.${input.methods[0]}: argument '${input.keyword}'`;
      if (!text) {
        args[name] = null;
      } else if (input.key_of) {  // a key of a keyed input: the evaluator reads its position
        const keys = keysOf(input.key_of, given);
        if (!keys.includes(text)) {
          throw new InputError(`${where} is ${pyString(text)}, which is not a key of '${input.key_of}' `
            + `(${keys.map(pyString).join(", ")})`);
        }
        args[name] = keys.indexOf(text);
      } else {
        set(name, readNumber(where, input, text));
      }
    } else if (input.kind === "node") {
      resolveNode(name, input, text, given, args);
    } else if (input.kind === "dataset") {
      const option = pick(name, input, text);
      if (input.argument) args[input.argument] = option ? option.examples : null;
    } else {  // a workload record or a contained scenario: the runtime resolved its options
      const option = pick(name, input, text);
      if (option === null) {
        if (input.kind === "workload") throw new InputError(`${where} got None; expected a ${input.types.join(" or ")} such as a Models entry`);
        for (const argument of input.arguments) args[argument] = null;
      } else {
        // a contained instance sharing our workload (ScenarioInput(same=)) is bound to the one chosen here, as
        // variant() and --set rebind it
        const shared = (input.same ?? []).map((other) => (values[other] ?? "").trim()).join("|");
        const chosen = input.same?.length && option.bound && shared !== option.own ? option.bound[shared] : option;
        if (chosen === undefined) throw new InputError(`${title}: input '${name}' cannot be rebound to ${shared}`);
        if (chosen.error) throw new InputError(input.kind === "scenario" ? `${title}: ${chosen.error}` : chosen.error);
        Object.assign(args, chosen.args);
        chosen.floats.forEach((f) => floats.add(f));
      }
    }
  }
  return {args, floats, given};
}

function pick(name, input, text) {
  if (!text) {
    if (input.optional || input.kind === "dataset") return null;
    throw new InputError(`${title}: required input '${name}' was not given`);
  }
  if (!(text in input.options)) {
    throw new InputError(`${title}: input '${name}' got ${pyString(text)}; expected one of the entries this page lists`);
  }
  return input.options[text];
}

function resolveNode(name, input, text, given, args) {
  const option = pick(name, input, text);
  if (option === null) {
    for (const [argument] of Object.values(data.inputs[name].options)[0].fields) args[argument] = null;
    return;
  }
  const stated = given[input.precision] ?? null;
  const precision = stated === null ? null : stated.replace(/\{(\w+)\}/g, (_, name) => String(given[name] ?? ""));
  const rate = precision === null ? undefined : rateOf(option.peaks, precision);
  for (const [argument, value, error] of option.fields) {
    if (error) throw new InputError(error);
    if (value !== "peak") {
      args[argument] = value;
    } else if (rate !== undefined) {
      args[argument] = rate;
    } else {
      throw new InputError(option.unlisted.replace(`'PRECISION_NOT_LISTED'`, pyString(String(precision))));
    }
  }
}

/** The rate a precision reads, as HardwareNode.precision_key does ("{input}" in it already replaced
 * by that input's key): "a|b|peak" is the first of these names the node answers to, in any case. */
function rateOf(peaks, precision) {
  for (const name of precision.split("|").map((n) => n.trim())) {
    for (const key of [name, name.toLowerCase()]) {
      if (Object.prototype.hasOwnProperty.call(peaks, key)) return peaks[key];
    }
  }
  return undefined;
}

function checkRequirements(args, floats) {
  const repr = (name) => (args[name] === null ? "None" : pyNumber({value: args[name], float: floats.has(name)}));
  for (const requirement of evaluator.requirements) {
    if (requirement.unless && args[requirement.unless] != null) continue;
    if (requirement.when && args[requirement.when] == null) continue;  // checked only beside that input
    const absent = requirement.names.filter((n) => args[n] == null && !(requirement.tested || []).includes(n));
    if (absent.length) throw new InputError(`${title}: ${requirement.message} (${absent.join(", ")} not given)`);
    if (!requirement.check(...requirement.names.map((n) => args[n]))) {
      const got = requirement.names.map((n) => `${n}=${repr(n)}`).join(", ");
      throw new InputError(`${title}: ${requirement.message}; got ${got}`
        + (requirement.unless ? ` and no '${requirement.unless}'` : ""));
    }
  }
}

function checkNeeds(values) {
  // an optional input no output reads without another (the class's _needs): refused as the class refuses it
  const blank = (name) => !(values[name] ?? "").trim();
  for (const [name, needed] of Object.entries(data.needs)) {
    const absent = needed.filter(blank);
    if (!blank(name) && absent.length) {
      const listed = absent.map((n) => `'${n}'`).join(" and ");
      throw new InputError(`${title}: input '${name}' must be given with ${listed}, and no output reads it without `
        + `${absent.length > 1 ? "them" : "it"}; give ${listed} too, or leave '${name}' out`);
    }
  }
}

function failing(result) {
  // the Fits of these inputs that do not hold: name -> message (their guarded outputs do not exist)
  return Object.fromEntries(data.fits.filter((fits) => result[fits.name] != null && Number(result[fits.name]) === 0)
    .map((f) => [f.name, f.message]));
}

function checkFinite(tree, path) {
  for (const [key, value] of Object.entries(tree)) {
    if (value !== null && typeof value === "object") checkFinite(value, `${path}${key}.`);
    else if (typeof value === "number" && !Number.isFinite(value)) {
      throw new InputError(`${title}: output '${path}${key}' is ${pyFloat(value)} for these inputs (float overflow); `
        + "the inputs are too large for double precision");
    }
  }
}

/** The whole path from form values to outputs; the page and the tests both call it. */
export function run(values) {
  try {
    const {args, floats, given} = argumentsOf(values);
    checkRequirements(args, floats);
    checkNeeds(values);
    const result = evaluator.evaluate(args, floats);
    checkFinite(result, "");
    return {args, given, result};
  } catch (error) {
    if (error instanceof InputError || error instanceof RangeError) return {error: error.message};
    throw error;
  }
}

// -- the page: a form built with textContent and value only ---------------------------------
const form = section.querySelector("form");
const start = section.querySelector("select.calc-start");
const message = section.querySelector(".calc-error");
const table = section.querySelector("table.calc-outputs tbody");
const fields = {};
let base = Object.keys(data.instances)[0];

function element(tag, properties = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(properties)) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("data-")) node.setAttribute(key, value);
    else node[key] = value;
  }
  node.append(...children);
  return node;
}

function options(select, entries, empty) {
  const kept = select.value;
  select.replaceChildren(...(empty ? [element("option", {value: "", text: "None"})] : []),
    ...entries.map(([value, label]) => element("option", {value, text: label})));
  if (kept && ![...select.options].some((o) => o.value === kept)) {
    // kept, not silently replaced: run() then shows why it does not fit (a precision the new node lacks)
    select.append(element("option", {value: kept, text: `${kept} (not listed)`}));
  }
  if (kept) select.value = kept;
}

function precisionChoices(name) {
  const nodes = data.inputs[name].nodes.map((node) => data.inputs[node].options[fields[node].value]).filter(Boolean);
  const names = [...new Set(nodes.flatMap((node) => node.precisions))];
  const fallback = data.inputs[name].default;  // a default chain ("fp16|bf16|peak") works on every node
  if (fallback.includes("|") && !names.includes(fallback)) names.unshift(fallback);
  return names.map((p) => [p, p]);
}

for (const name of data.order) {
  const input = data.inputs[name];
  let field;
  if (["node", "dataset", "workload", "scenario"].includes(input.kind)) {
    field = element("select", {name});
    options(field, Object.entries(input.options).map(([key, option]) => [key, `${option.label} (${key})`]),
      input.optional || input.kind === "dataset");
  } else if (input.kind === "choice" || input.kind === "precision") {
    field = element("select", {name});
    if (input.kind === "choice") options(field, Object.keys(input.options).map((k) => [k, k]), false);
  } else {
    field = element("input", {name, type: "text", inputMode: input.kind === "number" ? "decimal" : "text",
      autocomplete: "off", spellcheck: false});
  }
  field.id = `calc-${name}`;
  fields[name] = field;
  const unit = input.unit ? input.unit : (input.kind === "number" || input.kind === "list" ? "1" : "");
  const shown = input.kind === "argument" ? `${input.keyword} of ${input.methods.join(", ")}` : name;
  form.append(element("label", {htmlFor: field.id, title: input.doc ?? ""}, [
    element("code", {text: shown}), field, element("span", {className: "calc-unit", text: unit})]));
}

function refreshPrecisions() {
  for (const name of data.order.filter((n) => data.inputs[n].kind === "precision")) {
    options(fields[name], precisionChoices(name), false);
  }
}

function valuesOf() {
  return Object.fromEntries(data.order.map((name) => [name, fields[name].value]));
}

function load(values) {
  const nodesFirst = [...data.order].sort((a, b) => (data.inputs[b].kind === "node") - (data.inputs[a].kind === "node"));
  for (const name of nodesFirst) {
    const field = fields[name];
    const value = values[name] ?? "";
    if (field.tagName === "SELECT" && ![...field.options].some((o) => o.value === value)) {
      field.append(element("option", {value, text: value}));  // shown as given, then refused by run()
    }
    field.value = value;
    if (data.inputs[name].kind === "node") refreshPrecisions();
  }
}

function format(value) {
  if (typeof value !== "number") return String(value);
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return value.toLocaleString("en-US");
  return Number(value.toPrecision(6)).toString();
}

function row(path, value, unit, labels, note) {
  const cell = element("td", {className: "calc-value"});
  if (value === null) cell.textContent = note;
  else {
    cell.textContent = labels.length ? labels[value] : format(value);
    cell.setAttribute("data-value", String(value));
  }
  cell.setAttribute("data-path", path);
  table.append(element("tr", {}, [element("td", {}, [element("code", {text: path})]), cell,
    element("td", {text: labels.length ? "" : unit})]));
}

function keysOf(name, given) {
  const value = given[name];
  return value instanceof Map ? [...value.keys()] : (value ?? []).map(String);
}

function show(outputs, result, given, prefix, unfit) {
  for (const output of outputs) {
    if (!(output.name in result)) continue;  // a contained scenario's input its parent does not evaluate
    const path = prefix + output.name;
    const refused = (output.guard ?? []).filter((name) => name in unfit);
    if (refused.length && output.kind !== "group") {  // an output of a setup that runs: this one does not fit
      row(path, null, output.unit, output.labels, `does not fit: ${unfit[refused[0]]}`);
      continue;
    }
    const value = result[output.name];
    const note = `not available: needs ${output.requires.map((r) => `'${r}'`).join(" and ") || "an optional input"}`;
    if (output.kind === "method") {  // shown at the arguments typed, as it is called: transfer_time(NVLink)
      const typed = output.arguments.map((a) => given[a] ?? "");
      const blank = output.arguments.filter((a, i) => !typed[i]).map((a) => `'${data.inputs[a].keyword}'`);
      row(`${path}(${typed.join(", ")})`, value, output.unit, output.labels,
        blank.length ? `give its argument ${blank.join(" and ")}` : note);
    } else if (output.kind === "group") show(output.fields, value, given, `${path}.`, unfit);
    else if (output.kind === "table") {
      for (const [key, item] of Object.entries(value)) row(`${path}[${key}]`, item, output.unit, output.labels, note);
    } else if (output.kind === "list" && value !== null) {
      const rows = output.keys ? keysOf(output.keys, given) : value.map((_, i) => String(i));
      const columns = output.columns ? keysOf(output.columns, given) : null;
      value.forEach((item, i) => {
        const label = columns ? `[${rows[Math.floor(i / columns.length)]}][${columns[i % columns.length]}]`
          : `[${rows[i]}]`;
        row(path + label, item, output.unit, output.labels, note);
      });
    } else row(path, value, output.unit, output.labels, note);
  }
}

function changes(values) {
  const from = data.instances[base].values;
  return data.order.filter((name) => (values[name] ?? "") !== (from[name] ?? ""));
}

function pythonValue(name, text) {
  const input = data.inputs[name];
  if (!text.trim()) return "None";
  if (input.kind === "number") return text.trim();
  if (input.kind === "list") return `[${text.split(",").map((s) => s.trim()).filter((s) => s).join(", ")}]`;
  if (input.kind === "keyed") {
    return `{${text.split(",").filter((s) => s.trim()).map((item) => {
      const [key, ...rest] = item.split(":");
      return `${pyString(key.trim().replace(/^['"]|['"]$/g, ""))}: ${rest.join(":").trim()}`;
    }).join(", ")}}`;
  }
  return input.kind === "choice" || input.kind === "precision" ? pyString(text) : text;
}

function shellWord(text) {
  return /^[\w.,:/=+@%-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

function copies(values) {
  const changed = changes(values).filter((name) => data.inputs[name].kind !== "argument");  // not an input
  const python = changed.length
    ? `Scenarios.${base}.variant(${changed.map((n) => `${n}=${pythonValue(n, values[n])}`).join(", ")})`
    : `Scenarios.${base}`;
  const cli = [`mlsysym eval ${title} --from ${base}`, ...changed.map((n) => {
    const text = values[n].trim() ? values[n].trim().replace(/\s*,\s*/g, ",").replace(/\s*:\s*/g, ":") : "none";
    return `--set ${shellWord(`${n}=${text}`)}`;
  })].join(" ");
  return {python, cli};
}

function update() {
  const values = valuesOf();
  const outcome = run(values);
  table.replaceChildren();
  message.textContent = outcome.error ?? "";
  section.classList.toggle("calc-invalid", Boolean(outcome.error));
  if (!outcome.error) show(data.outputs, outcome.result, outcome.given, "", failing(outcome.result));
  const {python, cli} = copies(values);
  section.querySelector(".calc-python").textContent = python;
  section.querySelector(".calc-cli").textContent = cli;
  const query = new URLSearchParams({from: base});
  for (const name of changes(values)) query.set(name, values[name]);
  history.replaceState(null, "", `${location.pathname}?${query}${location.hash}`);
  section.dataset.state = outcome.error ? "error" : "ok";
}

function fromLocation() {
  const query = new URLSearchParams(location.search);
  const key = query.get("from");
  const unknown = [...query.keys()].filter((name) => name !== "from" && !(name in data.inputs));
  if (key !== null && key in data.instances) base = key;
  start.value = base;
  load({...data.instances[base].values, ...Object.fromEntries([...query].filter(([n]) => n in data.inputs))});
  update();
  if (key !== null && !(key in data.instances)) {
    message.textContent = `${title}: no registry instance '${key}' on this page; started from ${base}`;
  } else if (unknown.length) {
    message.textContent = `${title}: unknown input '${unknown[0]}' (inputs: ${data.order.join(", ")})`;
  }
}

options(start, Object.entries(data.instances).map(([key, instance]) => [key, `${key}: ${instance.name}`]), false);
start.addEventListener("change", () => {
  base = start.value;
  load(data.instances[base].values);
  update();
});
form.addEventListener("input", (event) => {
  if (data.inputs[event.target.name]?.kind === "node") refreshPrecisions();
  update();
});
form.addEventListener("change", update);
form.addEventListener("submit", (event) => event.preventDefault());
for (const kind of ["python", "cli"]) {
  section.querySelector(`button.calc-copy-${kind}`).addEventListener("click", async () => {
    const text = section.querySelector(`.calc-${kind}`).textContent;
    const button = section.querySelector(`button.calc-copy-${kind}`);
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied";
    } catch {
      button.textContent = "Select the line to copy";  // no clipboard here: the line is on the page
    }
    setTimeout(() => { button.textContent = kind === "python" ? "Copy as Python" : "Copy as CLI"; }, 1500);
  });
}
fromLocation();
window.mlsysymCalculator = {run, load, update, values: valuesOf, data, ready: performance.now()};
