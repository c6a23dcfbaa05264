import { describe, expect, it } from 'vitest';
import { testGpu } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { extractAll } from '../../../../main/engine/sfm/extract-all.js';
import { SiftExtractor, type Features } from '../../../../main/engine/sfm/features.js';
import type { GreyImage } from '../../../../main/engine/sfm/grey-image.js';
import { blobImage } from './sift-images.js';

/** Images by name, of two sizes (the extractor's plan changes between them), loaded asynchronously. */
function imageSet(seed: number) {
  const random = rng(seed);
  const images = new Map<string, GreyImage>([
    ['a.png', blobImage(120, 90, random)],
    ['b.png', blobImage(120, 90, random)],
    ['c.png', blobImage(96, 110, random)],
    ['d.png', blobImage(120, 90, random)],
  ]);
  const events: string[] = [];
  const load = async (file: string) => {
    events.push(`load ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
    const image = images.get(file);
    if (!image) throw new Error('no such image');
    return image;
  };
  return { images, events, load };
}

describe('extractAll', async () => {
  const ctx = await testGpu();

  it("gives each file's features in order, the bytes of one extract at a time, with the next image loaded before this one's features are out", async () => {
    const seed = freshSeed();
    const { images, events, load } = imageSet(seed);
    const files = [...images.keys()];
    const extractor = await SiftExtractor.create(ctx);
    const all = await extractAll(extractor, files, { load, onEach: (f, i, file) => void events.push(`features ${file} ${i} ${f.keypoints.length / 4}`) });
    const one: Features[] = [];
    for (const file of files) one.push(await extractor.extract(images.get(file)!));
    extractor.destroy();
    expect(all).toHaveLength(files.length);
    all.forEach((f, i) => {
      expect(f.keypoints.length, `${files[i]}, seed ${seed}`).toBeGreaterThan(0);
      expect([f.width, f.height]).toEqual([images.get(files[i])!.width, images.get(files[i])!.height]);
      expect(Buffer.from(f.keypoints.buffer).equals(Buffer.from(one[i].keypoints.buffer)), `${files[i]}, seed ${seed}`).toBe(true);
      expect(Buffer.from(f.descriptors).equals(Buffer.from(one[i].descriptors)), `${files[i]}, seed ${seed}`).toBe(true);
    });
    // every image but the last: the next one's load started before its features were reported
    for (let i = 0; i + 1 < files.length; i++) expect(events.indexOf(`load ${files[i + 1]}`)).toBeLessThan(events.findIndex((e) => e.startsWith(`features ${files[i]} ${i}`)));
    expect(events.filter((e) => e.startsWith('features')).map((e) => e.split(' ')[1])).toEqual(files);
  });

  it('names the file whose load or extraction failed, keeping the error code', async () => {
    const { load } = imageSet(freshSeed());
    const extractor = await SiftExtractor.create(ctx);
    await expect(extractAll(extractor, ['a.png', 'missing.png', 'b.png'], { load })).rejects.toThrow(/^missing\.png: no such image$/);
    const tiny = async (file: string) => (file === 'small.png' ? { width: 12, height: 40, data: new Float32Array(480) } : load(file));
    const failed = await extractAll(extractor, ['a.png', 'small.png'], { load: tiny }).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 'bad_input', message: expect.stringMatching(/^small\.png: sift: a 12x40 image is too small/) });
    extractor.destroy();
  });

  it('stops between images when cancelled, loading nothing past the next image', async () => {
    const { events, load } = imageSet(freshSeed());
    const extractor = await SiftExtractor.create(ctx);
    const controller = new AbortController();
    const run = extractAll(extractor, ['a.png', 'b.png', 'c.png', 'd.png'], { load, signal: controller.signal, onEach: (_, i) => (i === 0 ? controller.abort() : undefined) });
    await expect(run).rejects.toMatchObject({ code: 'cancelled' });
    extractor.destroy();
    expect(events.filter((e) => e.startsWith('load'))).toEqual(['load a.png', 'load b.png']);
  });
});
