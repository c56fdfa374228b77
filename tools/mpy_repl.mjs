#!/usr/bin/env node
// The virtual board's MicroPython REPL: MicroPython's own REPL (friendly and raw, the
// WebAssembly port's event-driven pyexec) in a sandboxed Node process, for
// host/vora_host/virtual/repl.py. Never run by hand: it speaks frames on stdin/stdout.
//
// Frames both ways: u8 type, u32 length (big-endian), payload.
//   from the host:  F path\0bytes  a file of the simulated flash (before G)
//                   K path         a folder of the simulated flash (before G)
//                   P bytes        the ROMFS partition, when the board has one (before G)
//                   G json         start: {mode: "friendly"|"raw", quiet, config for the prelude}
//                   I bytes        bytes from the serial port
//   to the host:    O bytes        bytes for the serial port
//                   A mode         an I frame was processed; mode "f" friendly, "r" raw
//                   W path\0bytes  a file written and closed on the flash
//                   D path / M path / R path / N old\0new   remove, mkdir, rmdir, rename
//                   X kind         "hard": machine.reset(); "soft": Ctrl-D at the friendly REPL
//                   P u32 offset + bytes   written to the ROMFS partition (vfs.rom_ioctl)
//                   E text         the sandbox itself failed
//
// The sandbox: the flash lives in this process's memory (MEMFS, mounted as MicroPython's
// "/"), changes are reported to the host, which alone writes the PC's folder (after checking
// every path). Node runs with the permission model (no file writes, no child processes,
// reads only of this package) and without code generation from strings; see
// host/vora_host/virtual/repl.py for the flags.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
// The WebAssembly MicroPython: the module file named by the first argument (wherever npm
// put it: a checkout's node_modules, or vora's data folder for an installed vora), else
// the package as node_modules beside this file resolves it.
const { loadMicroPython } = process.argv[2]
  ? await import(pathToFileURL(process.argv[2]).href)
  : await import("@micropython/micropython-webassembly-pyscript");

const stdin = process.stdin;
const stdout = process.stdout;
const here = path.dirname(fileURLToPath(import.meta.url));
const FLASH = "/flash";

function frame(type, payload) {
  const body = typeof payload === "string" ? Buffer.from(payload, "utf8") : Buffer.from(payload);
  const head = Buffer.alloc(5);
  head[0] = type.charCodeAt(0);
  head.writeUInt32BE(body.length, 1);
  stdout.write(Buffer.concat([head, body]));
}

// Output to the serial port, as a board's cooked stdout: "\n" becomes "\r\n". Code runs
// synchronously here, so output is also sent while it runs (stdout to a pipe is synchronous
// on Linux): the raw REPL's "OK" at once, as a board sends it before running the code, and
// anything else every 20 ms.
let lastOut = 0;
let dropOK = 0; // bytes of the plain raw REPL's "OK" still to drop (raw paste)
let pending = [];
let lastFlush = Date.now();
function put(bytes) {
  for (const b of bytes) {
    if (dropOK > 0 && b === "OK".charCodeAt(2 - dropOK)) {
      dropOK--;
      continue;
    }
    dropOK = 0;
    if (b === 10 && lastOut !== 13) pending.push(13);
    pending.push(b);
    lastOut = b;
  }
  const n = pending.length;
  if (mode === "r" && !muted && n >= 2 && pending[n - 2] === 79 && pending[n - 1] === 75) flushOut();
  else if (Date.now() - lastFlush > 20) flushOut();
}
function flushOut() {
  if (pending.length) frame("O", Buffer.from(pending));
  pending = [];
  lastFlush = Date.now();
}

let files = new Map(); // flash path -> Uint8Array, only before the first start
let dirs = [];
let config = null;
let rom = null; // the ROMFS partition (a Buffer), when the board has one
let mp = null;
let mode = "f";
let muted = false; // output of our own set-up steps is not the board's
let resetAsked = false;

function mkdirs(FS, dir) {
  let sofar = "";
  for (const part of dir.split("/").filter(Boolean)) {
    sofar += "/" + part;
    if (!FS.analyzePath(sofar).exists) FS.mkdir(sofar);
  }
}

function resolve(FS, p) {
  return path.posix.resolve(FS.cwd(), p);
}

function inFlash(p) {
  return p === FLASH || p.startsWith(FLASH + "/");
}

function rel(p) {
  return p.slice(FLASH.length + 1);
}

// Changes to the flash reach the host as they would persist on a board: a file when it is
// closed after writing (littlefs keeps nothing of a file never closed or flushed), folders
// and renames at once.
function hookFs(FS) {
  const close = FS.close, unlink = FS.unlink, rename = FS.rename, mkdir = FS.mkdir, rmdir = FS.rmdir;
  FS.close = function (stream) {
    const p = stream.path;
    const wrote = (stream.flags & 3) !== 0; // O_WRONLY or O_RDWR
    const r = close.apply(this, arguments);
    if (wrote && p && inFlash(p) && mp !== null) {
      const data = FS.readFile(p);
      frame("W", Buffer.concat([Buffer.from(rel(p) + "\0"), Buffer.from(data)]));
    }
    return r;
  };
  FS.unlink = function (p) {
    const r = unlink.apply(this, arguments);
    const a = resolve(FS, p);
    if (inFlash(a) && mp !== null) frame("D", rel(a));
    return r;
  };
  FS.rmdir = function (p) {
    const r = rmdir.apply(this, arguments);
    const a = resolve(FS, p);
    if (inFlash(a) && mp !== null) frame("R", rel(a));
    return r;
  };
  FS.mkdir = function (p) {
    const r = mkdir.apply(this, arguments);
    const a = resolve(FS, p);
    if (inFlash(a) && a !== FLASH && mp !== null) frame("M", rel(a));
    return r;
  };
  FS.rename = function (a, b) {
    const r = rename.apply(this, arguments);
    const x = resolve(FS, a), y = resolve(FS, b);
    if (inFlash(x) && inFlash(y) && mp !== null) frame("N", rel(x) + "\0" + rel(y));
    return r;
  };
}

// Everything in /flash of one MicroPython instance, to carry over a soft reset.
function snapshot(FS, dir = FLASH, out = { files: new Map(), dirs: [] }) {
  for (const name of FS.readdir(dir)) {
    if (name === "." || name === "..") continue;
    const p = dir + "/" + name;
    const st = FS.stat(p);
    if (FS.isDir(st.mode)) {
      out.dirs.push(p);
      snapshot(FS, p, out);
    } else out.files.set(p, FS.readFile(p));
  }
  return out;
}

async function boot(startMode, quiet, silent) {
  const carry = mp !== null ? snapshot(mp.FS) : { files, dirs };
  mp = null; // no change reports while the new instance is filled
  const inst = await loadMicroPython({
    heapsize: config.heap || 192 * 1024, linebuffer: false,
    stdout: (b) => { if (!muted) put(b); }, stderr: (b) => { if (!muted) put(b); },
  });
  const FS = inst.FS;
  mkdirs(FS, FLASH);
  for (const d of carry.dirs) mkdirs(FS, d);
  for (const [p, data] of carry.files) {
    mkdirs(FS, path.posix.dirname(p));
    FS.writeFile(p, data);
  }
  files = null;
  dirs = null;
  hookFs(FS);
  // The partition for the prelude to read, outside the flash (no change reports).
  if (rom !== null) FS.writeFile("/romfs.bin", rom);
  inst.registerJsModule("_vora_board", {
    rom_write: (offset, hex) => {
      const data = Buffer.from(String(hex), "hex");
      if (rom === null || !Number.isInteger(offset) || offset < 0 || offset + data.length > rom.length) {
        throw new Error("a write outside the ROMFS partition");
      }
      data.copy(rom, offset);
      const head = Buffer.alloc(4);
      head.writeUInt32BE(offset, 0);
      frame("P", Buffer.concat([head, data]));
    },
    reset: (kind) => {
      resetAsked = true;
      flushOut();
      frame("X", kind === "soft" ? "soft" : "hard");
      throw new Error("the board resets");
    },
  });
  muted = true;
  try {
    inst.runPython(config.prelude);
    inst.globals.get("_vora_setup")(JSON.stringify(config.identity));
    inst.replInit();
  } finally {
    muted = false;
  }
  mp = inst;
  mode = "f";
  if (startMode === "raw") {
    mode = "r";
    muted = quiet;
    feedChar(1);
    muted = false;
    if (quiet && !silent) put(Buffer.from("raw REPL; CTRL-B to exit\r\n>"));
  } else if (!quiet) {
    put(Buffer.from(config.banner));
  }
}

// The REPL state, as far as the interception below needs it: after a raw prompt ">" the
// next bytes may be a raw-paste request (Ctrl-E A Ctrl-A), which a Pico's MicroPython
// serves and mpremote uses. This port's event-driven REPL cannot (it would block reading
// stdin), so the runner serves it as a board does (shared/runtime/pyexec.c): "R\x01",
// a window of RAW_PASTE_WINDOW bytes and one more granted at once, "\x01" each time a
// window has been read, "\x04" when the host's Ctrl-D ends the code; then the code runs
// through the plain raw REPL, whose "OK" a board does not send in raw-paste and is
// dropped. Without it mpremote falls back to the plain raw REPL, 256 bytes every 10 ms:
// `vora flash` took 20 s on the virtual board, most of it those sleeps.
const RAW_PASTE_WINDOW = 128; // MICROPY_REPL_STDIN_BUFFER_MAX (256) / 2, as on a Pico
// The most of a paste kept: the sandbox's heap (192 KB) could not compile more. Bytes past
// it are read and dropped (the host goes on sending), and the end says MemoryError, as a
// board whose compiler ran out of heap reading the paste does.
const RAW_PASTE_MAX = 192 * 1024;
let atRawPrompt = false;
let pasteBuf = [];
let pasted = null; // the code of a raw paste being read, or null
let pasteOver = false; // the paste went past RAW_PASTE_MAX: its code is dropped
let pasteWindow = 0; // bytes left in the window granted

function feedChar(c) {
  const r = mp.replProcessChar(c);
  return r;
}

async function input(bytes) {
  for (let i = 0; i < bytes.length; i++) {
    if (resetAsked) return;
    const c = bytes[i];
    if (pasted !== null) {
      await pasteByte(c);
      continue;
    }
    if (atRawPrompt && (pasteBuf.length > 0 || c === 5)) {
      pasteBuf.push(c);
      const want = [5, 65, 1];
      if (pasteBuf.every((v, k) => v === want[k])) {
        if (pasteBuf.length === 3) {
          pasteBuf = [];
          atRawPrompt = false;
          pasted = [];
          pasteOver = false;
          pasteWindow = RAW_PASTE_WINDOW;
          put(Buffer.from([82, 1, RAW_PASTE_WINDOW & 0xff, RAW_PASTE_WINDOW >> 8, 1]));
          flushOut();
        }
        continue;
      }
      const held = pasteBuf;
      pasteBuf = [];
      atRawPrompt = false;
      for (const h of held) await step(h);
      continue;
    }
    await step(c);
  }
}

// One byte of a raw paste: the code, or its end (Ctrl-D runs it, Ctrl-C abandons it).
async function pasteByte(c) {
  if (c === 4 || c === 3) {
    const code = pasted;
    pasted = null;
    put(Buffer.from([4])); // the end, told to the host
    if (c === 3 || pasteOver) {
      const why = c === 3 ? "KeyboardInterrupt: " : "MemoryError: the pasted code is longer " +
        "than the board's heap";
      put(Buffer.from("\x04" + why + "\r\n\x04>"));
      atRawPrompt = true;
      return;
    }
    flushOut();
    dropOK = 2;
    for (const b of code) {
      await step(b);
      if (resetAsked) return;
    }
    await step(4);
    return;
  }
  if (pasted.length < RAW_PASTE_MAX) pasted.push(c);
  else pasteOver = true;
  if (--pasteWindow === 0) {
    put(Buffer.from([1])); // one more window free
    pasteWindow = RAW_PASTE_WINDOW;
  }
}

async function step(c) {
  if (c === 1) mode = "r";
  if (c === 2) mode = "f";
  const before = pending.length;
  const r = feedChar(c);
  if (resetAsked) return;
  if (r & 0x100) {
    // PYEXEC_FORCED_EXIT: Ctrl-D on an empty line, a soft reset. In the raw REPL the board
    // reboots without running main.py; at the friendly REPL it would run main.py, which
    // the host decides (X soft).
    if (mode === "f") {
      flushOut();
      frame("X", "soft");
      resetAsked = true;
      return;
    }
    put(Buffer.from("MPY: soft reboot\r\n"));
    await boot("raw", true);
    atRawPrompt = true;
    return;
  }
  const tail = Buffer.from(pending.slice(Math.max(0, before, pending.length - 2)));
  if (mode === "r" && pending.length > before && tail[tail.length - 1] === 62) atRawPrompt = true;
  else if (pending.length > before) atRawPrompt = false;
}

let inbuf = Buffer.alloc(0);
let queue = Promise.resolve();

stdin.on("data", (chunk) => {
  inbuf = Buffer.concat([inbuf, chunk]);
  while (inbuf.length >= 5) {
    const n = inbuf.readUInt32BE(1);
    if (inbuf.length < 5 + n) break;
    const type = String.fromCharCode(inbuf[0]);
    const payload = inbuf.subarray(5, 5 + n);
    inbuf = inbuf.subarray(5 + n);
    queue = queue.then(() => handle(type, Buffer.from(payload))).catch((e) => {
      frame("E", String(e && e.stack || e));
    });
  }
});
stdin.on("end", () => process.exit(0));

async function handle(type, payload) {
  if (type === "F") {
    const z = payload.indexOf(0);
    files.set(FLASH + "/" + payload.subarray(0, z).toString("utf8"), new Uint8Array(payload.subarray(z + 1)));
  } else if (type === "K") {
    dirs.push(FLASH + "/" + payload.toString("utf8"));
  } else if (type === "P") {
    rom = Buffer.from(payload);
  } else if (type === "G") {
    const start = JSON.parse(payload.toString("utf8"));
    config = start;
    await boot(start.mode, start.quiet, start.silent);
    if (start.mode === "raw") atRawPrompt = true;
    flushOut();
    frame("A", mode);
  } else if (type === "I") {
    if (mp === null) return;
    await input(payload);
    flushOut();
    frame("A", mode);
  }
}
