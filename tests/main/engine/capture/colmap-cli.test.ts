import { describe, expect, it } from 'vitest';
import { parseFeatureField, parseMapperLine, parseMatchingProgress, parseModelAnalyzer, parseProcessedFile, parseSolverIteration } from '../../../../main/engine/capture/colmap-cli.js';

/** Lines as COLMAP 3.8 prints them, and as 3.10+ prints them through glog. */
const GLOG = 'I20250101 12:00:00.000000 4242 feature_extraction.cc:255] ';

describe("COLMAP's output as progress", () => {
  it('reads feature extraction: processed count, image name, feature count', () => {
    for (const prefix of ['', GLOG]) {
      expect(parseProcessedFile(`${prefix}Processed file [12/50]`)).toEqual({ done: 12, total: 50 });
      expect(parseFeatureField(`${prefix}  Name:            apple/frame_000012.jpg`)).toEqual({ field: 'name', value: 'apple/frame_000012.jpg' });
      expect(parseFeatureField(`${prefix}  Features:        2860`)).toEqual({ field: 'features', value: 2860 });
    }
    expect(parseFeatureField('  Dimensions:      640 x 356')).toBeNull();
  });

  it('reads sequential and exhaustive matching as fractions', () => {
    expect(parseMatchingProgress('Matching image [5/50] in 3.721s')).toBe(0.1);
    expect(parseMatchingProgress(`${GLOG}Matching block [2/3, 3/3] in 26.484s`)).toBe(6 / 9);
    expect(parseMatchingProgress('Elapsed time: 2.433 [minutes]')).toBeNull();
  });

  it('reads the mapper: initial pair, registrations, failure to start', () => {
    expect(parseMapperLine('Initializing with image pair #10 and #26')).toEqual({ kind: 'init', imageIds: [10, 26] });
    expect(parseMapperLine(`${GLOG}Registering image #40 (42)`)).toEqual({ kind: 'registered', imageId: 40, count: 42 });
    expect(parseMapperLine('No good initial image pair found.')).toEqual({ kind: 'no-initial-pair' });
    expect(parseMapperLine('Loading cameras... 1 in 0.000s')).toBeNull();
  });

  it("reads Ceres' iteration table and model_analyzer's summary", () => {
    expect(parseSolverIteration('  12  3.483395e+01    9.65e-04    1.09e+02   1.18e+00   6.07e-01  8.71e+05        1    2.20e-03    3.23e-02')).toBe(12);
    expect(parseSolverIteration('iter      cost      cost_change  |gradient|')).toBeNull();
    const summary = 'Cameras: 1\nImages: 24\nRegistered images: 24\nPoints: 6479\nObservations: 55824\nMean track length: 8.616144\nMean observations per image: 2326.000000\nMean reprojection error: 0.332060px';
    expect(parseModelAnalyzer(summary)).toEqual({ registered: 24, points: 6479, observations: 55824, meanReprojectionErrorPx: 0.33206, meanTrackLength: 8.616144 });
  });
});
