// WGSL sources are imported as strings (esbuild `text` loader, a Vite plugin in tests).
declare module '*.wgsl' {
  const source: string;
  export default source;
}
