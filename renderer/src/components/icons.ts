/** Line icons (24 x 24, stroked with currentColor), drawn for the studio; no icon font, no network. */
const circle = (cx: number, cy: number, r: number) => `M${cx - r} ${cy}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0`;

export const ICONS = {
  home: ['M3 11l9-8 9 8', 'M5 9.5V20h14V9.5', 'M10 20v-6h4v6'],
  train: ['M3 12h4l3-8 4 16 3-8h4'],
  viewer: ['M12 2.5l8.5 4.75v9.5L12 21.5l-8.5-4.75v-9.5z', 'M3.5 7.25L12 12l8.5-4.75', 'M12 12v9.5'],
  export: ['M12 15V3', 'M7 8l5-5 5 5', 'M4 14v6h16v-6'],
  settings: ['M4 6h9', 'M19 6h1', circle(16, 6, 2.5), 'M4 12h2', 'M12 12h8', circle(9, 12, 2.5), 'M4 18h11', 'M21 18h-1', circle(17.5, 18, 2.5)],
  log: ['M4 17l5-5-5-5', 'M12 19h8'],
  play: ['M7 4.5l12 7.5-12 7.5z'],
  pause: ['M7 5h3v14H7z', 'M14 5h3v14h-3z'],
  stop: ['M6 6h12v12H6z'],
  video: ['M3 7h12v10H3z', 'M15 10.5l6-3.5v10l-6-3.5'],
  folder: ['M3 6.5A1.5 1.5 0 014.5 5H9l2 2.5h8.5A1.5 1.5 0 0121 9v9.5a1.5 1.5 0 01-1.5 1.5h-15A1.5 1.5 0 013 18.5z'],
  dataset: ['M4 5.5c0 1.4 3.6 2.5 8 2.5s8-1.1 8-2.5S16.4 3 12 3 4 4.1 4 5.5z', 'M4 5.5v13c0 1.4 3.6 2.5 8 2.5s8-1.1 8-2.5v-13', 'M4 12c0 1.4 3.6 2.5 8 2.5s8-1.1 8-2.5'],
  file: ['M14 3H6v18h12V7z', 'M14 3v4h4'],
  open: ['M3 6.5A1.5 1.5 0 014.5 5H9l2 2.5h8.5A1.5 1.5 0 0121 9v1', 'M3 19l3-8h16l-3 8z'],
  alert: ['M12 3.5l9.5 17h-19z', 'M12 10v4.5', 'M12 17.5v.5'],
  close: ['M6 6l12 12', 'M18 6L6 18'],
  sun: [circle(12, 12, 4), 'M12 2v2', 'M12 20v2', 'M2 12h2', 'M20 12h2', 'M4.9 4.9l1.4 1.4', 'M17.7 17.7l1.4 1.4', 'M4.9 19.1l1.4-1.4', 'M17.7 6.3l1.4-1.4'],
  moon: ['M20 14.5A8 8 0 119.5 4a6.5 6.5 0 0010.5 10.5z'],
  sparkle: ['M12 3l1.8 5.6L19.5 10l-5.7 1.6L12 17.5l-1.8-5.9L4.5 10l5.7-1.4z', 'M19 16l.7 2 2 .7-2 .7-.7 2-.7-2-2-.7 2-.7z'],
  fit: ['M4 9V4h5', 'M15 4h5v5', 'M20 15v5h-5', 'M9 20H4v-5', circle(12, 12, 2.5)],
  camera: ['M3.5 8h3.5l2-3h6l2 3h3.5v11h-17z', circle(12, 13, 3.5)],
  points: [circle(6, 7, 1.2), circle(12, 5, 1.2), circle(17, 9, 1.2), circle(8, 13, 1.2), circle(14, 14, 1.2), circle(19, 16, 1.2), circle(6, 19, 1.2), circle(12, 19.5, 1.2)],
  orbit: [circle(12, 12, 2.5), 'M3 12c0-2.5 4-4.5 9-4.5s9 2 9 4.5-4 4.5-9 4.5c-2 0-3.9-.3-5.4-.9', 'M8 14.5l-1.6 1.1 1 1.7'],
  fly: ['M2 16l20-8-7 12-3-5z', 'M12 15l10-7'],
  chip: ['M7 7h10v10H7z', 'M10 3v4', 'M14 3v4', 'M10 17v4', 'M14 17v4', 'M3 10h4', 'M3 14h4', 'M17 10h4', 'M17 14h4'],
  trash: ['M4 7h16', 'M9 7V4h6v3', 'M6 7l1 13h10l1-13'],
  arrowDown: ['M12 5v14', 'M6 13l6 6 6-6'],
  upload: ['M12 16V4', 'M7 9l5-5 5 5', 'M4 15v5h16v-5'],
} as const;

export type IconName = keyof typeof ICONS;
