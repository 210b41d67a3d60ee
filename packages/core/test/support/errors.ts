// The ApiError a promise rejects with (a test fails when it resolves or rejects with anything else).
import { ApiError } from "../../src/index.js";

export async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}
