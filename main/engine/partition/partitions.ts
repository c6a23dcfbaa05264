/**
 * A project's partitions (manifest version 3, shared/project/partition.ts): made from its scene
 * (split.ts), listed, removed. Every change is saved at once (Project.save: validated, atomic).
 * A partition a run was trained on stays until that run is gone: its blocks name what the run's
 * block runs trained.
 */
import { PARTITION_ID_PATTERN, type Partition } from '../../../shared/project/partition.js';
import { badInput } from '../../../shared/rpc/errors.js';
import type { Project } from '../project/project.js';
import { partitionScene, type PartitionScene } from './scene.js';
import { splitScene, type SplitOptions } from './split.js';

export function nextPartitionId(project: Project): string {
  const n = Math.max(0, ...project.manifest.partitions.map((p) => Number(p.id.slice('partition-'.length)))) + 1;
  return `partition-${String(n).padStart(3, '0')}`;
}

/** The partition of that id, or the newest; refused by name when there is none. */
export function projectPartition(project: Project, id?: string): Partition {
  const { partitions } = project.manifest;
  const found = id === undefined ? partitions.at(-1) : partitions.find((p) => p.id === id);
  if (found) return found;
  if (id !== undefined && !PARTITION_ID_PATTERN.test(id)) throw badInput(project.file, `"${id}" is not a partition id (partition-NNN)`);
  const known = partitions.map((p) => p.id).join(', ');
  throw badInput(project.file, id === undefined ? 'the project has no partition yet; make one (argonaut --no-gui partition <file.argo> --blocks N)' : `no partition ${id} (${known ? `it has ${known}` : 'it has none: make one with `partition p.argo --blocks N`'})`, { partition: id });
}

/** Splits the project's scene and keeps the partition in its manifest (saved). */
export async function addPartition(project: Project, options: Omit<SplitOptions, 'id' | 'createdAt'>, scene?: PartitionScene): Promise<Partition> {
  const input = scene ?? (await partitionScene(project));
  const partition = splitScene({ cameras: input.train, points: input.points, source: project.file }, { ...options, id: nextPartitionId(project) });
  project.manifest.partitions.push(partition);
  await project.save();
  return partition;
}

/** Removes a partition (refused while a run was trained on it). */
export async function removePartition(project: Project, id: string): Promise<void> {
  const partition = projectPartition(project, id);
  const runs = project.manifest.runs.filter((r) => r.partition?.partition === id).map((r) => r.id);
  if (runs.length) throw badInput(project.file, `${id} cannot be removed: ${runs.join(', ')} ${runs.length > 1 ? 'were' : 'was'} trained on it`);
  project.manifest.partitions = project.manifest.partitions.filter((p) => p !== partition);
  await project.save();
}
