import { describe, expect, it } from "vitest";
import {
  abnValid, belgianEnterpriseNumberValid, germanRulesIbanValid, glnCheckDigitValid, greekTinValid, italianFiscalCodeValid,
  italianIpaCodeValid, italianVatNumberValid, mod11Valid, swedishOrgNumberValid,
} from "../../../src/validation/rules/peppol-checkdigits.js";

describe("Peppol identifier check digits (the official Schematron functions)", () => {
  it("GLN (0088, u:gln): GS1 mod 10 with weights 3,1 from the right", () => {
    expect(glnCheckDigitValid("4006381333931")).toBe(true);
    expect(glnCheckDigitValid("5790000436101")).toBe(true);
    expect(glnCheckDigitValid("5790000436102")).toBe(false);
    expect(glnCheckDigitValid("4006381333932")).toBe(false);
    expect(glnCheckDigitValid("0614141000036")).toBe(true); // GS1's own example GLN
    expect(glnCheckDigitValid("0614141000037")).toBe(false);
  });

  it("Norwegian organisation number (0192, u:mod11): weights 2..7 from the right, a remainder of 10 is never valid", () => {
    expect(mod11Valid("974760673")).toBe(true);
    expect(mod11Valid("974760674")).toBe(false);
    expect(mod11Valid("923609016")).toBe(true);
    expect(mod11Valid("000000000")).toBe(false); // number($val) > 0 fails
    // 12345678x: weighted sum 156 -> 11 - 156 mod 11 = 9
    expect(mod11Valid("123456789")).toBe(false);
  });

  it("Belgian enterprise number (0208, u:mod97-0208): last two digits are 97 - (first eight mod 97)", () => {
    expect(belgianEnterpriseNumberValid("0403019261")).toBe(true);
    expect(belgianEnterpriseNumberValid("0403019262")).toBe(false);
    expect(belgianEnterpriseNumberValid("0202239951")).toBe(true);
  });

  it("Australian Business Number (0151, u:abn): first digit minus one, weights 10,1,3,...,19, mod 89", () => {
    expect(abnValid("51824753556")).toBe(true);
    expect(abnValid("51824753557")).toBe(false);
    expect(abnValid("5182475355a")).toBe(false);
  });

  it("Swedish organisation number (0007, u:checkSEOrgnr): Luhn on the first nine digits", () => {
    expect(swedishOrgNumberValid("5567321707")).toBe(true);
    expect(swedishOrgNumberValid("5567321708")).toBe(false);
    expect(swedishOrgNumberValid("2120000142")).toBe(true);
    expect(swedishOrgNumberValid("556732170")).toBe(false); // no check digit
    expect(swedishOrgNumberValid("556732-1707")).toBe(false); // digits only
  });

  it("Greek tax number (u:TinVerification): weights 256..2, (sum mod 11) mod 10", () => {
    expect(greekTinValid("094259216")).toBe(true);
    expect(greekTinValid("094259217")).toBe(false);
    expect(greekTinValid("09425921")).toBe(false);
    expect(greekTinValid("0942592169")).toBe(true); // characters after the ninth are not looked at
  });

  it("Italian codes: IPA office code (0201), codice fiscale (0210/9907), partita IVA (0211)", () => {
    expect(italianIpaCodeValid("UFY9MH")).toBe(true);
    expect(italianIpaCodeValid("UFY9M")).toBe(false);
    expect(italianFiscalCodeValid("RSSMRA85T10A562S")).toBe(true);
    expect(italianFiscalCodeValid("RSSMRA85T10A56XS")).toBe(false);
    expect(italianFiscalCodeValid("12345678901")).toBe(true);
    expect(italianFiscalCodeValid("1234567890A")).toBe(false);
    expect(italianVatNumberValid("IT01234567897")).toBe(true);
    expect(italianVatNumberValid("IT01234567898")).toBe(false);
    expect(italianVatNumberValid("it01234567897")).toBe(true);
    expect(italianVatNumberValid("IT0123456789")).toBe(false);
    expect(italianVatNumberValid("DE123")).toBe(true); // only IT numbers are checked
  });

  it("IBAN as the German rules test it (DE-R-019/020)", () => {
    expect(germanRulesIbanValid("DE89370400440532013000")).toBe(true);
    expect(germanRulesIbanValid("DE89 3704 0044 0532 0130 00")).toBe(true);
    expect(germanRulesIbanValid("DE89370400440532013001")).toBe(false);
    expect(germanRulesIbanValid("de89370400440532013000")).toBe(false);
  });
});
