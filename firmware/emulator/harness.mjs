// The emulated board: tengen's RP2040 image, unmodified, on rp2040js (an RP2040 emulator on
// virtual time), with the board around it modelled by the process that started this one
// (`tengen-emulated-board`, firmware/host/), which runs tengen-sim's physical model.
//
//   node harness.mjs --image path/to/tengen-firmware.elf [--size 9|13|19]
//
// Booting: no boot ROM is loaded or needed. The ELF's loadable segments go into the
// emulated flash at their load addresses (the second stage boot loader at 0x10000000, the
// vector table at 0x10000100, code and .data's initial values after it), VTOR is set to the
// vector table, and the core is reset from it (stack pointer from word 0, entry from word
// 1), which is what the boot ROM and boot2 end with on the chip. boot2 itself (it sets up
// the QSPI flash, which the emulator maps directly) never runs.
//
// The lockstep protocol on standard input and output, one chunk of 1 ms of virtual time at a
// time (all integers little-endian):
//
//   in   'B' u32 ms, u8 buttons (bit 0 Black's closed, bit 1 White's), u16 n, n x u16
//        readings: the board during [ms, ms + 1): run that millisecond.
//   out  'H': loaded (rp2040js and the image), once at start, before anything else.
//   in   'E': finish: write the summary and exit.
//   out  'U' u16 n, n x (u32 ns into the chunk, u8 byte): what the firmware wrote to UART0.
//   out  'S' u64 first conversion's start, u64 last conversion's end (ns): one scan.
//   out  'R' u32 ms, u64 instructions so far: the chunk is done.
//   out  'Z' u32 len, JSON: the summary (instructions, wall time, conversions, unsettled
//        reads, the pins the firmware drove), after 'E'.
//
// The board model: a conversion of ADC input `i` reads point `p` of the snapshot, where the
// address lines on GPIO 2..5 (S0..S3, first level) and 6..9 (T0..T3, second level) select
// multiplexer `m = 16 i + T` and its input `S`, and `p = 16 m + S` (the standard wiring,
// firmware/core/src/mux_scan.rs). A conversion that starts less than SETTLE_NS after the
// lines last changed reads what the input carried before (the multiplexers and the
// sampling capacitor have not settled); those are counted, so a firmware that does not wait
// shows. The buttons are switches to ground on GPIO 14 and 15 with pull-ups; the board
// size is strapped on GPIO 10 and 11.

import { readFileSync, readSync, writeSync } from 'node:fs';
import { RP2040, ConsoleLogger, LogLevel } from 'rp2040js';

const FLASH = 0x10000000;
const VECTORS = FLASH + 0x100;
const NS_PER_CYCLE = 8; // clk_sys at 125 MHz, as the firmware sets it up
const ADDRESS_PINS = [2, 3, 4, 5, 6, 7, 8, 9];
const BUTTON_PINS = [14, 15];
const UART_TX_PIN = 0;
const SETTLE_NS = 1000;
// The board size, strapped on GPIO 10 (13x13) or 11 (9x9) to ground; 19x19 with neither.
const SIZE_STRAPS = { 9: [11], 13: [10], 19: [] };
const SIZE = Number(argument('--size') ?? 19);
if (!(SIZE in SIZE_STRAPS)) fail(`--size ${SIZE}: the firmware is strapped for 9, 13 or 19`);
const POINTS = SIZE * SIZE;
const MUXES = Math.ceil(POINTS / 16);
// A gap this long between two conversions starts a new scan.
const SCAN_GAP_NS = 1_000_000;

function fail(message) {
  process.stderr.write(`harness: ${message}\n`);
  process.exit(2);
}

function argument(name) {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

function imagePath() {
  const image = argument('--image');
  if (!image) fail('usage: node harness.mjs --image FIRMWARE.elf [--size 9|13|19]');
  return image;
}

/** Copies the ELF's loadable segments into flash at their physical (load) addresses. */
function loadElf(mcu, path) {
  let elf;
  try {
    elf = readFileSync(path);
  } catch (e) {
    fail(`cannot read the image ${path}: ${e.message}`);
  }
  const dv = new DataView(elf.buffer, elf.byteOffset, elf.byteLength);
  if (elf.length < 52 || dv.getUint32(0, false) !== 0x7f454c46) {
    fail(`${path} is not an ELF file`);
  }
  if (elf[4] !== 1 || elf[5] !== 1 || dv.getUint16(18, true) !== 40) {
    fail(`${path} is not a 32-bit little-endian Arm ELF (build it for thumbv6m-none-eabi)`);
  }
  const phoff = dv.getUint32(0x1c, true);
  const phentsize = dv.getUint16(0x2a, true);
  const phnum = dv.getUint16(0x2c, true);
  let loaded = 0;
  for (let i = 0; i < phnum; i++) {
    const o = phoff + i * phentsize;
    const type = dv.getUint32(o, true);
    const offset = dv.getUint32(o + 4, true);
    const paddr = dv.getUint32(o + 12, true);
    const filesz = dv.getUint32(o + 16, true);
    if (type !== 1 || filesz === 0) continue;
    if (paddr < FLASH || paddr + filesz > FLASH + mcu.flash.length) {
      fail(`${path}: a segment loads at 0x${paddr.toString(16)}, outside the flash`);
    }
    mcu.flash.set(elf.subarray(offset, offset + filesz), paddr - FLASH);
    loaded += filesz;
  }
  if (loaded === 0) fail(`${path} has nothing to load`);
  return loaded;
}

// Blocking reads and writes on the pipes: the protocol is lockstep.
const input = { buf: Buffer.alloc(1 << 16), start: 0, end: 0 };
function readExact(n) {
  while (input.end - input.start < n) {
    if (input.start > 0) {
      input.buf.copy(input.buf, 0, input.start, input.end);
      input.end -= input.start;
      input.start = 0;
    }
    let got;
    try {
      got = readSync(0, input.buf, input.end, input.buf.length - input.end, null);
    } catch (e) {
      if (e.code === 'EAGAIN') continue;
      throw e;
    }
    if (got === 0) process.exit(0); // the host went away
    input.end += got;
  }
  const out = input.buf.subarray(input.start, input.start + n);
  input.start += n;
  return out;
}

function writeAll(buf) {
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(1, buf, off, buf.length - off);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
    }
  }
}

const mcu = new RP2040();
mcu.logger = new ConsoleLogger(LogLevel.Error, true);
const imageBytes = loadElf(mcu, imagePath());
// RAM painted before the reset: at the end, the lowest byte the stack changed below its top
// (0x20040000, the end of the 256 KiB of striped SRAM) gives its high-water mark.
const STACK_TOP = 0x40000;
const PAINT = 0xa5;
mcu.sram.fill(PAINT);
mcu.core.VTOR = VECTORS;
mcu.core.reset();
const { core, clock } = mcu;

// The board's state for the running chunk.
let readings = new Uint16Array(POINTS);
let lastSelectNs = -1e12;
let conversions = 0;
let unsettled = 0;
let lastPoint = [0, 0, 0, 0];
let scanStart = -1;
let scanEnd = -1;
let lastConversionNs = -1e12;
const scans = [];
for (const pin of ADDRESS_PINS) {
  mcu.gpio[pin].addListener(() => {
    lastSelectNs = clock.nanos;
  });
}

function pointAt(input) {
  const lines = (mcu.sio.gpioValue >>> 2) & 0xff;
  const mux = input * 16 + (lines >>> 4);
  const point = mux * 16 + (lines & 0xf);
  return mux < MUXES && point < POINTS ? point : -1;
}

const adc = mcu.adc;
adc.onADCRead = (input) => {
  const now = clock.nanos;
  conversions++;
  if (now - lastConversionNs > SCAN_GAP_NS) {
    if (scanStart >= 0) scans.push([scanStart, scanEnd]);
    scanStart = now;
  }
  lastConversionNs = now;
  scanEnd = now + adc.sampleTime * 1000;
  let point = pointAt(input);
  if (now - lastSelectNs < SETTLE_NS) {
    unsettled++;
    point = lastPoint[input] ?? -1;
  }
  lastPoint[input] = point;
  // An input with nothing on it floats: it reads 0 here.
  adc.channelValues[input] = point >= 0 ? readings[point] : 0;
  adc.currentChannel = input;
  adc.sampleAlarm.schedule(adc.sampleTime * 1000);
};

let uartBytes = [];
let chunkStartNs = 0;
mcu.uart[0].onByte = (b) => {
  uartBytes.push(clock.nanos - chunkStartNs, b);
};
let baud = 0;
mcu.uart[0].onBaudRateChange = (rate) => {
  baud = rate;
};

// Buttons idle: pulled up, open. The size straps as the board is built.
for (const pin of BUTTON_PINS) mcu.gpio[pin].setInputValue(true);
for (const pin of [10, 11]) mcu.gpio[pin].setInputValue(!SIZE_STRAPS[SIZE].includes(pin));

let instructions = 0;
let wfiFixes = 0;
function runUntil(targetNs) {
  while (clock.nanos < targetNs) {
    // rp2040js 1.4.1 leaves a WFI waiting when the interrupt that should end it was already
    // pending as the WFI ran (with PRIMASK set, as the firmware's sleeps are written, the
    // Armv6-M rule is that a pending interrupt ends the WFI at once). Do what the core
    // would.
    if (core.waiting && core.pendingInterrupts & core.enabledInterrupts) {
      core.waiting = false;
      wfiFixes++;
    }
    if (core.waiting) {
      const toAlarm = clock.nextAlarm ? clock.nanosToNextAlarm : Infinity;
      clock.tick(Math.max(0, Math.min(toAlarm, targetNs - clock.nanos)));
    } else {
      clock.tick(core.executeInstruction() * NS_PER_CYCLE);
      instructions++;
    }
  }
}

writeAll(Buffer.from('H'));
const started = process.hrtime.bigint();
let chunks = 0;
for (;;) {
  const kind = readExact(1)[0];
  if (kind === 0x45 /* E */) break;
  if (kind !== 0x42 /* B */) fail(`unknown message 0x${kind.toString(16)} from the host`);
  const head = readExact(7);
  const ms = head.readUInt32LE(0);
  const buttons = head[4];
  const n = head.readUInt16LE(5);
  if (n !== POINTS) fail(`a snapshot of ${n} points, the harness models ${POINTS}`);
  const body = readExact(2 * n);
  readings = new Uint16Array(body.buffer.slice(body.byteOffset, body.byteOffset + 2 * n));
  for (let i = 0; i < 2; i++) mcu.gpio[BUTTON_PINS[i]].setInputValue(!(buttons & (1 << i)));
  chunkStartNs = ms * 1e6;
  uartBytes = [];
  runUntil((ms + 1) * 1e6);
  chunks++;
  const parts = [];
  if (uartBytes.length > 0) {
    const count = uartBytes.length / 2;
    const u = Buffer.alloc(3 + 5 * count);
    u[0] = 0x55;
    u.writeUInt16LE(count, 1);
    for (let i = 0; i < count; i++) {
      u.writeUInt32LE(Math.max(0, Math.round(uartBytes[2 * i])), 3 + 5 * i);
      u[7 + 5 * i] = uartBytes[2 * i + 1];
    }
    parts.push(u);
  }
  // A scan is over once no conversion has come for the gap.
  if (scanStart >= 0 && clock.nanos - lastConversionNs > SCAN_GAP_NS) {
    scans.push([scanStart, scanEnd]);
    scanStart = -1;
  }
  for (const [s, e] of scans) {
    const m = Buffer.alloc(17);
    m[0] = 0x53;
    m.writeBigUInt64LE(BigInt(Math.round(s)), 1);
    m.writeBigUInt64LE(BigInt(Math.round(e)), 9);
    parts.push(m);
  }
  scans.length = 0;
  const r = Buffer.alloc(13);
  r[0] = 0x52;
  r.writeUInt32LE(ms, 1);
  r.writeBigUInt64LE(BigInt(instructions), 5);
  parts.push(r);
  writeAll(Buffer.concat(parts));
}

const wallS = Number(process.hrtime.bigint() - started) / 1e9;
// The stack grows down from STACK_TOP (statics sit at the bottom of RAM): its deepest
// write is just above the first run of 256 painted bytes below the top.
let deepest = STACK_TOP;
for (let a = STACK_TOP - 1, run = 0; a >= 0; a--) {
  if (mcu.sram[a] !== PAINT) {
    run = 0;
  } else if (++run >= 256) {
    deepest = a + run;
    break;
  }
}
const summary = JSON.stringify({
  emulator: 'rp2040js',
  image_bytes: imageBytes,
  virtual_s: clock.nanos / 1e9,
  wall_s: wallS,
  chunks,
  size: SIZE,
  instructions,
  mips: instructions / wallS / 1e6,
  conversions,
  unsettled_conversions: unsettled,
  stack_bytes: STACK_TOP - deepest,
  wfi_fixes: wfiFixes,
  uart_baud: baud,
  uart_tx_function: mcu.gpio[UART_TX_PIN].functionSelect,
  pc: core.PC,
});
const z = Buffer.alloc(5);
z[0] = 0x5a;
z.writeUInt32LE(Buffer.byteLength(summary), 1);
writeAll(Buffer.concat([z, Buffer.from(summary)]));
