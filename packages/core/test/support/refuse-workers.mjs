// Preloaded (--import) by pool.test.ts: every worker thread fails to start synchronously, as
// `new Worker` does when Node cannot set one up (ERR_WORKER_INIT_FAILED, e.g. out of file
// descriptors). The ESM bindings of node:worker_threads are synced to the patched export.
import { createRequire, syncBuiltinESMExports } from "node:module";

const require = createRequire(import.meta.url);
const threads = require("node:worker_threads");
threads.Worker = class RefusedWorker {
  constructor() {
    const e = new Error("Worker initialization failure: EMFILE");
    e.code = "ERR_WORKER_INIT_FAILED";
    throw e;
  }
};
syncBuiltinESMExports();
