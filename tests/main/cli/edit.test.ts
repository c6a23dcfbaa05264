import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writePly } from '../../../main/engine/formats/ply.js';
import { encodeSelection } from '../../../main/engine/edit/selection-file.js';
import { createSplatProject } from '../../../main/engine/project/import.js';
import { cliJson } from '../../helpers/cli-json.js';
import { tempDir } from '../../helpers/datasets.js';
import { hashTree } from '../../helpers/projects.js';
import { freshSeed } from '../../helpers/random.js';
import { randomSplats } from '../../helpers/splat-sets.js';

const seed = freshSeed();

async function project(count: number) {
  const dir = await tempDir('cli-edit');
  const ply = path.join(dir, 'in.ply');
  const splats = randomSplats(count, 2, seed);
  await writePly(ply, splats);
  const p = await createSplatProject(ply, path.join(dir, 'scene.argo'));
  return { dir, file: p.file, splats };
}

describe(`edit (CLI, seed ${seed})`, () => {
  it('deletes listed indices, crops, transforms, lists, undoes, redoes and clears; export sees the edits', async () => {
    const { dir, file, splats } = await project(400);
    const indices = path.join(dir, 'gone.txt');
    writeFileSync(indices, '7\n3, 3\n100 5\n');
    const deleted = await cliJson(['edit', file, '--delete-indices', indices, '--label', 'four floaters']);
    expect(deleted.code).toBe(0);
    expect(deleted.result).toMatchObject({ action: 'delete-indices', summary: { operations: 1, before: 400, after: 396 }, list: { operations: [{ op: 'delete', label: 'four floaters', selection: { count: 4 } }] } });

    // a box around the origin: the reference count of centres inside it, from the splats themselves
    const inside = Array.from({ length: 400 }, (_, i) => i).filter((i) => ![3, 5, 7, 100].includes(i) && [0, 1, 2].every((a) => Math.abs(splats.means[3 * i + a]) <= 30)).length;
    const cropped = await cliJson(['edit', file, '--crop', '0,0,0,30,30,30']);
    expect(cropped.result).toMatchObject({ summary: { operations: 2, after: inside, counts: { delete: 1, crop: 1 } } });
    const moved = await cliJson(['edit', file, '--transform', '1,0,0,0,0,0,1,2']);
    expect(moved.result).toMatchObject({ summary: { operations: 3, after: inside } });
    const out = path.join(dir, 'edited.ply');
    const exported = await cliJson(['export', file, '--format', 'ply', '--out', out]);
    expect(exported.result).toMatchObject({ splats: inside });

    const listed = await cliJson(['edit', file, '--list']);
    expect((listed.result as unknown as { list: { operations: { op: string }[] } }).list.operations.map((o) => o.op)).toEqual(['delete', 'crop', 'transform']);
    expect((await cliJson(['edit', file, '--undo'])).result).toMatchObject({ summary: { operations: 2, undone: 1 } });
    expect((await cliJson(['edit', file, '--redo'])).result).toMatchObject({ summary: { operations: 3, undone: 0 } });
    const cleared = await cliJson(['edit', file, '--clear']);
    expect(cleared.result).toMatchObject({ summary: { operations: 0, after: 400 } });
    expect((await cliJson(['edit', file, '--undo'])).code).toBe(3); // nothing to undo
  });

  it('refuses bad input by name (exit 3; usage mistakes exit 2) and leaves the project byte-identical', async () => {
    const { file } = await project(50);
    expect((await cliJson(['edit', file, '--crop', '0,0,0,1,1,1'])).code).toBe(0);
    const before = hashTree(path.dirname(file));
    const dir = await tempDir('cli-edit-inputs');
    const badText = path.join(dir, 'bad.txt');
    writeFileSync(badText, '1\n2\nthree\n');
    const badSel = path.join(dir, 'bad.sel');
    writeFileSync(badSel, encodeSelection(Uint32Array.of(1, 2), 50).subarray(0, 18));
    const range = path.join(dir, 'range.txt');
    writeFileSync(range, '1 50');
    const cases: [string[], number, string][] = [
      [['--crop', '0,0,NaN,1,1,1'], 3, '--crop: value 3 is "NaN", not a finite number'],
      [['--crop', '0,0,0,1,-1,1'], 3, '--crop: half size y is -1; half sizes must be > 0'],
      [['--crop', '0,0,0,1,1'], 3, '--crop: expected cx,cy,cz,hx,hy,hz[,qx,qy,qz,qw] (6 or 10 comma-separated numbers), got 5'],
      [['--crop', '0,0,0,1,1,1,0,0,0,0'], 3, '--crop: the rotation quaternion (x, y, z, w) is zero'],
      [['--transform', '0,0,0,0,0,0,1,0'], 3, '--transform: scale is 0; it must be > 0'],
      [['--transform', '0,0,0,0,0,0,1,Infinity'], 3, '--transform: value 8 is "Infinity", not a finite number'],
      [['--delete-indices', badText], 3, `${badText}: entry 3 is "three", not a splat index`],
      [['--delete-indices', badSel], 3, `${badSel}: the header says 2 indices`],
      [['--delete-indices', range], 3, "the delete edit's selection: index 1 is 50, not below the base's 50 splats"],
      [['--delete-indices', path.join(dir, 'missing.txt')], 3, 'missing.txt: cannot read the indices file (ENOENT)'],
      [['--redo'], 3, 'nothing to redo'],
      [['--melt'], 2, 'unknown option --melt'],
      [['--undo', '--redo'], 2, 'choose one of'],
      [[], 2, 'say what to do'],
      [['--list', '--label', 'x'], 2, '--label names a new edit'],
    ];
    for (const [args, code, message] of cases) {
      const run = await cliJson(['edit', file, ...args]);
      expect(run.code, args.join(' ')).toBe(code);
      expect(run.err, args.join(' ')).toContain(message);
    }
    expect(hashTree(path.dirname(file))).toEqual(before);
    expect(JSON.parse(readFileSync(file, 'utf8')).edits.current.operations).toHaveLength(1);
  });
});
