/** Two images to match, by index into the capture's image list (first < second). */
export type ImagePair = readonly [number, number];
