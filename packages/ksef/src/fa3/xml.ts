// The FA(3) writer: elements in the order the XSD's sequences require, text escaped.
const escapeXml = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** A tiny writer: `leaf` leaves out an empty value (FA(3)'s optional elements are absent, never empty). */
export class Xml {
  private out: string[] = [];
  open(name: string, attrs = ""): this {
    this.out.push(`<${name}${attrs}>`);
    return this;
  }
  close(name: string): this {
    this.out.push(`</${name}>`);
    return this;
  }
  leaf(name: string, value: string | undefined | null): this {
    if (value !== undefined && value !== null && value !== "") this.out.push(`<${name}>${escapeXml(value)}</${name}>`);
    return this;
  }
  raw(value: string): this {
    this.out.push(escapeXml(value));
    return this;
  }
  toString(): string {
    return this.out.join("");
  }
}
