// Module hooks for a child Node process (`node --import ./load-recorder.mjs …`): every module URL
// that ESM resolution hands out is appended to the file named by ADSNAP_LOAD_LOG, so a test can
// say what importing an entry point loaded. Registered from the main thread; the hook runs in
// Node's hooks thread, which shares the environment.
import { register } from 'node:module';

register('./load-recorder-hooks.mjs', import.meta.url);
