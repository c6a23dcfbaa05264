import { describe, expect, it } from 'vitest';
import { sharedDataset } from '../../../../helpers/shared-data.js';
import { statueFrontEnd } from './statue-pairs.js';

const statue = sharedDataset('colmap_statue');

describe('global mapping of the statue photos', () => {
  it.runIf(statue.available)('front end', async () => {
    const front = await statueFrontEnd(statue.dir);
    console.log(`statue front end: ${front.names.length} photos, ${front.verified.length} pairs, ${front.frontEndSeconds.toFixed(1)} s`);
    expect(front.verified.length).toBe((front.names.length * (front.names.length - 1)) / 2);
  }, 3_600_000);
});
