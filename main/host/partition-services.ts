/**
 * The engine host's partition services (shared/contract/partitions.ts): a project's scene split
 * into blocks and kept in it, and its partitions and block-trained runs for the Partition panel.
 * Through the job manager's open Project when a job trains it, so neither save loses the other's change.
 */
import type { Services } from '../../shared/contract/index.js';
import type { ServiceImpl } from '../../shared/rpc/define.js';
import type { Engine } from '../engine/engine.js';
import { checkedProjectFile } from '../engine/jobs/checked-paths.js';
import { type JobManager } from '../engine/jobs/manager.js';
import { encodeSplatSet } from '../../shared/scene/splat-layout.js';
import { finishedBlockSplats } from '../engine/partition/finished-blocks.js';
import { addPartition } from '../engine/partition/partitions.js';
import { Project } from '../engine/project/project.js';

type Impl = ServiceImpl<Services>;

export function createPartitionServices(engine: Engine, jobs: JobManager): Pick<Impl['projects'], 'partition' | 'partitions' | 'blockSplats'> {
  const openProject = async (file: string) => {
    const checked = await checkedProjectFile(file);
    return jobs.openProjectOf(checked) ?? Project.open(checked);
  };
  return {
    async partition({ project: file, blocks, blockSize, method, overlap }) {
      const project = await openProject(file);
      const partition = await addPartition(project, { blocks, blockSize, method, overlap });
      engine.log('info', `${project.file}: ${partition.id}, ${partition.blocks.length} blocks (${partition.blocks.map((b) => `${b.id} ${b.cameras.length} cameras ${b.points} points`).join(', ')})`, 'partition');
      return partition;
    },
    async partitions({ project: file }) {
      const project = await openProject(file);
      const { manifest } = project;
      return {
        partitions: manifest.partitions,
        runs: manifest.runs.flatMap((r) => (r.partition ? [{ run: r.id, status: r.status, partition: r.partition }] : [])),
      };
    },
    async blockSplats({ project: file }) {
      const found = await finishedBlockSplats(await openProject(file));
      return { count: found.splats.count, run: found.run.id, step: found.step, data: encodeSplatSet(found.splats) };
    },
  };
}
