// The UN/CEFACT Cross Industry Invoice D16B syntax (EN 16931 CII, XRechnung CII, Factur-X / ZUGFeRD 2.x XML):
// read.ts reads it into InvoiceData, write.ts writes InvoiceData as EN 16931 CII; its rule sets are
// validation/rulesets/ with syntax "cii".
import { ApiError } from "../../../domain/errors.js";
import { NS, type DocumentNode } from "../../model.js";
import type { Syntax } from "../types.js";
import { writeCii } from "./write.js";

/** The CII root element's qualified name as the model writes it. */
export const CII_ROOT = "rsm:CrossIndustryInvoice";

export const cii: Syntax = {
  id: "cii",
  title: "UN/CEFACT CII D16B",
  recognises: (root: DocumentNode) => root.name === "CrossIndustryInvoice" && root.ns === NS.rsm,
  kindOf: () => "invoice",
  read: () => {
    throw new ApiError("invalid_ubl_xml", "Reading CII is not available yet.");
  },
  write: (data, options) => writeCii(data, options),
};
