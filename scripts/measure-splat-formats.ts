/**
 * Time and bytes of every splat format's writer and reader on one machine (docs/formats.md):
 *   node scripts/measure-splat-formats.mjs [splats] [format,format...]
 * Two models: the garden's 138,766 SfM points dressed as degree-3 splats (nearest-neighbour
 * sized, SfM colours, small SH rest: a freshly initialized scene), and N random splats (default
 * 300,000, degree 3: the worst case for compression). Bundled and run by the .mjs beside it.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { npzArray, npyNumbers, readNpz } from '../main/engine/formats/npz.js';
import { parseSplatsAs, writeSplatsAs } from '../main/engine/formats/splat-files.js';
import { EXPORT_FORMATS } from '../shared/project/manifest.js';
import { emptySplats, SH_C0, type SplatSet } from '../shared/scene/splats.js';

function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function dress(positions: Float64Array | Float32Array, colours: Float64Array | undefined, count: number, seed: number): SplatSet {
  const random = rng(seed);
  const s = emptySplats(count, 3);
  s.means.set(positions.subarray(0, count * 3));
  for (let i = 0; i < count; i++) {
    for (let a = 0; a < 3; a++) s.logScales[3 * i + a] = Math.log(0.01 + 0.05 * random());
    const q = [random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5];
    s.quats.set(q, 4 * i);
    s.opacityLogits[i] = -2 + 4 * random();
    for (let c = 0; c < 3; c++) s.sh[i * 48 + c] = colours ? (colours[3 * i + c] / 255 - 0.5) / SH_C0 : 3 * (random() - 0.5);
    for (let k = 3; k < 48; k++) s.sh[i * 48 + k] = 0.05 * (random() - 0.5);
  }
  return s;
}

async function measure(name: string, splats: SplatSet): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'formats-'));
  console.log(`\n${name}: ${splats.count.toLocaleString()} splats, SH degree ${splats.shDegree}`);
  console.log('format  write ms  read ms  bytes        bytes/splat');
  try {
    for (const format of EXPORT_FORMATS.filter((f) => !only || only.includes(f))) {
      const file = path.join(dir, `x.${format}`);
      let t = performance.now();
      await writeSplatsAs(format, file, splats);
      const write = performance.now() - t;
      const bytes = (await stat(file)).size;
      const data = await readFile(file);
      t = performance.now();
      await parseSplatsAs(format, data, file);
      const read = performance.now() - t;
      console.log(`${format.padEnd(6)}  ${write.toFixed(0).padStart(8)}  ${read.toFixed(0).padStart(7)}  ${bytes.toLocaleString().padStart(11)}  ${(bytes / splats.count).toFixed(1).padStart(11)}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const count = Number(process.argv[2] ?? 300_000);
const only = process.argv[3]?.split(',');
const garden = path.resolve('../shared/data/gsplat_test_garden/test_garden.npz');
const arrays = await readNpz(garden).catch(() => undefined);
if (arrays) {
  const means = npyNumbers(npzArray(arrays, 'means3d', garden), garden, 'means3d');
  const colours = npyNumbers(npzArray(arrays, 'colors', garden), garden, 'colors');
  await measure('garden SfM points as splats', dress(means, colours, means.length / 3, 1));
} else console.log(`(skipped the garden model: ${garden} is absent)`);
const random = rng(2);
await measure('random splats', dress(Float64Array.from({ length: count * 3 }, () => 100 * (random() - 0.5)), undefined, count, 3));
