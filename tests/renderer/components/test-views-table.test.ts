/**
 * The Train view's table of test views: worst PSNR first when it opens, every column sortable, a
 * view's PSNR against the mean; rendered in Node (sorting by clicks: panels.browser.test.ts).
 */
import { describe, expect, it } from 'vitest';
import TestViewsTable from '../../../renderer/src/components/TestViewsTable.vue';
import { nextOrder, sortTestViews, WORST_FIRST } from '../../../renderer/src/components/test-views.js';
import { attributeOf, elementWith, renderHtml, tagsWith } from '../helpers/ssr.js';

const VIEWS = [
  { name: 'IMG_0008.jpg', psnr: 24.5, ssim: 0.81, ccPsnr: 25.25 },
  { name: 'IMG_0000.jpg', psnr: 18.75, ssim: 0.62, ccPsnr: 22 },
  { name: 'IMG_0016.jpg', psnr: 21, ssim: 0.74 }, // an older engine's view: no colour-corrected PSNR
];
/** What a reader sees of some HTML: tags and Vue's fragment comments gone, white space collapsed. */
const text = (html: string) => html.replace(/<!--[\s\S]*?-->|<[^>]+>/g, '').replace(/\s+/g, ' ').trim();
const names = (views: { name: string }[]) => views.map((v) => v.name);

describe('the order of the test views', () => {
  it('opens worst PSNR first; the same header flips it, another starts worst first', () => {
    expect(names(sortTestViews(VIEWS, WORST_FIRST))).toEqual(['IMG_0000.jpg', 'IMG_0016.jpg', 'IMG_0008.jpg']);
    const flipped = nextOrder(WORST_FIRST, 'psnr');
    expect(flipped).toEqual({ key: 'psnr', descending: true });
    expect(names(sortTestViews(VIEWS, flipped))).toEqual(['IMG_0008.jpg', 'IMG_0016.jpg', 'IMG_0000.jpg']);
    expect(nextOrder(flipped, 'ssim')).toEqual({ key: 'ssim', descending: false });
    expect(names(sortTestViews(VIEWS, { key: 'name', descending: false }))).toEqual(['IMG_0000.jpg', 'IMG_0008.jpg', 'IMG_0016.jpg']);
  });

  it('puts a view without the column last in either direction, and breaks ties by name', () => {
    expect(names(sortTestViews(VIEWS, { key: 'ccPsnr', descending: false }))).toEqual(['IMG_0000.jpg', 'IMG_0008.jpg', 'IMG_0016.jpg']);
    expect(names(sortTestViews(VIEWS, { key: 'ccPsnr', descending: true }))).toEqual(['IMG_0008.jpg', 'IMG_0000.jpg', 'IMG_0016.jpg']);
    const tied = [{ name: 'b', psnr: 20, ssim: 0.5 }, { name: 'a', psnr: 20, ssim: 0.5 }];
    expect(names(sortTestViews(tied, WORST_FIRST))).toEqual(['a', 'b']);
  });
});

describe('TestViewsTable', () => {
  it('lists every view worst first with its PSNR, its distance from the mean, colour-corrected PSNR and SSIM', async () => {
    const html = await renderHtml(TestViewsTable, { views: VIEWS, step: 7000 });
    expect(tagsWith(html, 'data-view').map((t) => attributeOf(t, 'data-view'))).toEqual(['IMG_0000.jpg', 'IMG_0016.jpg', 'IMG_0008.jpg']);
    expect(text(html)).toContain('3 test views at step 7,000, mean PSNR 21.42 dB');
    const worst = elementWith(html, 'data-view', 'IMG_0000.jpg')!;
    expect(attributeOf(worst, 'class')).toBe('below');
    const cells = [...worst.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => text(m[1]));
    expect(cells).toEqual(['IMG_0000.jpg', '18.75 −2.67', '22.00', '0.6200']);
    const older = elementWith(html, 'data-view', 'IMG_0016.jpg')!;
    expect(older).toContain('–'); // no colour-corrected PSNR from that engine
    expect(tagsWith(html, 'aria-sort', 'ascending').length).toBe(1);
  });

  it('says so when there is nothing to list', async () => {
    const html = await renderHtml(TestViewsTable, { views: [], emptyText: 'No held-out views.' });
    expect(tagsWith(html, 'data-view')).toEqual([]);
    expect(html).toContain('No held-out views.');
  });
});
