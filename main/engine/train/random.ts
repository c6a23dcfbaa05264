// The generator lives in shared/ so the renderer's demo scene and the tests draw from the same one
// (mulberry32 once); the engine's modules import it from here.
export { Random } from '../../../shared/random.js';
