// A Node module hook for tests: the drivers `pg` and `@electric-sql/pglite` resolve as if they were
// not installed (Node's own ERR_MODULE_NOT_FOUND), the way a user who installed neither sees them.
// Use: node --import ./hide-drivers.mjs ...
import { register } from "node:module";

register("./hide-drivers-hooks.mjs", import.meta.url);
