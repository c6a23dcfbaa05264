import { describe, expect, it } from 'vitest';
import { ffmpegBinary, h264EncodeArgs, h264SizeProblem, lastLines } from '../../../../main/engine/formats/h264-video.js';

describe('ffmpeg arguments for H.264 MP4', () => {
  it('pipe rgb24 frames of the size and rate in, libx264 yuv420p with faststart out, as MP4 whatever the name', () => {
    const args = h264EncodeArgs({ width: 64, height: 48, fps: 24 }, '/tmp/.v.mp4.1.abc.tmp');
    const after = (flag: string) => args[args.indexOf(flag) + 1];
    expect(args.slice(args.indexOf('-f'), args.indexOf('-i') + 2)).toEqual(['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', '64x48', '-framerate', '24', '-i', 'pipe:0']);
    expect(after('-c:v')).toBe('libx264');
    expect(args.lastIndexOf('-pix_fmt')).toBeGreaterThan(args.indexOf('-i'));
    expect(args[args.lastIndexOf('-pix_fmt') + 1]).toBe('yuv420p');
    expect(after('-movflags')).toBe('+faststart');
    expect(args.slice(-3)).toEqual(['-f', 'mp4', '/tmp/.v.mp4.1.abc.tmp']);
    expect(after('-crf')).toBe('18');
    expect(h264EncodeArgs({ width: 64, height: 48, fps: 24, crf: 23 }, 'x')[args.indexOf('-crf') + 1]).toBe('23');
    expect(args).toContain('-nostdin');
  });

  it('refuses odd sizes; picks the binary from ARGONAUT_FFMPEG; quotes the last lines of stderr', () => {
    expect(h264SizeProblem(64, 48)).toBeUndefined();
    expect(h264SizeProblem(64, 47)).toMatch(/even width and height, got 64x47/);
    expect(() => h264EncodeArgs({ width: 63, height: 48, fps: 24 }, 'x')).toThrow(/63x48/);
    expect(ffmpegBinary({})).toBe('ffmpeg');
    expect(ffmpegBinary({ ARGONAUT_FFMPEG: '/opt/ffmpeg/bin/ffmpeg' })).toBe('/opt/ffmpeg/bin/ffmpeg');
    expect(lastLines('a\n\nb\r\nc\nd\ne\nf\ng\n', 3)).toBe('e | f | g');
  });
});
