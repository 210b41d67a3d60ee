// The envelopes of the answers, as zod schemas for the OpenAPI document.
import { z } from "zod";

/** `{ data: <schema> }`. */
export const data = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

/** A page of a list: `{ data: [...], nextCursor }`. */
export const page = <T extends z.ZodType>(schema: T) =>
  z.object({
    data: z.array(schema),
    nextCursor: z.string().nullable().meta({ description: "Pass as `cursor` for the next page; null on the last page." }),
  });
