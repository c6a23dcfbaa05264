/**
 * Uniform structs packed from their WGSL declaration, so a field's offset lives in one place (the
 * kernel) instead of in a host's `u[7] = ...; f[8] = ...` that must be kept in step by hand.
 *
 * The layout (offsets, sizes, vec3 alignment) comes from wgsl_reflect (MIT, no dependencies,
 * bundled by esbuild like the engine's other JS dependencies); this file only reads the kernel's
 * struct declarations (after preprocessing, so `#include`d structs are found where the kernel
 * sees them) and writes values by field name. Packing checks both directions: every field of the
 * struct must be given (padding, named `_...`, is zero) and every given name must be a field, so a
 * renamed or added field in the kernel fails at the first pack instead of shifting the others.
 */
import { WgslReflect } from 'wgsl_reflect/wgsl_reflect.module.js';
import { KERNEL_SOURCES } from './kernel-sources.js';
import { KernelRegistry } from './kernels.js';
import { preprocessWgsl } from './wgsl.js';

/** A scalar field: a number (u32 also takes a boolean: 1 / 0); a vector field: its components. */
export type UniformValue = number | boolean | ArrayLike<number>;
export type UniformValues = Readonly<Record<string, UniformValue>>;

export type UniformScalar = 'u32' | 'i32' | 'f32';

export interface UniformField {
  readonly name: string;
  /** Byte offset in the struct. */
  readonly offset: number;
  readonly scalar: UniformScalar;
  /** 1 for a scalar, N for vecN. */
  readonly components: number;
}

const SCALARS: ReadonlySet<string> = new Set(['u32', 'i32', 'f32']);
const SUFFIX: Readonly<Record<string, UniformScalar>> = { u: 'u32', i: 'i32', f: 'f32' };

export class UniformStruct {
  private static readonly cache = new Map<string, UniformStruct>();
  private readonly byName: ReadonlyMap<string, UniformField>;
  private readonly hasI32: boolean;

  private constructor(
    /** `kernels/NAME.wgsl: Struct`, for messages. */
    readonly where: string,
    /** Bytes, the struct's size with its trailing padding (what the uniform buffer holds). */
    readonly size: number,
    readonly fields: readonly UniformField[],
  ) {
    this.byName = new Map(fields.map((f) => [f.name, f]));
    this.hasI32 = fields.some((f) => f.scalar === 'i32');
  }

  /** The struct `name` as kernels/`kernel`.wgsl (with its includes) declares it; cached. */
  static of(kernel: string, name: string): UniformStruct {
    const key = `${kernel}:${name}`;
    let layout = UniformStruct.cache.get(key);
    if (!layout) UniformStruct.cache.set(key, (layout = UniformStruct.parse(kernel, name)));
    return layout;
  }

  /** The struct `name` in a WGSL source (tests; `of` reads the kernels). */
  static fromSource(source: string, name: string, where = `WGSL: ${name}`): UniformStruct {
    // Only the struct declarations: wgsl_reflect need not understand every statement of a kernel.
    const declarations = stripComments(source).match(/\bstruct\s+\w+\s*\{[^}]*\}/g) ?? [];
    const declared = new WgslReflect(declarations.join('\n')).structs.find((s) => s.name === name);
    if (!declared) throw new Error(`${where}: no struct ${name} declared`);
    const fields = declared.members.map((member): UniformField => {
      const type = member.type;
      const format = (type as { format?: { name: string } | null }).format?.name;
      const vector = type.name.match(/^vec([234])([uif]?)$/);
      if (SCALARS.has(type.name)) return { name: member.name, offset: member.offset, scalar: type.name as UniformScalar, components: 1 };
      if (vector && (vector[2] || (format && SCALARS.has(format)))) {
        return { name: member.name, offset: member.offset, scalar: vector[2] ? SUFFIX[vector[2]] : (format as UniformScalar), components: Number(vector[1]) };
      }
      throw new Error(`${where}: field ${member.name} has type ${type.name}${format ? `<${format}>` : ''}; a packed uniform holds only u32, i32, f32 and their vectors`);
    });
    return new UniformStruct(where, declared.size, fields);
  }

  private static parse(kernel: string, name: string): UniformStruct {
    const source = preprocessWgsl(kernel, KERNEL_SOURCES, KernelRegistry.definesFor('portable'));
    return UniformStruct.fromSource(source, name, `kernels/${kernel}.wgsl: ${name}`);
  }

  field(name: string): UniformField {
    const field = this.byName.get(name);
    if (!field) throw new Error(`${this.where}: no field ${name} (fields: ${this.fields.map((f) => f.name).join(', ')})`);
    return field;
  }

  /**
   * The struct's bytes for these values. Typed-array views, as the by-index packers used: the
   * platform's byte order, little-endian on every platform WebGPU runs on. Called several times a
   * training step (Adam per group, densification, camera), so it stays cheap (~1 us).
   */
  pack(values: UniformValues): ArrayBuffer {
    const data = new ArrayBuffer(this.size);
    // (no struct we pack has an i32 yet: that view only where one does)
    const views: Views = { u32: new Uint32Array(data), i32: this.hasI32 ? new Int32Array(data) : EMPTY_I32, f32: new Float32Array(data) };
    let given = 0;
    for (const field of this.fields) {
      const value = values[field.name];
      if (value === undefined) {
        if (field.name.startsWith('_')) continue;
        throw new Error(`${this.where}: field ${field.name} is missing (${describeType(field)})`);
      }
      given++;
      const at = field.offset >> 2;
      if (typeof value === 'number' || typeof value === 'boolean') {
        if (field.components !== 1) throw new Error(`${this.where}: field ${field.name} takes ${field.components} values (${describeType(field)}), got 1`);
        this.write(views, field, at, value);
        continue;
      }
      if (value.length !== field.components) throw new Error(`${this.where}: field ${field.name} takes ${field.components} value(s) (${describeType(field)}), got ${value.length}`);
      for (let i = 0; i < value.length; i++) this.write(views, field, at + i, value[i]);
    }
    // Every given name must be a field (a typo would otherwise leave its field zero).
    if (given !== Object.keys(values).length) for (const name of Object.keys(values)) if (values[name] !== undefined) this.field(name);
    return data;
  }

  private write(views: Views, field: UniformField, at: number, value: number | boolean): void {
    if (field.scalar === 'f32') {
      if (typeof value !== 'number') throw new Error(`${this.where}: field ${field.name} (f32) got ${value}`);
      views.f32[at] = value;
      return;
    }
    const n = typeof value === 'boolean' && field.scalar === 'u32' ? Number(value) : value;
    const [lo, hi] = field.scalar === 'u32' ? U32_RANGE : I32_RANGE;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < lo || n > hi) throw new Error(`${this.where}: field ${field.name} (${field.scalar}) got ${value}, expected an integer in [${lo}, ${hi}]`);
    views[field.scalar][at] = n;
  }
}

interface Views {
  u32: Uint32Array;
  i32: Int32Array;
  f32: Float32Array;
}

const EMPTY_I32 = new Int32Array(0);
const U32_RANGE = [0, 0xffffffff] as const;
const I32_RANGE = [-0x80000000, 0x7fffffff] as const;

function describeType(field: UniformField): string {
  return field.components === 1 ? field.scalar : `vec${field.components}<${field.scalar}>`;
}

function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
}
