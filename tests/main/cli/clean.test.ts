import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptySplats } from '../../../shared/scene/splats.js';
import { writePly } from '../../../main/engine/formats/ply.js';
import { createSplatProject } from '../../../main/engine/project/import.js';
import { cliJson } from '../../helpers/cli-json.js';
import { tempDir } from '../../helpers/datasets.js';
import { hashTree } from '../../helpers/projects.js';
import { freshSeed, rng } from '../../helpers/random.js';

const seed = freshSeed();
const logit = (p: number) => Math.log(p / (1 - p));

/** 3000 opaque small splats on the unit sphere, 10 isolated specks at radius 2..3, 5 huge faint splats inside. */
async function plantedProject() {
  const random = rng(seed);
  const [object, specks, huge] = [3000, 10, 5];
  const splats = emptySplats(object + specks + huge, 0);
  for (let i = 0; i < splats.count; i++) {
    const z = random() * 2 - 1;
    const phi = random() * 2 * Math.PI;
    const s = Math.sqrt(1 - z * z);
    const r = i < object ? 1 : i < object + specks ? 2 + random() : 0.4 * random();
    splats.means.set([r * s * Math.cos(phi), r * z, r * s * Math.sin(phi)], 3 * i);
    const scale = i >= object + specks ? Math.log(0.5) : Math.log(0.01);
    splats.logScales.set([scale, scale, scale], 3 * i);
    splats.quats.set([1, 0, 0, 0], 4 * i);
    splats.opacityLogits[i] = logit(i >= object + specks ? 0.03 : 0.8);
  }
  const dir = await tempDir('cli-clean');
  const ply = path.join(dir, 'in.ply');
  await writePly(ply, splats);
  const project = await createSplatProject(ply, path.join(dir, 'scene.argo'));
  return { file: project.file, total: splats.count, floaters: specks + huge };
}

describe(`clean (CLI, seed ${seed})`, () => {
  it('previews with --dry-run (project untouched), removes the planted floaters as an edit, finds nothing more, and undo brings them back', async () => {
    const { file, total, floaters } = await plantedProject();
    const radius = ['--clean-radius', '0.15']; // 3000 splats on the sphere: ~17 neighbours within 0.15
    const before = hashTree(path.dirname(file));
    const dry = await cliJson(['clean', file, '--strength', '0.5', ...radius, '--dry-run']);
    expect(dry.code, dry.err).toBe(0);
    expect(dry.result).toMatchObject({ applied: false, selected: floaters, splats: total, strength: 0.5, reasons: { opacity: 5, size: 5, unseen: 0 } });
    expect(hashTree(path.dirname(file))).toEqual(before);

    const applied = await cliJson(['clean', file, '--strength', '0.5', ...radius]);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.result).toMatchObject({ applied: true, selected: floaters, edits: { operations: 1, before: total, after: total - floaters, counts: { clean: 1 } } });
    const listed = await cliJson(['edit', file, '--list']);
    expect((listed.result as { list: { operations: unknown[] } }).list.operations).toMatchObject([{ op: 'clean', selection: { count: floaters }, params: { 'edit.cleanStrength': 0.5, 'edit.cleanRadius': 0.15 } }]);

    // the removed splats are excluded now: the same cleanup finds nothing more and changes nothing
    const again = await cliJson(['clean', file, '--strength', '0.5', ...radius]);
    expect(again.result).toMatchObject({ applied: false, selected: 0 });
    expect((await cliJson(['edit', file, '--undo'])).result).toMatchObject({ summary: { operations: 0, after: total } });
  });

  it('removes nothing at strength 0 and refuses bad values by name (flag values are usage mistakes: exit 2), the project byte-identical', async () => {
    const { file } = await plantedProject();
    const before = hashTree(path.dirname(file));
    expect((await cliJson(['clean', file, '--strength', '0'])).result).toMatchObject({ applied: false, selected: 0 });
    const tooStrong = await cliJson(['clean', file, '--strength', '2']);
    expect(tooStrong.code).toBe(2);
    expect(tooStrong.error?.message ?? tooStrong.err).toMatch(/--strength: 2 is out of range \[0, 1\]/);
    const notNumber = await cliJson(['clean', file, '--clean-neighbours', 'many']);
    expect(notNumber.code).toBe(2);
    expect(notNumber.error?.message ?? notNumber.err).toMatch(/--clean-neighbours: expected a number/);
    expect((await cliJson(['clean', path.join(path.dirname(file), 'missing.argo')])).code).not.toBe(0);
    expect(hashTree(path.dirname(file))).toEqual(before);
  });
});
