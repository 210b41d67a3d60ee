import { packageBuild } from "../../tsup.base.js";

export default packageBuild({ external: ["express", "@einvoice/core", "@einvoice/render"] });
