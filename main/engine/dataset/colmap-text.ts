/**
 * COLMAP text model files (cameras.txt, images.txt, points3D.txt), parsed the way COLMAP's own
 * ReadCamerasText / ReadImagesText / ReadPoints3DText do: '#' comments and blank lines skipped,
 * except that the line after an image line is always its POINTS2D line (possibly empty). Errors
 * name the file and the line.
 */
import { badInput } from '../../../shared/rpc/errors.js';
import {
  cameraModelByName,
  checkCamera,
  checkImage,
  checkPoints,
  checkUniqueIds,
  COLMAP_CAMERA_MODELS,
  type ColmapCamera,
  type ColmapImage,
  type ColmapPoints,
} from './colmap-model.js';

const NON_FINITE: Record<string, number> = { nan: NaN, '-nan': NaN, inf: Infinity, '+inf': Infinity, '-inf': -Infinity };

/** Splits into lines and whitespace tokens, remembering 1-based line numbers. */
function lines(text: string): { line: number; tokens: string[] }[] {
  return text.split(/\r?\n/).map((s, i) => ({ line: i + 1, tokens: s.trim().length ? s.trim().split(/\s+/) : [] }));
}

function isSkipped(tokens: string[]): boolean {
  return tokens.length === 0 || tokens[0].startsWith('#');
}

class Fields {
  constructor(
    private readonly file: string,
    private readonly line: number,
    private readonly tokens: string[],
  ) {}

  get where(): string {
    return `line ${this.line}`;
  }

  expectCount(min: number, description: string, exact = false): void {
    if (this.tokens.length < min || (exact && this.tokens.length !== min)) {
      throw badInput(this.file, `line ${this.line}: expected ${description}, found ${this.tokens.length} values`);
    }
  }

  number(index: number, field: string): number {
    const token = this.tokens[index];
    const special = NON_FINITE[token.toLowerCase()];
    if (special !== undefined) return special; // parsed, so the finite checks can say which field
    const value = Number(token);
    if (Number.isNaN(value)) throw badInput(this.file, `line ${this.line}: ${field} "${token}" is not a number`);
    return value;
  }

  integer(index: number, field: string): number {
    const token = this.tokens[index];
    if (!/^\d+$/.test(token) || !Number.isSafeInteger(Number(token))) {
      throw badInput(this.file, `line ${this.line}: ${field} "${token}" is not a non-negative integer`);
    }
    return Number(token);
  }
}

export function parseCamerasText(text: string, file: string): Map<number, ColmapCamera> {
  const list: ColmapCamera[] = [];
  for (const { line, tokens } of lines(text)) {
    if (isSkipped(tokens)) continue;
    const f = new Fields(file, line, tokens);
    f.expectCount(4, 'CAMERA_ID MODEL WIDTH HEIGHT PARAMS[]');
    const model = cameraModelByName(tokens[1]);
    if (!model) {
      throw badInput(file, `line ${line}: unknown camera model "${tokens[1]}" (COLMAP models: ${COLMAP_CAMERA_MODELS.map((m) => m.name).join(', ')})`);
    }
    f.expectCount(4 + model.params, `CAMERA_ID MODEL WIDTH HEIGHT and ${model.params} ${model.name} parameters`, true);
    const camera: ColmapCamera = {
      id: f.integer(0, 'CAMERA_ID'),
      model: model.name,
      width: f.integer(2, 'WIDTH'),
      height: f.integer(3, 'HEIGHT'),
      params: tokens.slice(4).map((_, i) => f.number(4 + i, `parameter ${i + 1}`)),
      source: f.where,
    };
    checkCamera(file, camera);
    list.push(camera);
  }
  checkUniqueIds(file, 'camera', list);
  return new Map(list.map((c) => [c.id, c]));
}

export function parseImagesText(text: string, file: string, cameras: Map<number, ColmapCamera>): ColmapImage[] {
  const all = lines(text);
  const images: ColmapImage[] = [];
  for (let i = 0; i < all.length; i++) {
    const { line, tokens } = all[i];
    if (isSkipped(tokens)) continue;
    const f = new Fields(file, line, tokens);
    f.expectCount(10, 'IMAGE_ID QW QX QY QZ TX TY TZ CAMERA_ID NAME');
    const image: ColmapImage = {
      id: f.integer(0, 'IMAGE_ID'),
      qvec: [f.number(1, 'QW'), f.number(2, 'QX'), f.number(3, 'QY'), f.number(4, 'QZ')],
      tvec: [f.number(5, 'TX'), f.number(6, 'TY'), f.number(7, 'TZ')],
      cameraId: f.integer(8, 'CAMERA_ID'),
      // Names may contain spaces: everything after CAMERA_ID.
      name: tokens.slice(9).join(' '),
      xy: new Float64Array(0),
      point3DIds: new Float64Array(0),
      source: f.where,
    };
    checkImage(file, image, cameras);
    // The next line is this image's POINTS2D line, even when empty.
    const points = all[i + 1];
    i++;
    if (points && points.tokens.length > 0) {
      const p = new Fields(file, points.line, points.tokens);
      if (points.tokens.length % 3 !== 0) {
        throw badInput(
          file,
          `line ${points.line}: expected POINTS2D triples (X Y POINT3D_ID) for image ${image.id} on line ${line}, found ${points.tokens.length} values (is its points line missing?)`,
        );
      }
      const n = points.tokens.length / 3;
      image.xy = new Float64Array(n * 2);
      image.point3DIds = new Float64Array(n);
      for (let k = 0; k < n; k++) {
        image.xy[2 * k] = p.number(3 * k, 'X');
        image.xy[2 * k + 1] = p.number(3 * k + 1, 'Y');
        const id = points.tokens[3 * k + 2];
        image.point3DIds[k] = id === '-1' ? -1 : p.integer(3 * k + 2, 'POINT3D_ID');
      }
    }
    images.push(image);
  }
  checkUniqueIds(file, 'image', images);
  return images;
}

export function parsePoints3DText(text: string, file: string): ColmapPoints {
  const rows: { id: number; xyz: number[]; rgb: number[]; error: number }[] = [];
  for (const { line, tokens } of lines(text)) {
    if (isSkipped(tokens)) continue;
    const f = new Fields(file, line, tokens);
    f.expectCount(8, 'POINT3D_ID X Y Z R G B ERROR TRACK[]');
    if ((tokens.length - 8) % 2 !== 0) throw badInput(file, `line ${line}: TRACK[] must be (IMAGE_ID, POINT2D_IDX) pairs, found an odd count`);
    const rgb = [4, 5, 6].map((k, j) => f.integer(k, 'RGB'[j]));
    if (rgb.some((v) => v > 255)) throw badInput(file, `line ${line}: colour ${rgb.join(' ')} is outside 0..255`);
    rows.push({ id: f.integer(0, 'POINT3D_ID'), xyz: [f.number(1, 'X'), f.number(2, 'Y'), f.number(3, 'Z')], rgb, error: f.number(7, 'ERROR') });
  }
  const points: ColmapPoints = {
    ids: Float64Array.from(rows, (r) => r.id),
    positions: Float64Array.from(rows.flatMap((r) => r.xyz)),
    colors: Uint8Array.from(rows.flatMap((r) => r.rgb)),
    errors: Float64Array.from(rows, (r) => r.error),
  };
  checkPoints(file, points);
  return points;
}
