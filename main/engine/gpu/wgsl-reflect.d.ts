// wgsl_reflect 1.6.0's package says "type": "module" but its `main` (wgsl_reflect.node.js) is
// CommonJS, which Node then refuses to load; its ES module build is imported by path instead,
// with the package's own types.
declare module 'wgsl_reflect/wgsl_reflect.module.js' {
  export * from 'wgsl_reflect';
}
