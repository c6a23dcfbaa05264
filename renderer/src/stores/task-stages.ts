/**
 * The stages of capture and mesh tasks as the studio shows them: a fixed list per kind of work, so
 * the user sees what is done, what runs and what is still to come (the engine reports only the
 * current stage). Plain functions: tested in Node.
 */
import type { TaskStatus } from '../../../shared/contract/tasks.js';

export interface StageDef {
  id: string;
  label: string;
}

const CAPTURE_LABELS: Record<string, string> = {
  scan: 'Scan video',
  extract: 'Extract frames',
  photos: 'Read photos',
  features: 'Find features',
  matching: 'Match images',
  mapping: 'Structure from motion',
  bundle: 'Bundle adjustment',
  import: 'Load dataset',
  verify: 'Check images',
};

const MESH_LABELS: Record<string, string> = {
  load: 'Load splats',
  fuse: 'Fuse depth',
  march: 'Marching cubes',
  visibility: 'Unseen surface',
  clean: 'Clean up',
  simplify: 'Simplify',
  write: 'Write file',
};

/**
 * The stages a capture of these input kinds goes through, in order. Our SfM (`sfm` 'argonaut', the
 * default) always has its bundle stage (bundle adjustment, then the model written); COLMAP's only
 * with --bundle-adjust.
 */
export function captureStages(kinds: readonly ('video' | 'photos')[], options: { sfm?: string; bundleAdjust?: boolean } = {}): StageDef[] {
  const bundle = (options.sfm ?? 'argonaut') === 'argonaut' || Boolean(options.bundleAdjust);
  const ids = [
    ...(kinds.includes('video') ? ['scan', 'extract'] : []),
    ...(kinds.includes('photos') ? ['photos'] : []),
    'features', 'matching', 'mapping',
    ...(bundle ? ['bundle'] : []),
    'import', 'verify',
  ];
  return ids.map((id) => ({ id, label: CAPTURE_LABELS[id] }));
}

export const MESH_STAGES: StageDef[] = Object.entries(MESH_LABELS).map(([id, label]) => ({ id, label }));

export type StageState = 'done' | 'active' | 'pending' | 'failed';

/**
 * Each stage's state from the task's current stage: stages before it are done, it is active (or
 * failed, when the task failed there), the rest pending; a finished task has every stage done.
 * A stage the engine reports that the list lacks is appended, so nothing is hidden.
 */
export function stageStates(stages: readonly StageDef[], task: Pick<TaskStatus, 'state' | 'stage'> | undefined): { def: StageDef; state: StageState }[] {
  const list = [...stages];
  if (task?.stage && !list.some((s) => s.id === task.stage)) list.push({ id: task.stage, label: CAPTURE_LABELS[task.stage] ?? MESH_LABELS[task.stage] ?? task.stage });
  const at = task?.stage ? list.findIndex((s) => s.id === task.stage) : -1;
  return list.map((def, i) => {
    if (task?.state === 'finished') return { def, state: 'done' };
    if (i < at) return { def, state: 'done' };
    if (i === at) return { def, state: task?.state === 'running' ? 'active' : 'failed' };
    return { def, state: 'pending' };
  });
}

/** "Matching images: 46 %" style text for the current stage. */
export function stageText(task: Pick<TaskStatus, 'stage' | 'fraction' | 'skipped' | 'message'> | undefined): string {
  if (!task?.stage) return 'Starting…';
  const label = CAPTURE_LABELS[task.stage] ?? MESH_LABELS[task.stage] ?? task.stage;
  if (task.skipped) return `${label}: done in an earlier run`;
  return task.fraction !== undefined ? `${label}: ${Math.round(task.fraction * 100)} %` : label;
}
