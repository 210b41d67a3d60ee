// What a webhook event says: the payload of an invoice's status change, and the exact text POSTed.
import type { InvoiceRecord, WebhookEventRecord, WebhookEventType } from "./types.js";
import { invoiceView } from "./views.js";

/** The event recorded when an invoice's status changes after creation: `{ invoice }` in its public view. */
export function statusChangedEvent(invoice: InvoiceRecord): { type: WebhookEventType; data: string } {
  return { type: "invoice.status_changed", data: JSON.stringify({ invoice: invoiceView(invoice) }) };
}

/** The `data` of the `invoice.received` event of a stored inbound record: `{ invoice }` in its public view. */
export function receivedEventData(invoice: InvoiceRecord): string {
  return JSON.stringify({ invoice: invoiceView(invoice) });
}

/** The exact JSON text POSTed for an event: built the same way on every attempt. */
export function webhookBody(e: Pick<WebhookEventRecord, "id" | "type" | "createdAt" | "data">): string {
  return `{"id":${JSON.stringify(e.id)},"type":${JSON.stringify(e.type)},"createdAt":${JSON.stringify(e.createdAt)},"data":${e.data}}`;
}
