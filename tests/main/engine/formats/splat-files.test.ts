import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSplatsFile, splatFormatOf, writeSplatsAs } from '../../../../main/engine/formats/splat-files.js';
import { EXPORT_FORMATS } from '../../../../shared/project/manifest.js';
import { randomSplats } from '../../../helpers/splat-sets.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';

const temp = cleanedTempDirs(afterAll);

describe('splat files by format and extension', () => {
  it('every export format has an extension, and a file written as a format reads back as it (count, degree, flag where kept)', async () => {
    const dir = await temp('splat-files');
    const s = randomSplats(20, 1, 3);
    for (const format of EXPORT_FORMATS) {
      const file = path.join(dir, `x.${format.toUpperCase()}`); // extensions are case-blind
      expect(splatFormatOf(file)).toBe(format);
      await writeSplatsAs(format, file, s, { antialiased: true });
      const read = await readSplatsFile(file);
      expect(read.format).toBe(format);
      expect(read.splats.count).toBe(20);
      expect(read.splats.shDegree).toBe(format === 'splat' ? 0 : 1);
      expect(read.antialiased).toBe(format === 'ply' || format === 'splat' ? undefined : true);
    }
  });

  it('refuses an unknown extension and a missing file, naming it', async () => {
    const dir = await temp('splat-files');
    await writeFile(path.join(dir, 'notes.txt'), 'hello');
    await expect(readSplatsFile(path.join(dir, 'notes.txt'))).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/notes\.txt: not a splat file this reads \(by its extension: \.ply, \.splat, \.spz, \.sog, \.glb\)/) });
    await expect(readSplatsFile(path.join(dir, 'gone.spz'))).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining('gone.spz: no such file') });
  });
});
