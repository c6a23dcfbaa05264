/**
 * A project on disk: the `.argo` manifest (shared/project/manifest.ts) and its data folder.
 * Every change goes through `save()`: validated against the schema, then written atomically
 * (temporary file, fsync, rename), one write at a time, so the file on disk is always a complete
 * manifest, old or new. Opening a file from an older version migrates it in memory; the first
 * save keeps the original beside it (`<file>.v<N>.bak`).
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ProjectSummary } from '../../../shared/contract/projects.js';
import { parseManifest, PROJECT_FORMAT, PROJECT_VERSION, ProjectManifestSchema, type CaptureRecord, type CaptureSource, type DatasetRef, type ProjectManifest, type ProjectParams, type ProjectRun } from '../../../shared/project/manifest.js';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import { APP_VERSION } from '../../../shared/version.js';
import { makeFolder, writeError, writeFileAtomic } from '../formats/atomic-file.js';
import type { TrainingSource } from '../train/job.js';
import { liveLockHolder } from './lock.js';
import { checkProjectFileName, defaultDataDirName, fromManifestPath, toManifestPath } from './paths.js';

export interface ProjectInit {
  name?: string;
  dataset?: DatasetRef;
  sources: CaptureSource[];
  capture?: CaptureRecord;
  params?: ProjectParams;
  runs?: ProjectRun[];
  /** The caller made the data folder a moment ago (a copied dataset is already inside). */
  adoptDataDir?: boolean;
}

export class Project {
  private saving: Promise<void> = Promise.resolve();
  private backupPending: boolean;

  private constructor(
    /** Absolute path of the .argo file. */
    readonly file: string,
    public manifest: ProjectManifest,
    /** The version the file had when opened, when older than this build's. */
    readonly migratedFrom?: number,
  ) {
    this.backupPending = migratedFrom !== undefined;
  }

  /** The folder holding the .argo file: the base of every relative path in the manifest. */
  get dir(): string {
    return path.dirname(this.file);
  }

  get dataDir(): string {
    return this.resolve(this.manifest.dataDir);
  }

  resolve(stored: string): string {
    return fromManifestPath(this.dir, stored);
  }

  relative(absolute: string): string {
    return toManifestPath(this.dir, absolute);
  }

  /** Reads and validates a project (any known version), naming the file in every error. */
  static async open(file: string): Promise<Project> {
    const absolute = path.resolve(file);
    let text: string;
    try {
      text = await readFile(absolute, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new ArgonautError('not_found', `${absolute}: project file not found`, { file: absolute });
      if (code === 'EISDIR') throw badInput(absolute, 'is a folder, not a .argo project file');
      throw badInput(absolute, `cannot read the project file (${code ?? (error as Error).message})`);
    }
    if (text.trim() === '') throw badInput(absolute, 'the project file is empty (not an Argonaut project, or damaged)');
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw badInput(absolute, `not valid JSON (${(error as Error).message}): not an Argonaut project, or damaged`);
    }
    const { manifest, migratedFrom } = parseManifest(raw, absolute, { dataDir: defaultDataDirName(absolute) });
    const project = new Project(absolute, manifest, migratedFrom);
    // A run marked running whose trainer is gone (killed, crashed, power cut) is interrupted.
    if (manifest.runs.some((r) => r.status === 'running') && !(await liveLockHolder(project.dataDir))) {
      for (const run of manifest.runs) if (run.status === 'running') run.status = 'interrupted';
    }
    return project;
  }

  /**
   * A new project file (refused when it or its data folder exists: nothing is overwritten).
   * Written before this returns.
   */
  static async create(file: string, init: ProjectInit): Promise<Project> {
    const absolute = path.resolve(file);
    checkProjectFileName(absolute);
    await refuseExisting(absolute, 'the project file already exists; open it, or choose another name');
    const dataDirName = defaultDataDirName(absolute);
    if (!init.adoptDataDir) await refuseExisting(path.join(path.dirname(absolute), dataDirName), 'a data folder of that name already exists; move it away, or choose another project name');
    const now = new Date().toISOString();
    const manifest: ProjectManifest = {
      format: PROJECT_FORMAT,
      version: PROJECT_VERSION,
      id: randomUUID(),
      name: init.name ?? path.basename(absolute, path.extname(absolute)),
      createdAt: now,
      modifiedAt: now,
      app: APP_VERSION,
      dataDir: dataDirName,
      sources: init.sources,
      ...(init.capture ? { capture: init.capture } : {}),
      ...(init.dataset ? { dataset: init.dataset } : {}),
      params: init.params ?? {},
      runs: init.runs ?? [],
      exports: [],
      edits: { history: [] },
      cameraPaths: [],
      partitions: [],
    };
    const project = new Project(absolute, manifest);
    await makeFolder(path.dirname(absolute));
    await project.save();
    return project;
  }

  /**
   * Writes the manifest (and creates the data folder). Saves queue: each writes the manifest as
   * it is when its turn comes, so the last save always leaves the newest state on disk.
   */
  save(): Promise<void> {
    const next = this.saving.then(() => this.write());
    this.saving = next.catch(() => undefined);
    return next;
  }

  private async write(): Promise<void> {
    this.manifest.modifiedAt = new Date().toISOString();
    this.manifest.app = APP_VERSION;
    const checked = ProjectManifestSchema.safeParse(this.manifest);
    if (!checked.success) throw new ArgonautError('internal', `${this.file}: refusing to write an invalid manifest (${checked.error.issues[0]?.path.join('.')}: ${checked.error.issues[0]?.message})`);
    await makeFolder(this.dataDir);
    if (this.backupPending) {
      const backup = `${this.file}.v${this.migratedFrom}.bak`;
      try {
        await copyFile(this.file, backup, constants.COPYFILE_EXCL);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw writeError(backup, error);
      }
      this.backupPending = false;
    }
    await writeFileAtomic(this.file, `${JSON.stringify(this.manifest, null, 2)}\n`);
  }

  /** The newest run, if any. */
  latestRun(): ProjectRun | undefined {
    return this.manifest.runs.at(-1);
  }

  nextRunId(): string {
    const n = Math.max(0, ...this.manifest.runs.map((r) => Number(r.id.slice(4)))) + 1;
    return `run-${String(n).padStart(3, '0')}`;
  }

  /** `<data>/runs/<id>`. */
  runDir(id: string): string {
    return path.join(this.dataDir, 'runs', id);
  }

  /** Where the dataset is now: the stored path, else where it was at import. Refuses missing data. */
  async datasetPath(): Promise<string | undefined> {
    const ref = this.manifest.dataset;
    if (!ref || ref.kind === 'sample') return undefined;
    const candidates = [this.resolve(ref.path), ...(ref.absolutePath ? [ref.absolutePath] : [])];
    for (const candidate of candidates) {
      try {
        await stat(candidate);
        return candidate;
      } catch {
        // try the next
      }
    }
    throw badInput(this.file, `the project's dataset ${candidates[0]} is missing (moved or deleted?); put it back, or import it again into a new project`, { missing: candidates[0] });
  }

  /** What training reads: the sample scene or the dataset folder. */
  async trainingSource(): Promise<TrainingSource> {
    const ref = this.manifest.dataset;
    if (!ref) throw badInput(this.file, 'the project has no dataset to train on (it was made from a splat file)');
    if (ref.kind === 'sample') return { kind: 'sample' };
    return { kind: 'dataset', path: (await this.datasetPath())! };
  }

  summary(): ProjectSummary {
    const m = this.manifest;
    const finished = [...m.runs].reverse().find((r) => r.outputs.splatCount !== undefined);
    const ref = m.dataset;
    return {
      id: m.id,
      path: this.file,
      name: m.name,
      source: m.sources[0] ?? { kind: 'sample' },
      createdMs: Date.parse(m.createdAt),
      modifiedMs: Date.parse(m.modifiedAt),
      ...(finished?.outputs.splatCount !== undefined ? { splats: finished.outputs.splatCount } : {}),
      ...(ref ? { dataset: ref.kind === 'sample' ? { kind: 'sample' as const } : { kind: 'folder' as const, path: this.resolve(ref.path), format: ref.format, views: ref.views, train: ref.train, test: ref.test } } : {}),
      runs: m.runs.map((r) => ({ id: r.id, status: r.status, step: r.step, total: r.total })),
      ...(m.capture ? { capture: { ...m.capture, report: this.resolve(m.capture.report) } } : {}),
    };
  }
}

async function refuseExisting(target: string, problem: string): Promise<void> {
  try {
    await stat(target);
  } catch {
    return;
  }
  throw badInput(target, problem);
}
