/**
 * Features and matches per image, read from the COLMAP database after matching (either path
 * writes one): what the report needs to say which images failed to match, before the mapper
 * says which failed to register.
 */
import { readColmapDatabase } from '../sfm/colmap-database.js';

export interface ImageMatchStats {
  features: number;
  /** Pairs with raw matches (descriptor tests only). */
  matchedPairs: number;
  /** Pairs COLMAP's geometric verification kept, and their inlier matches in all. */
  verifiedPairs: number;
  verifiedMatches: number;
}

export interface MatchStats {
  /** Per image name. */
  images: Record<string, ImageMatchStats>;
  /** Images with no verified pair: the mapper cannot register them. */
  unmatched: string[];
  pairs: { matched: number; verified: number };
}

export async function matchStats(database: string): Promise<MatchStats> {
  const content = await readColmapDatabase(database);
  const byId = new Map(content.images.map((im) => [im.id, { name: im.name, stats: { features: im.keypoints.length / 4, matchedPairs: 0, verifiedPairs: 0, verifiedMatches: 0 } }]));
  let matched = 0;
  for (const m of content.matches) {
    if (m.matches.length === 0) continue;
    matched++;
    for (const id of [m.image1, m.image2]) {
      const entry = byId.get(id);
      if (entry) entry.stats.matchedPairs++;
    }
  }
  for (const v of content.verified) {
    for (const id of [v.image1, v.image2]) {
      const entry = byId.get(id);
      if (!entry) continue;
      entry.stats.verifiedPairs++;
      entry.stats.verifiedMatches += v.inliers;
    }
  }
  const images: Record<string, ImageMatchStats> = {};
  for (const { name, stats } of byId.values()) images[name] = stats;
  const unmatched = [...byId.values()].filter((e) => e.stats.verifiedPairs === 0).map((e) => e.name);
  return { images, unmatched, pairs: { matched, verified: content.verified.length } };
}
