// The Vora Board's MicroPython firmware on an emulated Raspberry Pi Pico (rp2040js), for
// bench/bench_rp2040.py (bench/rp2040/README.md). Nothing of MicroPython, the pico-sdk or the
// RP2040 bootrom is in this repository: the firmware (an RPI_PICO MicroPython ELF) and the
// bootrom image are given by path.
//
//   node harness.mjs --firmware FIRMWARE.elf --bootrom BOOTROM [--serial-port N]
//                    [--control-port N] [--flash-in FILE] [--pinmap FILE] [--clock-file FILE]
//                    [--quiet]
//
// What it does:
// - loads the ELF's flash segments into the emulated 2 MB flash (or a whole flash image
//   saved before, --flash-in) and starts the RP2040 at 125 MHz;
// - serves pico-sdk's flash_range_erase and flash_range_program itself (rp2040js has no
//   flash erase/program): a BKPT is put at each function's entry (in the flash copy of the
//   .data section, which the start-up code copies to RAM), and on it the operation is done on
//   the emulated flash and the function returns; MicroPython's filesystem works unchanged;
// - the board's USB CDC serial port on a TCP port of 127.0.0.1 (pyserial: socket://...);
//   a reset (machine.reset, the watchdog) or a power cut restarts the chip with its flash
//   kept and the TCP connection left open, as a USB serial device comes back;
// - the key matrix: the pin map's rows and columns (col2row), a key "pressed" by the
//   control port pulls its column low while its row is driven low;
// - the pixel chain's pin decoded into frames, and the board's KEY messages from its USB
//   data, for key event (KEY message) to frame and key press to frame;
// - the GC heap read from the emulated RAM right after each collection (free, largest free
//   block, as micropython.mem_info() counts them), with BKPTs at gc_collect_end and gc_alloc;
// - a control port (JSON lines on 127.0.0.1) for the driver: keys (tap, hold, release),
//   heap figures (heap, gc_log), scans further apart than 60 ms (scan_gaps), a sampling
//   profile of where the core spends its time by function (profile), time (status,
//   wait_ms), a reset or power cut (reset), saving the flash image (save_flash);
// - with --clock-file, the emulated time (float64, seconds since the first power-up) kept
//   in that file's first 8 bytes, for the PC's side to run on the board's clock.

import fs from 'node:fs';
import net from 'node:net';
import { RP2040, USBCDC, GPIOPinState } from 'rp2040js';

const FLASH_START = 0x10000000;
const SRAM_START = 0x20000000;
const SRAM_END = 0x20042000;
const FLASH_BYTES = 2 * 1024 * 1024; // a Pico's W25Q16
const MHZ = 125;
const NS_PER_CYCLE = 1000 / MHZ;
const BK_ERASE = 0x70, BK_PROGRAM = 0x71, BK_COLLECT_END = 0x72, BK_ALLOC = 0x73;
const GC_BLOCK = 16; // bytes per GC block on a 32-bit port (MICROPY_BYTES_PER_GC_BLOCK)

// ---- arguments ---------------------------------------------------------------------------

function parseArgs(argv) {
  const a = { serialPort: 0, controlPort: 0, quiet: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => argv[++i];
    if (k === '--firmware') a.firmware = v();
    else if (k === '--bootrom') a.bootrom = v();
    else if (k === '--serial-port') a.serialPort = +v();
    else if (k === '--control-port') a.controlPort = +v();
    else if (k === '--flash-in') a.flashIn = v();
    else if (k === '--pinmap') a.pinmap = v();
    else if (k === '--clock-file') a.clockFile = v();
    else if (k === '--quiet') a.quiet = true;
    else { console.error(`unknown argument ${k}`); process.exit(2); }
  }
  a.firmware = a.firmware || process.env.VORA_PICO_FIRMWARE;
  a.bootrom = a.bootrom || process.env.VORA_PICO_BOOTROM;
  const missing = [];
  if (!a.firmware) missing.push('the firmware: --firmware PATH or VORA_PICO_FIRMWARE, an RPI_PICO MicroPython ELF (ports/rp2/build-RPI_PICO/firmware.elf)');
  if (!a.bootrom) missing.push('the RP2040 bootrom (B1): --bootrom PATH or VORA_PICO_BOOTROM, 16 KiB raw, or a file of 0x... 32-bit words such as rp2040js\'s demo/bootrom.ts');
  if (missing.length) {
    console.error('harness: missing ' + missing.join('; and '));
    console.error('See bench/rp2040/README.md.');
    process.exit(2);
  }
  return a;
}

// ---- ELF ---------------------------------------------------------------------------------

function readElf(path) {
  const b = fs.readFileSync(path);
  if (b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 1 || b[5] !== 1 || b.readUInt16LE(18) !== 40) {
    throw new Error(`${path} is not a 32-bit little-endian ARM ELF (give firmware.elf, not the .uf2)`);
  }
  const phoff = b.readUInt32LE(28), shoff = b.readUInt32LE(32);
  const phentsize = b.readUInt16LE(42), phnum = b.readUInt16LE(44);
  const shentsize = b.readUInt16LE(46), shnum = b.readUInt16LE(48);
  const segments = [];
  for (let i = 0; i < phnum; i++) {
    const o = phoff + i * phentsize;
    if (b.readUInt32LE(o) !== 1) continue; // PT_LOAD
    segments.push({
      offset: b.readUInt32LE(o + 4), vaddr: b.readUInt32LE(o + 8), paddr: b.readUInt32LE(o + 12),
      filesz: b.readUInt32LE(o + 16),
    });
  }
  const sections = [];
  for (let i = 0; i < shnum; i++) {
    const o = shoff + i * shentsize;
    sections.push({
      type: b.readUInt32LE(o + 4), offset: b.readUInt32LE(o + 16), size: b.readUInt32LE(o + 20),
      link: b.readUInt32LE(o + 24), entsize: b.readUInt32LE(o + 36),
    });
  }
  const symbols = new Map();
  for (const s of sections) {
    if (s.type !== 2) continue; // SHT_SYMTAB
    const str = sections[s.link];
    for (let o = s.offset; o < s.offset + s.size; o += 16) {
      const nameOff = b.readUInt32LE(o);
      let end = str.offset + nameOff;
      while (b[end]) end++;
      const name = b.toString('latin1', str.offset + nameOff, end);
      if (name) symbols.set(name, { value: b.readUInt32LE(o + 4), size: b.readUInt32LE(o + 8) });
    }
  }
  return { bytes: b, segments, symbols };
}

function flashImageOf(elf) {
  const flash = new Uint8Array(FLASH_BYTES).fill(0xff);
  for (const s of elf.segments) {
    if (s.filesz && s.paddr >= FLASH_START && s.paddr < FLASH_START + FLASH_BYTES) {
      flash.set(elf.bytes.subarray(s.offset, s.offset + s.filesz), s.paddr - FLASH_START);
    }
  }
  return flash;
}

// Where the code at `addr` (a RAM or flash address) lies in the flash image.
function flashOffsetOf(elf, addr) {
  for (const s of elf.segments) {
    if (addr >= s.vaddr && addr < s.vaddr + s.filesz && s.paddr >= FLASH_START) {
      return s.paddr - FLASH_START + (addr - s.vaddr);
    }
  }
  throw new Error(`0x${addr.toString(16)} is in no segment loaded from flash`);
}

function readBootrom(path) {
  const raw = fs.readFileSync(path);
  if (raw.length === 16384) return new Uint32Array(raw.buffer, raw.byteOffset, 4096).slice();
  const words = raw.toString('latin1').match(/0x[0-9a-fA-F]{1,8}/g) || [];
  if (words.length < 4096) throw new Error(`${path}: neither 16 KiB of bootrom nor 4096 0x... words`);
  return Uint32Array.from(words.slice(words.length - 4096).map((w) => parseInt(w, 16) >>> 0));
}

// ---- the board ---------------------------------------------------------------------------

const args = parseArgs(process.argv.slice(2));
const log = (...m) => { if (!args.quiet) console.error('[harness]', ...m); };
let elf, bootrom;
try {
  elf = readElf(args.firmware);
  bootrom = readBootrom(args.bootrom);
} catch (e) {
  console.error(`harness: ${e.message}`);
  process.exit(2);
}
const sym = (name) => {
  const s = elf.symbols.get(name);
  if (!s) throw new Error(`the firmware has no symbol ${name}: is it an RPI_PICO MicroPython ELF?`);
  return { addr: s.value & ~1, size: s.size };
};
const FN = {
  erase: sym('flash_range_erase').addr, program: sym('flash_range_program').addr,
  collectEnd: sym('gc_collect_end').addr, alloc: sym('gc_alloc').addr,
};
const STATE_CTX = sym('mp_state_ctx');
const pinmap = args.pinmap ? JSON.parse(fs.readFileSync(args.pinmap, 'utf8')) : null;
const ROWS = pinmap ? pinmap.row_pins : [2, 3, 4, 5, 6, 7, 8];
const COLS = pinmap ? pinmap.col_pins : [9, 10, 11, 12, 13, 14, 15];
const PIXEL_PIN = pinmap ? pinmap.pixel_pin : 16;
const DEBOUNCE_MS = pinmap ? pinmap.debounce_ms || 20 : 20;
if (pinmap && pinmap.diode_direction !== 'col2row') throw new Error('only col2row pin maps');

// The flash as it stands, with the BKPTs at the flash functions (kept across resets).
let flash = args.flashIn ? new Uint8Array(fs.readFileSync(args.flashIn)) : flashImageOf(elf);
if (flash.length !== FLASH_BYTES) throw new Error(`${args.flashIn}: not a 2 MiB flash image`);
const bkpt = (code) => 0xbe00 | code;
const origHalf = {};
function patchFlash(addr, code) {
  const o = flashOffsetOf(elf, addr);
  const cur = flash[o] | (flash[o + 1] << 8);
  if ((cur >> 8) !== 0xbe) origHalf[addr] = cur;
  else if (origHalf[addr] === undefined) { // a saved image, patched already: take the ELF's
    const s = elf.segments.find((g) => addr >= g.vaddr && addr < g.vaddr + g.filesz);
    const fo = s.offset + (addr - s.vaddr);
    origHalf[addr] = elf.bytes[fo] | (elf.bytes[fo + 1] << 8);
  }
  flash[o] = bkpt(code) & 0xff; flash[o + 1] = bkpt(code) >> 8;
}
patchFlash(FN.erase, BK_ERASE);
patchFlash(FN.program, BK_PROGRAM);
patchFlash(FN.collectEnd, BK_COLLECT_END); // gc_alloc is armed in RAM after a collection
{
  const s = elf.segments.find((g) => FN.alloc >= g.vaddr && FN.alloc < g.vaddr + g.filesz);
  const fo = s.offset + (FN.alloc - s.vaddr);
  origHalf[FN.alloc] = elf.bytes[fo] | (elf.bytes[fo + 1] << 8);
}
const inRam = (a) => a >= SRAM_START && a < SRAM_END;
if (!inRam(FN.collectEnd) || !inRam(FN.alloc)) throw new Error('gc_collect_end and gc_alloc are expected in RAM (.data): this firmware differs');

const stats = {
  boots: 0, resets: 0, erases: 0, programs: 0, bytesProgrammed: 0, collections: 0,
  startReal: Date.now(), emulatedNsBefore: 0, frames: 0, maxScanGapNs: 0, scanGapsOver60ms: 0,
  scanGaps: [0, 0, 0, 0], // scans apart up to 6 ms, 6 to 20, 20 to 60, over 60
  allocsInIrq: 0, // gc_alloc calls from an interrupt's handler while a heap reading was armed
};
let mcu, cdc, clock;
let cdcConnected = false;
const toBoard = []; // bytes from the PC waiting for the board's USB endpoint
let serialClient = null;
let resetPending = false;

// GC heap: the area's fields, found in mp_state_ctx by their relations (below).
let heapLayout = null;
const gcLog = []; // {seq, ns (since start), boot, free, max_free, total, used_blocks}
let armed = 'collect';

function word(addr) { return mcu.sramView.getUint32(addr - SRAM_START, true); }

function findHeapLayout() {
  // mp_state_mem_area_t: gc_alloc_table_start, gc_alloc_table_byte_len,
  // [gc_finaliser_table_start], [gc_weakref_table_start], gc_pool_start, gc_pool_end;
  // 4 blocks of 16 bytes per byte of the allocation table.
  const base = STATE_CTX.addr, n = Math.floor(STATE_CTX.size / 4);
  for (let i = 0; i + 3 < n; i++) {
    const atb = word(base + 4 * i), len = word(base + 4 * i + 4);
    if (!inRam(atb) || len === 0 || len > 0x40000) continue;
    for (let j = i + 2; j <= i + 4 && j + 1 < n; j++) {
      const p = word(base + 4 * j), e = word(base + 4 * j + 4);
      if (inRam(p) && p > atb && e - p === len * 4 * GC_BLOCK) {
        return { atbField: base + 4 * i, lenField: base + 4 * i + 4, poolField: base + 4 * j, endField: base + 4 * j + 4 };
      }
    }
  }
  return null;
}

function heapNow() {
  if (!heapLayout) heapLayout = findHeapLayout();
  if (!heapLayout) return null;
  const atb = word(heapLayout.atbField), len = word(heapLayout.lenField);
  const pool = word(heapLayout.poolField), end = word(heapLayout.endField);
  let free = 0, run = 0, maxRun = 0, used = 0;
  const blocks = len * 4;
  for (let b = 0; b < blocks; b++) {
    const kind = (mcu.sram[atb - SRAM_START + (b >> 2)] >> ((b & 3) * 2)) & 3;
    if (kind === 0) { free++; run++; if (run > maxRun) maxRun = run; } else { run = 0; used++; }
  }
  return { total: end - pool, free: free * GC_BLOCK, max_free: maxRun * GC_BLOCK, used: used * GC_BLOCK, max_free_blocks: maxRun };
}

function setRamHalf(addr, half) {
  mcu.sram[addr - SRAM_START] = half & 0xff;
  mcu.sram[addr - SRAM_START + 1] = half >> 8;
}

function emulatedNs() { return stats.emulatedNsBefore + (clock ? clock.nanos : 0); }

function onBreak(code) {
  const core = mcu.core;
  const pc = (core.PC - 2) >>> 0;
  if (code === BK_ERASE && pc === FN.erase) {
    const off = core.registers[0] >>> 0, count = core.registers[1] >>> 0;
    flash.fill(0xff, off, off + count);
    mcu.flash.fill(0xff, off, off + count);
    stats.erases++;
    core.PC = core.registers[14] & ~1; // return
  } else if (code === BK_PROGRAM && pc === FN.program) {
    const off = core.registers[0] >>> 0, data = core.registers[1] >>> 0, count = core.registers[2] >>> 0;
    for (let i = 0; i < count; i++) {
      const v = flash[off + i] & mcu.readUint8(data + i); // programming only clears bits
      flash[off + i] = v;
      mcu.flash[off + i] = v;
    }
    stats.programs++;
    stats.bytesProgrammed += count;
    core.PC = core.registers[14] & ~1;
  } else if (code === BK_COLLECT_END && pc === FN.collectEnd) {
    setRamHalf(FN.collectEnd, origHalf[FN.collectEnd]);
    setRamHalf(FN.alloc, bkpt(BK_ALLOC));
    armed = 'alloc';
    core.PC = pc; // run the real instruction
  } else if (code === BK_ALLOC && pc === FN.alloc) {
    setRamHalf(FN.alloc, origHalf[FN.alloc]);
    if (core.IPSR !== 0) {
      // An interrupt's handler: the key timer's (vora_fw.keysample) calls try the heap for
      // their frames (the VM puts a large one on the stack only when gc_alloc, the heap
      // locked, returns NULL), every 5 ms, and may come in the middle of a collection's
      // sweep: not the heap as the collection left it. This instruction is run and the
      // BKPT put back after it (runSlice); the game's own allocation is waited for.
      stats.allocsInIrq++;
      rearmAlloc = true;
      core.PC = pc;
      return;
    }
    // The first allocation after a collection: the heap as the collection left it.
    setRamHalf(FN.collectEnd, bkpt(BK_COLLECT_END));
    armed = 'collect';
    const h = heapNow();
    if (h) {
      stats.collections++;
      gcLog.push({ seq: stats.collections, ns: emulatedNs(), boot: stats.boots, ...h });
      if (gcLog.length > 5000) gcLog.splice(0, 1000);
    }
    core.PC = pc;
  } else {
    log(`unexpected breakpoint ${code} at 0x${pc.toString(16)}: the board stopped`);
    halted = `breakpoint ${code} at 0x${pc.toString(16)}`;
  }
}
let halted = null;
let rearmAlloc = false; // the BKPT at gc_alloc to put back after its first instruction

// ---- keys and pixels ---------------------------------------------------------------------

const keysDown = new Set(); // "row,col" pin pairs
const scans = []; // emulated ns of each scan's start (the first row driven low)
let scanCount = 0;
let lastScanBoot = 0;
const longGaps = []; // scans further apart than 60 ms (a key held less could be missed)
const presses = []; // {key, keyIndex, row, col, t, releaseT, firstScan, firstT, dueT, eventT, frameT, latencyNs}
let frameStart = null, lastEdge = 0, riseAt = 0, bits = [];
const frames = []; // {t, end, bytes}

// The rows driven low now: a column reads low when a closed key joins it to any of them, as
// on the real matrix (the firmware's interrupt first drives every row low at once and reads
// the columns once: hal_rp2.Hardware.sample_rows).
const lowRows = new Set();

function senseFor() {
  for (let c = 0; c < COLS.length; c++) {
    let down = false;
    for (const r of lowRows) if (keysDown.has(`${ROWS[r]},${COLS[c]}`)) down = true;
    mcu.gpio[COLS[c]].setInputValue(!down);
  }
}

function onRow(rowIdx, state) {
  if (state === GPIOPinState.Low) {
    lowRows.add(rowIdx);
    // A scan starts with row 0 low; the interrupt's look with every row low and the full
    // scan after it (a key closed) are one scan, well under 2 ms apart.
    const t0 = emulatedNs();
    if (rowIdx === 0 && !(scans.length && lastScanBoot === stats.boots &&
                          t0 - scans[scans.length - 1] < 2e6)) {
      const t = t0;
      scanCount++;
      if (scans.length && lastScanBoot === stats.boots) {
        const gap = t - scans[scans.length - 1];
        if (gap > stats.maxScanGapNs) stats.maxScanGapNs = gap;
        if (gap > 60e6) { stats.scanGapsOver60ms++; longGaps.push({ at: t, gap }); if (longGaps.length > 200) longGaps.shift(); }
        // the timer interrupt's scans (vora_fw.keysample) are period_ms apart but while
        // interrupts are off: how many gaps are how long
        stats.scanGaps[gap <= 6e6 ? 0 : gap <= 20e6 ? 1 : gap <= 60e6 ? 2 : 3]++;
      }
      lastScanBoot = stats.boots;
      scans.push(t);
      if (scans.length > 1000) scans.splice(0, 500);
    }
    for (const p of presses) {
      if (p.firstScan === undefined && keysDown.has(`${p.row},${p.col}`) && ROWS[rowIdx] === p.row) {
        p.firstScan = scanCount; p.firstT = scans[scans.length - 1];
        // vora_fw.keyscan: the change is reported at the first reading whose tick is
        // debounce_ms past the tick that first saw it (ticks_ms of this boot's timer)
        const local = p.firstT - stats.emulatedNsBefore;
        p.dueT = p.firstT - (local % 1e6) + DEBOUNCE_MS * 1e6;
      }
    }
    senseFor();
  } else {
    lowRows.delete(rowIdx);
    senseFor();
  }
}

// The key event: the firmware sends the PC a KEY message when a key event reaches the game,
// just before the game handles the key (vora_fw.app._scan_batch). With the timer interrupt
// the scan that sees the key is not the one that delivers it: the game's loop drains the
// interrupt's readings when it comes to it (vora_fw.keysample), possibly later. So the
// board's USB data is decoded (COBS frames, shared_rules.wire) and a press's event is its
// own KEY message (the key pressed), from its debounce time to its release + 1 s.
const WIRE_KEY = 0x16; // shared_rules.wire.KEY: u8 key index, u8 pressed
let usbFrame = [];
let usbText = 0; // board output that is no frame (a traceback): chunks still to log

function onKeyMessage(key, t) {
  for (const p of presses) {
    if (p.eventT === undefined && p.dueT !== undefined && p.keyIndex === key &&
        t >= p.dueT - 1e6 && (p.releaseT === undefined || t <= p.releaseT + 1e9)) {
      p.eventScan = scanCount; p.eventT = t; p.eventDelayNs = t - p.dueT;
      return;
    }
  }
}

function onUsbIn(buf) {
  const t = emulatedNs();
  for (const b of buf) {
    if (b !== 0) { if (usbFrame.length < 1200) usbFrame.push(b); continue; }
    // a frame's end: COBS-decode it (the body: type, seq, ack, length u16, payload, crc32)
    const body = [];
    for (let i = 0; i < usbFrame.length;) {
      const code = usbFrame[i++];
      for (let k = 1; k < code && i < usbFrame.length; k++) body.push(usbFrame[i++]);
      if (code < 0xff && i < usbFrame.length) body.push(0);
    }
    usbFrame = [];
    if (body.length === 11 && body[0] === WIRE_KEY && body[6] === 1) onKeyMessage(body[5], t);
  }
  // "Uncaught exception in IRQ callback handler" and its traceback, or any traceback
  const text = Buffer.from(buf).toString('latin1');
  if (text.includes('Traceback') || text.includes('Uncaught exception')) usbText = 20;
  if (usbText > 0) { usbText--; log(`board output at ${(t / 1e9).toFixed(3)} s: ${JSON.stringify(text)}`); }
}

function finishFrame() {
  if (frameStart === null) return;
  const bytes = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) {
    let v = 0;
    for (let k = 0; k < 8; k++) v = (v << 1) | bits[i + k];
    bytes.push(v);
  }
  frames.push({ t: frameStart, end: lastEdge, nbytes: bytes.length });
  if (frames.length > 2000) frames.splice(0, 1000);
  stats.frames++;
  frameStart = null;
  bits = [];
}

function onPixelPin(state) {
  const t = emulatedNs();
  if (state === GPIOPinState.High) {
    if (frameStart !== null && t - lastEdge > 50000) finishFrame();
    if (frameStart === null) {
      frameStart = t;
      for (const p of presses) {
        if (p.eventT !== undefined && p.frameT === undefined && t > p.eventT) {
          p.frameT = t; p.latencyNs = t - p.eventT; p.pressToFrameNs = t - p.t;
        }
      }
    }
    riseAt = t;
  } else if (state === GPIOPinState.Low && frameStart !== null) {
    bits.push(t - riseAt > 625 ? 1 : 0);
  }
  lastEdge = t;
}

// ---- the chip: made anew at power-up and at each reset -------------------------------------

function powerUp() {
  mcu = new RP2040(); // its own simulation clock: emulated time, not the PC's
  clock = mcu.clock;
  mcu.loadBootrom(bootrom);
  mcu.flash.set(flash);
  mcu.logger = { debug() {}, info() {}, warn() {}, error: (c, m) => log(`rp2040js ${c}: ${m}`) };
  mcu.onBreak = onBreak;
  mcu.peripherals[0x40058].onWatchdogTrigger = () => { resetPending = true; };
  armed = 'collect';
  rearmAlloc = false;
  cdcConnected = false;
  cdc = new USBCDC(mcu.usbCtrl);
  cdc.onDeviceConnected = () => { cdcConnected = true; log(`USB CDC connected (boot ${stats.boots}, ${(emulatedNs() / 1e9).toFixed(3)} s emulated)`); };
  cdc.onSerialData = (buf) => {
    onUsbIn(buf);
    if (serialClient) serialClient.write(Buffer.from(buf));
    if (echoToConsole) process.stderr.write(Buffer.from(buf));
  };
  ROWS.forEach((pin, i) => mcu.gpio[pin].addListener((s) => onRow(i, s)));
  mcu.gpio[PIXEL_PIN].addListener((s) => onPixelPin(s));
  lowRows.clear();
  senseFor();
  mcu.core.PC = FLASH_START; // boot2 at the start of flash, as rp2040js's MicroPython demo
  stats.boots++;
  frameStart = null; bits = [];
}
let echoToConsole = false;

function reset(why) {
  log(`reset (${why}) at ${(emulatedNs() / 1e9).toFixed(3)} s emulated: the chip restarts, its flash kept`);
  stats.emulatedNsBefore += clock.nanos;
  stats.resets++;
  toBoard.length = 0; // a USB device that went away took nothing of what was sent
  powerUp();
}

// ---- running -----------------------------------------------------------------------------

const waiters = []; // {untilNs, resolve}
let profile = null; // {n, pcs}: where the core spends its time, sampled
let funcs = null; // [addr, end, name] of the ELF's functions, sorted

function functionOf(pc) {
  if (!funcs) {
    funcs = [];
    for (const [name, v] of elf.symbols) if (v.size > 0) funcs.push([v.value & ~1, (v.value & ~1) + v.size, name]);
    funcs.sort((a, b) => a[0] - b[0]);
  }
  let lo = 0, hi = funcs.length - 1, best = null;
  while (lo <= hi) { const mid = (lo + hi) >> 1; if (funcs[mid][0] <= pc) { best = funcs[mid]; lo = mid + 1; } else hi = mid - 1; }
  return best && pc < best[1] ? best[2] : `0x${pc.toString(16)}`;
}
const clockFd = args.clockFile ? fs.openSync(args.clockFile, 'w+') : null;
const clockBuf = Buffer.alloc(8);
if (clockFd !== null) fs.writeSync(clockFd, clockBuf, 0, 8, 0);
let running = true;

function runSlice() {
  if (!running) return;
  const until = Date.now() + 20;
  const core = mcu.core;
  while (Date.now() < until && !halted) {
    for (let i = 0; i < 20000 && !halted; i++) {
      if (core.waiting) {
        const n = clock.nanosToNextAlarm;
        clock.tick(n > 0 ? n : NS_PER_CYCLE);
      } else {
        clock.tick(core.executeInstruction() * NS_PER_CYCLE);
        if (rearmAlloc && core.PC !== FN.alloc) { rearmAlloc = false; setRamHalf(FN.alloc, bkpt(BK_ALLOC)); }
        if (profile && ++profile.n % 97 === 0) profile.pcs.push(core.PC);
      }
      if (resetPending) break;
    }
    if (resetPending) { resetPending = false; reset('watchdog'); }
    if (cdcConnected) {
      while (toBoard.length && !cdc.txFIFO.full) cdc.sendSerialByte(toBoard.shift());
    }
    const now = emulatedNs();
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (now >= waiters[i].untilNs) { waiters[i].resolve(); waiters.splice(i, 1); }
    }
    if (frameStart !== null && now - lastEdge > 50000) finishFrame();
    if (clockFd !== null) { clockBuf.writeDoubleLE(now / 1e9, 0); fs.writeSync(clockFd, clockBuf, 0, 8, 0); }
  }
  setImmediate(runSlice);
}

function waitUntil(ns) { return new Promise((resolve) => waiters.push({ untilNs: ns, resolve })); }
const waitMs = (ms) => waitUntil(emulatedNs() + ms * 1e6);

// ---- the serial port (USB CDC) on TCP --------------------------------------------------------

const serialServer = net.createServer((sock) => {
  if (serialClient) serialClient.destroy();
  serialClient = sock;
  sock.setNoDelay(true);
  sock.on('data', (d) => { if (cdcConnected) for (const b of d) toBoard.push(b); });
  sock.on('close', () => { if (serialClient === sock) serialClient = null; });
  sock.on('error', () => {});
});

// ---- control port ------------------------------------------------------------------------

async function control(req) {
  switch (req.cmd) {
    case 'status': {
      const realS = (Date.now() - stats.startReal) / 1000;
      return { ...stats, emulated_ns: emulatedNs(), real_s: realS, speed: emulatedNs() / 1e9 / realS,
        connected: cdcConnected, mhz: MHZ, clk_sys: mcu.clkSys, halted, heap_layout: !!heapLayout };
    }
    case 'heap': return { now: heapNow(), last: gcLog[gcLog.length - 1] || null, collections: stats.collections };
    case 'profile': { // sample the core's PC for ms of emulated time: the functions it is in
      profile = { n: 0, pcs: [] };
      await waitMs(req.ms ?? 1000);
      const counts = new Map();
      for (const pc of profile.pcs) { const f = functionOf(pc); counts.set(f, (counts.get(f) || 0) + 1); }
      const total = profile.pcs.length;
      profile = null;
      return { samples: total, top: [...counts].sort((a, b) => b[1] - a[1]).slice(0, req.top ?? 25).map(([f, c]) => [f, +(100 * c / total).toFixed(1)]) };
    }
    case 'scan_gaps': return { gaps: longGaps.filter((g) => g.at > (req.after_ns || 0)), scans: scanCount };
    case 'gc_log': return { log: gcLog.filter((g) => g.seq > (req.after || 0)) };
    case 'wait_ms': await waitMs(req.ms); return { emulated_ns: emulatedNs() };
    case 'tap': { // press a key for hold_ms and release it, then gap_ms (emulated time)
      const keyId = `${req.row},${req.col}`;
      const p = { key: req.key, keyIndex: ROWS.indexOf(req.row) * 7 + COLS.indexOf(req.col), row: req.row, col: req.col, t: emulatedNs() };
      presses.push(p);
      if (presses.length > 200) presses.splice(0, 100);
      keysDown.add(keyId);
      await waitMs(req.hold_ms ?? 60);
      keysDown.delete(keyId);
      p.releaseT = emulatedNs();
      await waitMs(req.gap_ms ?? 60);
      // the game's loop may take the key later than that (its KEY message): a second
      // after the release at most; then a key whose handling outlasts the tap (a move
      // played: the next legal moves, the save): its frame is waited for, a second at most
      while (p.eventT === undefined && p.firstT !== undefined && emulatedNs() < p.releaseT + 1e9) await waitMs(10);
      for (let i = 0; i < 100 && p.eventT !== undefined && p.frameT === undefined; i++) await waitMs(10);
      return { key_to_frame_ns: p.latencyNs ?? null, press_to_frame_ns: p.pressToFrameNs ?? null,
        event_delay_ns: p.eventDelayNs ?? null, event_scan: p.eventScan ?? null };
    }
    case 'hold': keysDown.add(`${req.row},${req.col}`); return {};
    case 'release': keysDown.delete(`${req.row},${req.col}`); return {};
    case 'reset': reset(req.why || 'power cut'); return { boots: stats.boots };
    case 'save_flash': fs.writeFileSync(req.path, flash); return { path: req.path };
    case 'echo': echoToConsole = !!req.on; return {};
    case 'quit': setTimeout(() => process.exit(0), 50); return {};
    default: return { error: `unknown command ${req.cmd}` };
  }
}

const controlServer = net.createServer((sock) => {
  let buf = '';
  sock.on('data', (d) => {
    buf += d.toString('utf8');
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl); buf = buf.slice(nl + 1);
      let req;
      try { req = JSON.parse(line); } catch { sock.write(JSON.stringify({ error: 'bad JSON' }) + '\n'); continue; }
      control(req).then((r) => sock.write(JSON.stringify({ id: req.id, ...r }) + '\n'),
        (e) => sock.write(JSON.stringify({ id: req.id, error: String(e) }) + '\n'));
    }
  });
  sock.on('error', () => {});
});

powerUp();
serialServer.listen(args.serialPort, '127.0.0.1', () => {
  controlServer.listen(args.controlPort, '127.0.0.1', () => {
    // The driver reads this line for the ports.
    console.log(JSON.stringify({ serial: serialServer.address().port, control: controlServer.address().port,
      firmware: args.firmware, flash_functions: { erase: FN.erase, program: FN.program } }));
    setImmediate(runSlice);
  });
});
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
