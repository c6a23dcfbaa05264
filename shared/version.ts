declare const __ARGONAUT_VERSION__: string | undefined;

/** The product version, injected at build time (package.json); 'dev' when running from sources. */
export const APP_VERSION: string = typeof __ARGONAUT_VERSION__ === 'string' ? __ARGONAUT_VERSION__ : 'dev';

declare const __ARGONAUT_COMMIT__: string | undefined;

/** The git commit the bundle was built from ('-dirty' with uncommitted changes); 'dev' from sources. */
export const BUILD_COMMIT: string = typeof __ARGONAUT_COMMIT__ === 'string' ? __ARGONAUT_COMMIT__ : 'dev';
