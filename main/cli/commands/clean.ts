/**
 * `clean <file.argo>`: the automatic floater cleanup (main/engine/edit/clean.ts) on the project's
 * current edited splats, added to its edit list as a `clean` operation (undo brings the splats
 * back); --dry-run only reports what it would remove. The thresholds are the registry's
 * `edit.clean*` parameters, the same the UI's slider and preview use.
 */
import path from 'node:path';
import { paramsForCommand } from '../../../shared/params/index.js';
import { isProjectFile } from '../../../shared/project/manifest.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { computeCleanSelection, resolveCleanParams, type CleanReasons } from '../../engine/edit/clean.js';
import { addEditOperation } from '../../engine/project/edits.js';
import { Project } from '../../engine/project/project.js';
import { selectionScene, trainingCameras } from '../../engine/project/selection-scene.js';
import { UsageError } from '../args.js';
import { JSON_OPTION, type CommandSpec } from '../command.js';

function describeReasons(r: CleanReasons): string {
  return `${r.opacity.toLocaleString()} faint, ${r.size.toLocaleString()} huge, ${r.isolated.toLocaleString()} isolated, ${r.unseen.toLocaleString()} seen by too few views (a splat may count under several)`;
}

export const cleanCommand: CommandSpec = {
  name: 'clean',
  summary: "floater removal: remove faint, huge, isolated and unseen splats from a project's edited splats, as an edit that undo takes back",
  usage: 'clean <file.argo> [--strength S] [--dry-run] [--label TEXT] [--json]',
  options: [
    JSON_OPTION,
    { flag: 'dry-run', type: 'bool', help: 'report what the cleanup would remove without changing the project' },
    { flag: 'label', type: 'string', valueName: 'TEXT', help: 'what the history shows for the edit (default: "Clean N splats (strength S)")' },
  ],
  params: () => paramsForCommand('clean').filter((p) => !p.commands.includes('*')),
  async run({ positionals, options, params: explicit, out, cwd }) {
    const [input, ...extra] = positionals;
    if (!input || extra.length) throw new UsageError('clean needs exactly one file.argo');
    if (!isProjectFile(input)) throw new UsageError(`clean works on a project (.argo), got ${input}`);
    const label = options.label as string | undefined;
    if (label !== undefined && label.length > 200) throw new ArgonautError('bad_input', `--label: ${label.length} characters; at most 200`);
    const cleanExplicit = Object.fromEntries(Object.entries(explicit).filter(([k]) => k.startsWith('edit.clean')));
    let params;
    try {
      params = resolveCleanParams(cleanExplicit);
    } catch (error) {
      throw new ArgonautError('bad_input', (error as Error).message);
    }
    const project = await Project.open(path.resolve(cwd, input));
    const warn = (m: string) => out.warn(m);
    out.progress({ stage: 'clean', message: 'reading the edited splats' }, true);
    // the trained frame: the view test's cameras are the dataset's
    const scene = await selectionScene(project, { untransformed: true, warn });
    const cameras = await trainingCameras(project);
    if (params['edit.cleanByViews'] && !cameras.length) warn(`${project.file}: no training cameras (a project made from a splat file); the view test is off`);
    out.progress({ stage: 'clean', message: `scoring ${scene.baseCount.toLocaleString()} splats` }, true);
    const { selection, reasons } = computeCleanSelection(scene.splats, { cameras, params, exclude: scene.exclude });
    const strength = params['edit.cleanStrength'];
    const summary = { project: project.file, strength, selected: selection.length, splats: scene.baseCount, reasons, params };
    if (options['dry-run'] || selection.length === 0) {
      const why = options['dry-run'] ? 'dry run: nothing changed' : 'nothing to remove: the project is unchanged';
      out.result({ ...summary, applied: false }, `${project.file}: the cleanup at strength ${strength} would remove ${selection.length.toLocaleString()} of ${scene.baseCount.toLocaleString()} splats (${describeReasons(reasons)}); ${why}`);
      return;
    }
    const state = await addEditOperation(project, { op: 'clean', params, label: label ?? `Clean ${selection.length.toLocaleString()} splats (strength ${strength})` }, selection, warn);
    out.result({ ...summary, applied: true, edits: state.summary }, `${project.file}: removed ${selection.length.toLocaleString()} of ${scene.baseCount.toLocaleString()} splats (${describeReasons(reasons)}); ${state.summary.after.toLocaleString()} left. \`edit ${input} --undo\` brings them back.`);
  },
};
