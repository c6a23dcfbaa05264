import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useNavigationStore, viewFromHash, VIEWS } from '../../../renderer/src/stores/navigation.js';

beforeEach(() => setActivePinia(createPinia()));
afterEach(() => vi.unstubAllGlobals());

describe('navigation store', () => {
  it('reads views from location hashes and ignores anything else', () => {
    for (const view of VIEWS) expect(viewFromHash(`#/${view}`)).toBe(view);
    expect(viewFromHash('#train')).toBe('train');
    expect(viewFromHash('')).toBeUndefined();
    expect(viewFromHash('#/admin')).toBeUndefined();
    expect(viewFromHash('#/constructor')).toBeUndefined();
  });

  it('starts on the view in the hash (else Home) and records navigation in the hash', () => {
    const location = { hash: '#/viewer' };
    vi.stubGlobal('location', location);
    const navigation = useNavigationStore();
    expect(navigation.current).toBe('viewer');
    navigation.go('settings');
    expect(navigation.current).toBe('settings');
    expect(location.hash).toBe('#/settings');
    setActivePinia(createPinia());
    location.hash = '';
    expect(useNavigationStore().current).toBe('home');
  });
});
