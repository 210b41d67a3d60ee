// One element of an XML document as the core reads it (UBL, CII or any other syntax): the fields every reader of a
// document model uses. document/model.ts extends it with what the rules use; networks get it through ports/network.ts.

/**
 * One element of the document's model as a network reads it, which the dispatcher hands over. The
 * core's `DocumentNode` (document/model.ts, what `parseXml` builds) extends it with what the rules use.
 */
export interface ModelNode {
  /** Namespace URI ("" for none). */
  readonly ns: string;
  /** Local name. */
  readonly name: string;
  /** The qualified name: "cbc:ID", "cac:Party", "Invoice" for the root, "{uri}x" otherwise. */
  readonly qname: string;
  /** Attributes in no namespace, by name, values as written (entity references expanded). */
  readonly attrs: Readonly<Record<string, string>>;
  /** The element's own character data (not its descendants'), untrimmed, line ends normalised. */
  readonly text: string;
  /** Child elements, in document order. */
  readonly children: readonly ModelNode[];
}
