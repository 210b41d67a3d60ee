// What a KSeF submission keeps between its attempts (SendRequest.state, saved with saveState, so it
// survives a crash of the process): the sessions it opened with the SHA-256 of the FA(3) it sent in
// each, the invoice reference once KSeF accepted the upload, and the KSeF number once KSeF decided.
// JSON, no secrets: the session's AES key and the access token are never saved.

/** One upload of the invoice: its session, the FA(3)'s hash, and KSeF's invoice reference once accepted. */
export interface KsefUpload {
  session: string;
  /** SHA-256 (base64) of the FA(3) file, as sent in `invoiceHash`. */
  hash: string;
  /**
   * When the FA(3) was written (its DataWytworzeniaFa, ISO 8601), so that a later attempt writes the
   * same bytes again for the delivered outcome (checked against `hash`). Absent in states saved before.
   */
  createdAt?: string;
  /** The invoice reference of the 202 answer; absent while unknown (a crash or a timeout). */
  invoice?: string;
  /** KSeF ended this upload without the invoice (a session or system error, or it never arrived). */
  dead?: true;
}

export interface KsefState {
  v: 1;
  uploads: KsefUpload[];
  /** KSeF accepted the invoice: its number, the session and hash of the accepted upload; the UPO is fetched next. */
  accepted?: { session: string; ksefNumber: string; hash: string; upoTries: number };
}

export const emptyState = (): KsefState => ({ v: 1, uploads: [] });

/** The state saved by earlier attempts; throws when it is not one this adapter wrote. */
export function readState(saved: string | null | undefined): KsefState {
  if (saved === null || saved === undefined || saved === "") return emptyState();
  const s = JSON.parse(saved) as KsefState;
  if (s?.v !== 1 || !Array.isArray(s.uploads)) throw new Error("not a KSeF delivery state of version 1");
  return s;
}
