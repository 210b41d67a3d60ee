// The zod schemas of `GET /v1/participants/{participantId}`: its query and its answer.
import { z } from "zod";

/** Query of `GET /v1/participants/{participantId}`. */
export const ParticipantQuerySchema = z
  .strictObject({
    documentType: z
      .string({ error: (iss) => (Array.isArray(iss.input) ? "documentType must not be repeated" : "documentType must be a string") })
      .min(1, { error: "documentType should not be empty" })
      .max(1000, { error: "documentType must be shorter than or equal to 1000 characters" })
      .optional()
      .meta({
        description:
          "A document type identifier (`busdox-docid-qns::...`, or its value alone); the answer then carries the endpoint for it, or null when the participant does not accept it.",
        example:
          "busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1",
      }),
  })
  .meta({ id: "ParticipantQuery" });
export type ParticipantQuery = z.input<typeof ParticipantQuerySchema>;

export const DiscoveryEndpointSchema = z
  .object({
    documentType: z.string().meta({ description: "The document type identifier, with its scheme." }),
    processId: z.string().nullable().meta({ description: "The process identifier with its scheme (`cenbii-procid-ubl::...`)." }),
    transportProfile: z.string().meta({ example: "peppol-transport-as4-v2_0" }),
    url: z.string().meta({ description: "The receiving access point's URL." }),
    certificate: z
      .object({ subject: z.string(), notAfter: z.string().meta({ description: "ISO 8601: when the certificate expires." }) })
      .nullable()
      .meta({ description: "The access point's certificate, as the SMP publishes it." }),
    serviceActivation: z.string().nullable().meta({ description: "ISO 8601, or null when not bounded." }),
    serviceExpiration: z.string().nullable().meta({ description: "ISO 8601, or null when not bounded." }),
  })
  .meta({ id: "DiscoveryEndpoint" });

export const ParticipantSchema = z
  .object({
    participantId: z.string().meta({ example: "0208:0123456789" }),
    registered: z.boolean().meta({ description: "Whether the participant is registered on Peppol." }),
    documentTypes: z.array(z.string()).meta({ description: "The document types it accepts (`busdox-docid-qns::...`); empty when not registered." }),
    endpoint: DiscoveryEndpointSchema.nullable().meta({
      description: "For the `documentType` asked: where it is received; null without `documentType`, or when it is not accepted.",
    }),
  })
  .meta({ id: "Participant" });
export type Participant = z.infer<typeof ParticipantSchema>;
