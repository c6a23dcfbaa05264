declare const __ARGONAUT_VERSION__: string | undefined;

/** The product version, injected at build time (package.json); 'dev' when running from sources. */
export const APP_VERSION: string = typeof __ARGONAUT_VERSION__ === 'string' ? __ARGONAUT_VERSION__ : 'dev';
