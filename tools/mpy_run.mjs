#!/usr/bin/env node
// Run a Python script under REAL MicroPython (the WebAssembly port from npm), from a shell.
//
//   node tools/mpy_run.mjs [--heap BYTES] [--mount HOSTDIR:MPDIR ...] [--path MPDIR ...]
//                          SCRIPT.py [args...]
//
//   --heap BYTES         initial GC heap (suffix k or m allowed); default 192k, like a Pico.
//                        NOTE: this build grows its heap on demand, so this is NOT a cap:
//                        see docs/micropython-testing.md for how to measure memory.
//   --mount HOST:MPDIR   copy HOST's .py, .mpy and .json files, recursively, into MicroPython's
//                        in-memory filesystem at MPDIR (repeatable).
//   --path MPDIR         put MPDIR on sys.path, in the order given, before the defaults.
//   --steps FUNC         after the script, call FUNC() again and again, each call a separate
//                        top-level run, until it returns a false value. Between two such
//                        calls the collector really frees what the last one left, so a
//                        measurement of memory per step is not blurred by garbage.
//
// The script runs as __main__, with sys.argv = [script, args...] and top-level `await`
// allowed (awaiting returns to the JS event loop, which is where this build really runs its
// garbage collector). Its stdout and stderr are forwarded line by line.
// Exit status: 0 on success; 1 if Python raised (the MicroPython traceback goes to stderr);
// sys.exit(n) gives n; 2 for a usage error or a missing install.
import fs from "node:fs";
import path from "node:path";

const PACKAGE = "@micropython/micropython-webassembly-pyscript";
const DEFAULT_HEAP = 192 * 1024;

function usage(message) {
  process.stderr.write(`mpy_run: ${message}\n` +
    "usage: node tools/mpy_run.mjs [--heap BYTES] [--mount HOSTDIR:MPDIR ...] " +
    "[--path MPDIR ...] [--steps FUNC] SCRIPT.py [args...]\n");
  process.exit(2);
}

function parseBytes(text) {
  const m = /^(\d+)([kKmM]?)$/.exec(text || "");
  if (!m) usage(`bad --heap value: ${text}`);
  const unit = { "": 1, k: 1024, m: 1024 * 1024 }[m[2].toLowerCase()];
  return Number(m[1]) * unit;
}

function parseArgs(argv) {
  const opts = { heap: DEFAULT_HEAP, mounts: [], paths: [], script: null, args: [], steps: null };
  let i = 0;
  for (; i < argv.length && argv[i].startsWith("--"); i++) {
    const flag = argv[i];
    const value = argv[++i];
    if (value === undefined) usage(`${flag} needs a value`);
    if (flag === "--heap") opts.heap = parseBytes(value);
    else if (flag === "--path") opts.paths.push(value);
    else if (flag === "--steps") {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) usage(`--steps wants a function name, got ${value}`);
      opts.steps = value;
    }
    else if (flag === "--mount") {
      // Split on the LAST colon so host paths stay free-form; MicroPython paths are absolute.
      const at = value.lastIndexOf(":");
      const host = value.slice(0, at), mp = value.slice(at + 1);
      if (at <= 0 || !mp.startsWith("/")) usage(`--mount wants HOSTDIR:/ABS/MPDIR, got ${value}`);
      if (!fs.statSync(host, { throwIfNoEntry: false })?.isDirectory()) usage(`not a directory: ${host}`);
      opts.mounts.push({ host: path.resolve(host), mp: path.posix.normalize(mp) });
    } else usage(`unknown option ${flag}`);
  }
  if (i >= argv.length) usage("no script given");
  opts.script = argv[i];
  opts.args = argv.slice(i + 1);
  return opts;
}

// Emscripten's FS.mkdir is not recursive and throws if the folder exists.
function mkdirs(FS, dir) {
  let sofar = "";
  for (const part of dir.split("/").filter(Boolean)) {
    sofar += "/" + part;
    if (!FS.analyzePath(sofar).exists) FS.mkdir(sofar);
  }
}

// Only sources and data travel: dot-folders (.git, .venv) and node_modules would bring
// thousands of files that are not ours, and __pycache__ holds CPython bytecode.
const SKIP_DIRS = new Set(["__pycache__", "node_modules"]);
const WANTED = /\.(py|mpy|json)$/; // sources, compiled modules (mpy-cross), data

function copyTree(FS, hostDir, mpDir) {
  let count = 0;
  for (const entry of fs.readdirSync(hostDir, { withFileTypes: true })) {
    const hostPath = path.join(hostDir, entry.name);
    const mpPath = path.posix.join(mpDir, entry.name);
    if (entry.isDirectory()) {
      if (!entry.name.startsWith(".") && !SKIP_DIRS.has(entry.name)) count += copyTree(FS, hostPath, mpPath);
    } else if (entry.isFile() && WANTED.test(entry.name)) {
      mkdirs(FS, mpDir); // made lazily, so folders without wanted files do not appear
      FS.writeFile(mpPath, fs.readFileSync(hostPath));
      count += 1;
    }
  }
  return count;
}

// Our own line buffering over raw bytes: the package's `linebuffer` mode silently keeps a
// final line that has no newline, and decoding per byte would break UTF-8.
function lineWriter(stream) {
  let pending = [];
  const flush = () => {
    if (pending.length) stream.write(Buffer.from(pending));
    pending = [];
  };
  const put = (bytes) => {
    for (const b of bytes) {
      pending.push(b);
      if (b === 10) flush();
    }
  };
  return { put, flush };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const scriptHost = path.resolve(opts.script);
  if (!fs.statSync(scriptHost, { throwIfNoEntry: false })?.isFile()) usage(`no such script: ${opts.script}`);

  let loadMicroPython;
  try {
    ({ loadMicroPython } = await import(PACKAGE));
  } catch (error) {
    process.stderr.write(`mpy_run: cannot load ${PACKAGE} (${error.code || error.message}); run ./dev setup\n`);
    process.exit(2);
  }

  const out = lineWriter(process.stdout);
  const err = lineWriter(process.stderr);
  const mp = await loadMicroPython({
    heapsize: opts.heap, stdout: out.put, stderr: err.put, linebuffer: false,
  });

  for (const m of opts.mounts) {
    mkdirs(mp.FS, m.mp);
    copyTree(mp.FS, m.host, m.mp);
  }

  // Inside MicroPython the script is named by its path there: under a mount if it lies in
  // one, else copied to /main/. Tracebacks then use the same kind of path as for modules.
  const mount = opts.mounts.find((m) => scriptHost.startsWith(m.host + path.sep));
  let scriptMp;
  if (mount) {
    scriptMp = path.posix.join(mount.mp, path.relative(mount.host, scriptHost).split(path.sep).join("/"));
  } else {
    scriptMp = "/main/" + path.basename(scriptHost);
  }
  mkdirs(mp.FS, path.posix.dirname(scriptMp));
  const source = fs.readFileSync(scriptHost, "utf8");
  mp.FS.writeFile(scriptMp, source);

  let code = 0;
  try {
    // Set up sys in its own call, so the script's traceback has only the script's frames.
    mp.runPython(
      "import sys\n" +
      `sys.argv[:] = ${JSON.stringify([scriptMp, ...opts.args])}\n` +
      `sys.path[:0] = ${JSON.stringify(opts.paths)}\n` +
      `__file__ = ${JSON.stringify(scriptMp)}\n` +
      "del sys\n");
    // runPythonAsync, not runPython: same result for plain code, and allows top-level await.
    await mp.runPythonAsync(source);
    if (opts.steps) {
      do {
        mp.runPython(`_mpy_run_more = ${opts.steps}()`);
      } while (mp.globals.get("_mpy_run_more"));
    }
  } catch (error) {
    if (error?.name !== "PythonError") throw error; // a crash of the runtime itself
    // The package reports an exception as its type and its whole traceback text.
    const text = error.message.replaceAll('File "<stdin>"', `File "${scriptMp}"`);
    if (error.type === "SystemExit") {
      // The traceback's last line is "SystemExit: <arg>": sys.exit() semantics from it.
      const arg = /SystemExit:? ?(.*)\n?$/.exec(text)?.[1] ?? "";
      if (arg === "" || arg === "None") code = 0;
      else if (/^-?\d+$/.test(arg)) code = Number(arg) & 0xff;
      else { err.put(Buffer.from(arg + "\n")); code = 1; }
    } else {
      err.flush();
      err.put(Buffer.from(text.endsWith("\n") ? text : text + "\n"));
      code = 1;
    }
  } finally {
    out.flush();
    err.flush();
  }
  // exitCode rather than exit(): let Node drain stdout/stderr before it ends.
  process.exitCode = code;
}

main().catch((error) => {
  process.stderr.write(`mpy_run: internal error: ${error?.stack || error}\n`);
  process.exitCode = 2;
});
