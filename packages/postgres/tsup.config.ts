import { packageBuild } from "../../tsup.base.js";

export default packageBuild({ external: ["pg", "@electric-sql/pglite", "@einvoice/core"] });
