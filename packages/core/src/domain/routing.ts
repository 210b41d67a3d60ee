// The default routing: Polish taxpayers (scheme 9945) to KSeF on `auto`, everyone else to Peppol.
import type { Routing, RoutingDecision } from "../ports/store.js";
import type { ParticipantId, TargetNetwork } from "./types.js";

/** ISO 6523 / EAS code of the Polish VAT number: the identifier KSeF delivers to. */
export const POLISH_VAT_SCHEME = "9945";

/**
 * `auto`: scheme 9945 goes to `ksef`, any other to `peppol`. `peppol`: Peppol, as asked.
 * `ksef`: only for a 9945 recipient; otherwise the submission fails with the reason.
 */
export function defaultRouting(): Routing {
  return {
    name: "default",
    route({ recipient, targetNetwork }: { recipient: ParticipantId; targetNetwork: TargetNetwork }): RoutingDecision {
      const polish = recipient.scheme === POLISH_VAT_SCHEME;
      if (targetNetwork === "peppol") return { ok: true, network: "peppol" };
      if (targetNetwork === "ksef") {
        return polish
          ? { ok: true, network: "ksef" }
          : {
              ok: false,
              reason: `KSeF delivers only to Polish taxpayers (recipient scheme ${POLISH_VAT_SCHEME}); the recipient is ${recipient.scheme}:${recipient.value}. Send it with targetNetwork "auto" or "peppol".`,
            };
      }
      return { ok: true, network: polish ? "ksef" : "peppol" };
    },
  };
}
