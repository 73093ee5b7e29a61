// The REPL's prelude: run once in a new context. It defines the tool functions (each pool tool
// as `Name(input)` and `tools.Name(input)`, returning a promise), a console that prints into the
// result, and the helpers the Rust side calls. `__agentTools*` names are the Rust side's.
(() => {
  const request = globalThis.__agentToolsRequest;
  const print = globalThis.__agentToolsPrint;
  delete globalThis.__agentToolsRequest;
  delete globalThis.__agentToolsPrint;
  const pending = new Map();
  let next = 0;
  const defined = new Set();

  const show = (value) => {
    if (value === undefined) return undefined;
    if (typeof value === "string") return value;
    if (value instanceof Error) return describe(value);
    if (typeof value === "function") return String(value);
    try {
      const json = JSON.stringify(value, null, 2);
      return json === undefined ? String(value) : json;
    } catch (_) {
      return String(value);
    }
  };

  // The script's own frames: the prelude's (this file, evaluated as `eval_script`) left out.
  const ownFrames = (stack) =>
    typeof stack === "string"
      ? stack.split("\n").filter((line) => line.trim() && !line.includes("eval_script") && !line.includes("(native)")).join("\n")
      : "";

  const describe = (thrown) => {
    if (thrown instanceof Error) {
      const head = `${thrown.name || "Error"}: ${thrown.message}`;
      const stack = ownFrames(thrown.stack);
      return stack ? `${head}\n${stack}` : head;
    }
    return `Uncaught ${show(thrown)}`;
  };

  const call = (name, input) =>
    new Promise((resolve, reject) => {
      if (input === undefined) input = {};
      if (input === null || typeof input !== "object" || Array.isArray(input)) {
        reject(new TypeError(`${name} takes one object of its input fields, e.g. ${name}({...})`));
        return;
      }
      let text;
      try {
        text = JSON.stringify(input);
      } catch (error) {
        reject(new TypeError(`${name}'s input cannot be sent as JSON: ${error.message}`));
        return;
      }
      const id = ++next;
      // Made now, so that its stack is where the script called the tool.
      const error = new Error();
      pending.set(id, { name, resolve, reject, error });
      request(id, name, text);
    });

  const tools = {};
  globalThis.tools = tools;

  const console = {};
  for (const level of ["log", "info", "warn", "error", "debug"]) {
    console[level] = (...values) => print(values.map((value) => show(value) ?? "undefined").join(" "));
  }
  globalThis.console = console;

  Object.defineProperties(globalThis, {
    __agentToolsBegin: {
      value: (namesJson) => {
        pending.clear();
        next = 0;
        for (const name of JSON.parse(namesJson)) {
          if (defined.has(name)) continue;
          defined.add(name);
          const fn = (input) => call(name, input);
          Object.defineProperty(fn, "name", { value: name });
          tools[name] = fn;
          // A global of the same name only where the script has none of its own.
          if (!(name in globalThis)) globalThis[name] = fn;
        }
      },
    },
    __agentToolsSettle: {
      value: (id, ok, text, data) => {
        const waiting = pending.get(id);
        if (!waiting) return;
        pending.delete(id);
        if (!ok) {
          const error = waiting.error;
          error.message = text;
          error.name = `${waiting.name}Error`;
          error.toolResult = text;
          try {
            error.stack = ownFrames(error.stack);
          } catch (_) {
            // A read-only stack stays as it is; `describe` still leaves the prelude out.
          }
          waiting.reject(error);
          return;
        }
        let output = data === undefined || data === null ? {} : JSON.parse(data);
        if (output === null || typeof output !== "object") output = { value: output };
        if (!Object.prototype.hasOwnProperty.call(output, "text")) {
          Object.defineProperty(output, "text", { value: text, enumerable: false });
        }
        Object.defineProperty(output, "toString", { value: () => text, enumerable: false });
        waiting.resolve(output);
      },
    },
    __agentToolsShow: { value: show },
    __agentToolsDescribe: { value: describe },
  });
})();
