/**
 * A worker's path map (`worker --path-map FROM=TO`): the coordinator's project path mapped to
 * where this worker mounts the shared storage, on whole segments, the longest FROM first; bad
 * entries refused by the CLI with exit 2 before any queue is asked.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mapPath, parsePathMap, parsePathMapping } from '../../../../main/engine/partition/path-map.js';
import { cliJson } from '../../../helpers/cli-json.js';

const here = (p: string) => path.resolve(p);

describe('path map', () => {
  it('maps a prefix of whole segments, the longest FROM winning; other paths are left as they are', () => {
    const map = parsePathMap(['/mnt/projects=/data/shared', '/mnt/projects/big=/fast/big']);
    expect(mapPath(map, '/mnt/projects/city/city.argo')).toBe(path.join(here('/data/shared'), 'city', 'city.argo'));
    expect(mapPath(map, '/mnt/projects/big/city.argo')).toBe(path.join(here('/fast/big'), 'city.argo'));
    expect(mapPath(map, '/mnt/projects-old/city.argo')).toBe('/mnt/projects-old/city.argo');
    expect(mapPath(map, '/srv/city.argo')).toBe('/srv/city.argo');
    expect(mapPath(parsePathMap(['/mnt/projects/=/data/shared/']), '/mnt/projects/a.argo')).toBe(path.join(here('/data/shared'), 'a.argo'));
  });

  it('maps a Windows coordinator\'s paths with either separator and any case', () => {
    const map = parsePathMap(['C:\\Projects=/mnt/win', '\\\\filer\\share=/mnt/filer']);
    expect(mapPath(map, 'c:\\projects\\City\\city.argo')).toBe(path.join(here('/mnt/win'), 'City', 'city.argo'));
    expect(mapPath(map, 'C:/Projects/city.argo')).toBe(path.join(here('/mnt/win'), 'city.argo'));
    expect(mapPath(map, '\\\\filer\\share\\a\\b.argo')).toBe(path.join(here('/mnt/filer'), 'a', 'b.argo'));
    expect(mapPath(map, 'C:\\ProjectsOld\\b.argo')).toBe('C:\\ProjectsOld\\b.argo');
  });

  it('refuses entries it cannot use, naming the entry and what was expected', () => {
    expect(() => parsePathMapping('/mnt/a')).toThrow('--path-map "/mnt/a": expected FROM=TO');
    expect(() => parsePathMapping('=/mnt/a')).toThrow('both paths given');
    expect(() => parsePathMapping('relative/a=/mnt/a')).toThrow('FROM must be an absolute path');
    expect(() => parsePathMapping('/mnt/a=relative')).toThrow('TO must be an absolute path on this machine');
    expect(() => parsePathMap(['/mnt/a=/x', '/mnt/a/=/y'])).toThrow('--path-map: /mnt/a is mapped twice');
    expect(() => mapPath(parsePathMap(['/mnt/a=/x']), '/mnt/a/../../etc/p.argo')).toThrow('may not climb out of /mnt/a');
  });

  it('worker --path-map: a malformed entry exits 2 before the queue is asked', async () => {
    const cli = await cliJson(['worker', '--queue', 'redis://127.0.0.1:1', '--path-map', '/mnt/a=/x', '--path-map', 'nonsense']);
    expect(cli.code).toBe(2);
    expect(cli.error!.message).toContain('--path-map "nonsense": expected FROM=TO');
  });
});
