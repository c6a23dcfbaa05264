// Bundle entry of the CLI (out/cli/index.mjs).
import { main } from './index.js';

void main();
