import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { ArgonautError, ERROR_CODES } from '../../../shared/rpc/errors.js';
import { suggestionFor, titleFor } from '../../../renderer/src/errors.js';
import { useNoticeStore } from '../../../renderer/src/stores/notices.js';
import { fakeEngine, settle } from '../helpers/engine.js';

beforeEach(() => setActivePinia(createPinia()));

describe('notice store', () => {
  it('keeps the code, message and details of what was thrown, in the view it belongs to', () => {
    const notices = useNoticeStore();
    notices.report(new ArgonautError('bad_input', 'frames/0001.png: not a PNG', { file: 'frames/0001.png' }), 'home');
    notices.report(new Error('boom'), 'global');
    expect(notices.forScope('home')).toMatchObject([{ code: 'bad_input', message: 'frames/0001.png: not a PNG', details: { file: 'frames/0001.png' } }]);
    expect(notices.forScope('global')).toMatchObject([{ code: 'internal', message: 'boom' }]);
  });

  it('merges an identical repeated error and dismisses by id', () => {
    const notices = useNoticeStore();
    const a = notices.report({ code: 'busy', message: 'a job is running' }, 'train');
    const b = notices.report({ code: 'busy', message: 'a job is running' }, 'train');
    expect(b.id).toBe(a.id);
    expect(notices.notices).toHaveLength(1);
    notices.dismiss(a.id);
    expect(notices.notices).toHaveLength(0);
  });

  it('shows engine error events (job errors in Train, codes it does not know included) and device loss', async () => {
    const engine = fakeEngine();
    const notices = useNoticeStore();
    notices.attach(engine.client);
    engine.server.emit('error', { job: 'j1', code: 'nan_loss', message: 'loss became NaN at step 1200' });
    engine.server.emit('deviceLost', { reason: 'unknown', message: 'VK_ERROR_DEVICE_LOST' });
    await settle();
    expect(notices.forScope('train')).toMatchObject([{ code: 'nan_loss', job: 'j1', message: 'loss became NaN at step 1200' }]);
    expect(notices.forScope('global')).toMatchObject([{ code: 'device_lost' }]);
  });
});

describe('error suggestions', () => {
  it('name a title and a suggested action for every error code, and something for unknown codes', () => {
    for (const code of ERROR_CODES) {
      expect(suggestionFor(code).text.length, code).toBeGreaterThan(20);
      expect(titleFor(code), code).not.toBe('Error');
    }
    expect(suggestionFor('nan_loss').showLog).toBe(true);
  });
});
