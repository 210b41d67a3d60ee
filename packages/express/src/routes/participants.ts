// The route table of /v1/participants: Peppol participant lookups. The /v1 router mounts it when
// a participant discovery is configured (otherwise these paths are 404).
import { lookupParticipant, ParticipantQuerySchema, ParticipantSchema, type DiscoveryPort } from "@einvoice/core";
import type { Route } from "./route.js";
import { data } from "./schemas.js";

export interface ParticipantDeps {
  discovery: DiscoveryPort;
}

export const PARTICIPANT_ROUTES: readonly Route<ParticipantDeps>[] = [
  {
    method: "get",
    path: "/participants/{participantId}",
    operationId: "lookupParticipant",
    summary: "Look a recipient up on Peppol: registered, the document types it accepts, its endpoint",
    description:
      "Asks the configured participant discovery (SML/SMP, the access point, or the sandbox), with a cache and a timeout. `registered: false` is the network's answer; a lookup that cannot be made is a 502, never `registered: false`. Present when the server has a discovery configured.",
    auth: "apiKey",
    params: { participantId: { description: "The Peppol participant identifier `scheme:value`.", example: "0208:0123456789" } },
    query: ParticipantQuerySchema,
    success: { status: 200, description: "The participant as the network knows it.", schema: data(ParticipantSchema) },
    errors: [
      {
        codes: ["participant_lookup_failed"],
        description:
          "The lookup could not be made (timeout, SML or SMP unreachable, an SMP answer that is not signed or not trusted); try again later.",
      },
      { codes: ["route_not_found"], description: "The server has no participant discovery configured." },
    ],
    handle: async ({ deps, params, query }) => ({ data: await lookupParticipant(deps.discovery, params.participantId!, query) }),
  },
];
