/**
 * The page's controls: Fit, the path dropdown, play/pause, the time slider and the clock (their
 * elements are in index.html). Touching the scene while a path is shown hands the view back to
 * the orbit camera, from where the path left it.
 */
import type { CameraPath } from '../../shared/scene/camera-path.js';
import type { BabylonPose, PathPlayer } from './path-player.js';

export interface ViewActions {
  fit(): void;
  showOrbit(): void;
  showPose(pose: BabylonPose): void;
}

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`index.html has no #${id}`);
  return found as T;
}

/** Wires the controls; `refresh()` updates the button, slider and clock from the player. */
export function bindControls(paths: readonly CameraPath[], player: PathPlayer, view: ViewActions): { refresh(): void } {
  const canvas = element<HTMLCanvasElement>('scene');
  const fitButton = element<HTMLButtonElement>('fit');
  const select = element<HTMLSelectElement>('path');
  const playButton = element<HTMLButtonElement>('play');
  const slider = element<HTMLInputElement>('time');
  const clock = element<HTMLSpanElement>('clock');

  for (const path of paths) {
    const option = document.createElement('option');
    option.value = path.id;
    option.textContent = `${path.name} (${path.duration.toFixed(1)} s)`;
    select.append(option);
  }
  select.disabled = paths.length === 0;
  if (paths.length === 0) select.title = 'The project has no saved camera paths';

  function refresh(): void {
    const path = player.current;
    playButton.disabled = slider.disabled = !path;
    playButton.textContent = player.isPlaying ? 'Pause' : 'Play';
    slider.max = String(path?.duration ?? 1);
    slider.value = String(player.time);
    clock.textContent = path ? `${player.time.toFixed(1)} / ${path.duration.toFixed(1)} s` : '0.0 s';
  }

  function showPathNow(): void {
    const pose = player.advance(0);
    if (pose) view.showPose(pose);
  }

  select.addEventListener('change', () => {
    const path = paths.find((p) => p.id === select.value);
    player.select(path);
    if (path) {
      showPathNow();
      player.play();
    } else view.showOrbit();
    refresh();
  });
  playButton.addEventListener('click', () => {
    if (player.isPlaying) player.pause();
    else {
      player.play();
      showPathNow();
    }
    refresh();
  });
  slider.addEventListener('input', () => {
    player.pause();
    player.seek(Number(slider.value));
    showPathNow();
    refresh();
  });
  fitButton.addEventListener('click', () => {
    player.pause();
    view.fit();
    refresh();
  });
  canvas.addEventListener('pointerdown', () => {
    if (!player.current) return;
    player.pause();
    view.showOrbit();
    refresh();
  });
  canvas.addEventListener('wheel', () => {
    if (!player.current) return;
    player.pause();
    view.showOrbit();
    refresh();
  }, { passive: true });
  refresh();
  return { refresh };
}
