/**
 * ParamPanel renders every parameter it is given, with the control its type calls for, and
 * nothing else: proven with the real registry and with a synthetic one that covers every type.
 * (Typing, presets and tooltips in a real browser: param-panel.browser.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { allParams, paramsForCommand, type ParamDef, type ParamValue } from '../../../shared/params/index.js';
import ParamPanel from '../../../renderer/src/components/ParamPanel.vue';
import { defaultValues, groupParams } from '../../../renderer/src/params/form.js';
import { SYNTHETIC_PARAMS } from '../fixtures/synthetic-params.js';
import { attributeOf, elementWith, htmlEscape, renderHtml, tagsWith } from '../helpers/ssr.js';

async function render(params: readonly ParamDef[], values: Record<string, ParamValue> = defaultValues(params)) {
  return renderHtml(ParamPanel, { params, modelValue: values });
}

/** The control a field holds, from its HTML. */
function controlOf(field: string): string {
  if (/<select/.test(field)) return 'select';
  if (/role="switch"/.test(field)) return 'switch';
  if (/type="range"/.test(field)) return 'number+slider';
  if (/inputmode="decimal"/.test(field)) return 'number';
  if (/type="text"/.test(field)) return 'text';
  return 'none';
}

const EXPECTED_CONTROL = { enum: ['select'], bool: ['switch'], int: ['number', 'number+slider'], float: ['number', 'number+slider'], string: ['text'] } as const;

for (const [name, params] of [
  ['the real registry (every parameter)', allParams()],
  ['the real registry (train command)', paramsForCommand('train')],
  ['a synthetic registry covering every type', SYNTHETIC_PARAMS],
] as const) {
  describe(`ParamPanel with ${name}`, () => {
    it('renders exactly one field per parameter, with the control its type calls for', async () => {
      const html = await render(params);
      expect(tagsWith(html, 'data-param').length).toBe(params.length);
      for (const def of params) {
        expect(tagsWith(html, 'data-param', def.key), def.key).toHaveLength(1);
        const field = elementWith(html, 'data-param', def.key)!;
        expect(attributeOf(tagsWith(html, 'data-param', def.key)[0], 'data-type')).toBe(def.type);
        expect(EXPECTED_CONTROL[def.type] as readonly string[], def.key).toContain(controlOf(field));
        expect(field).toContain(`>${htmlEscape(def.label)}</label>`);
        expect(field, `${def.key} has its help as a tooltip`).toContain(htmlEscape(def.help));
        if (def.unit && (def.type === 'int' || def.type === 'float')) expect(field).toContain(`class="unit"`);
        if (def.type === 'enum') for (const choice of def.choices) expect(field).toContain(`value="${choice}"`);
        expect(field, `${def.key} is valid at its default`).not.toContain('data-error');
      }
    });

    it('groups fields under their group and puts advanced ones in collapsed sections', async () => {
      const html = await render(params);
      for (const group of groupParams(params)) {
        const fieldset = elementWith(html, 'data-group', group.name)!;
        expect(fieldset).toMatch(new RegExp(`<legend[^>]*>${htmlEscape(group.name)}</legend>`));
        for (const def of [...group.basic, ...group.advanced]) expect(fieldset).toContain(`data-param="${def.key}"`);
        const details = elementWith(fieldset, 'data-advanced', group.name);
        if (group.advanced.length === 0) expect(details).toBeUndefined();
        else {
          expect(details).toBeDefined();
          expect(details!.slice(0, details!.indexOf('>'))).not.toMatch(/\sopen/);
          for (const def of group.advanced) expect(details).toContain(`data-param="${def.key}"`);
          for (const def of group.basic) expect(details).not.toContain(`data-param="${def.key}"`);
        }
      }
    });
  });
}

describe('ParamPanel details', () => {
  it('shows preset buttons only when parameters declare presets', async () => {
    const synthetic = await render(SYNTHETIC_PARAMS);
    expect(tagsWith(synthetic, 'data-preset').map((t) => attributeOf(t, 'data-preset'))).toEqual(['fast', 'balanced', 'quality']);
    expect(attributeOf(tagsWith(synthetic, 'data-preset', 'balanced')[0], 'aria-pressed')).toBe('true');
    expect(tagsWith(await render(allParams().filter((p) => !p.presets)), 'data-preset')).toHaveLength(0);
    const real = await render(paramsForCommand('train'));
    const declared = (['fast', 'balanced', 'quality'] as const).filter((preset) => paramsForCommand('train').some((p) => p.presets?.[preset] !== undefined));
    expect(tagsWith(real, 'data-preset').map((t) => attributeOf(t, 'data-preset'))).toEqual(declared);
  });

  it('shows the CLI validation message for invalid values it is given, and opens their advanced section', async () => {
    const values = { ...defaultValues(SYNTHETIC_PARAMS), 'train.iterations': 5, 'train.shDegree': 7, 'train.strategy': 'fancy' };
    const html = await render(SYNTHETIC_PARAMS, values);
    expect(elementWith(html, 'data-param', 'train.iterations')).toContain('5 is out of range [100, 100000] steps');
    expect(elementWith(html, 'data-param', 'train.shDegree')).toContain('7 is out of range [0, 3]');
    expect(elementWith(html, 'data-param', 'train.strategy')).toContain('fancy (not allowed)');
    const details = elementWith(html, 'data-advanced', 'Training')!;
    expect(details.slice(0, details.indexOf('>'))).toMatch(/\sopen/);
  });

  it('keeps an empty text value empty (no boolean casting) and shows the default as placeholder', async () => {
    const html = await render(SYNTHETIC_PARAMS);
    const field = elementWith(html, 'data-param', 'train.runName')!;
    expect(field).toMatch(/<input[^>]*value=""/);
    expect(field).toContain('placeholder="empty (default)"');
    expect(field).not.toContain('value="true"');
  });

  it('renders nothing but a note for an empty parameter list', async () => {
    const html = await render([]);
    expect(tagsWith(html, 'data-param')).toHaveLength(0);
    expect(html).toContain('This step has no parameters.');
  });
});
