/**
 * Value schemas that several documents share (the project manifest, the edit list, camera paths):
 * one definition each, so a time or a rotation is checked, and refused, the same way everywhere.
 */
import { z } from 'zod';

export const finite = z.number().finite();

export const isoTime = z.string().refine((s) => Number.isFinite(Date.parse(s)), 'expected an ISO 8601 time');

/** A unit quaternion (x, y, z, w); refused when its length is not within 1e-3 of 1. */
export const unitQuaternion = z
  .tuple([finite, finite, finite, finite])
  .refine((q) => Math.abs(Math.hypot(...q) - 1) < 1e-3, 'expected a unit quaternion (x, y, z, w)');
